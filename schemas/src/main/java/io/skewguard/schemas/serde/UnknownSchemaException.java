package io.skewguard.schemas.serde;

import org.apache.kafka.common.errors.SerializationException;

/**
 * The registry answered that the record's schema id does not exist (Confluent error code 40403):
 * the record is bad input, and goes to the dead-letter topic. Its message starts with
 * {@value #REASON_CODE}{@code :}, the dead-letter reason's code.
 */
public class UnknownSchemaException extends SerializationException {

  private static final long serialVersionUID = 1L;

  /** The dead-letter reason code of a record whose schema id the registry does not know. */
  public static final String REASON_CODE = "unknown-schema";

  private final int schemaId;

  public UnknownSchemaException(String topic, int schemaId, String details, Throwable cause) {
    super(REASON_CODE + ": " + topic + ": schema id " + schemaId + " not found: " + details, cause);
    this.schemaId = schemaId;
  }

  /** The schema id the record named. */
  public int schemaId() {
    return schemaId;
  }
}
