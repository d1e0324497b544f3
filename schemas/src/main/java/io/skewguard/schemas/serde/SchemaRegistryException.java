package io.skewguard.schemas.serde;

import org.apache.kafka.common.KafkaException;

/**
 * A schema registry refused a request or could not be reached.
 *
 * <p>Carries the HTTP status and the registry's {@code error_code} so that callers can tell "this
 * id does not exist" (a bad record) from "the registry is down" (a bad moment) without parsing the
 * message. The in-process {@link MockSchemaRegistry} uses the same codes as Confluent's.
 */
public class SchemaRegistryException extends KafkaException {

  private static final long serialVersionUID = 1L;

  /** Confluent error code: the subject does not exist. */
  public static final int SUBJECT_NOT_FOUND = 40401;

  /** Confluent error code: the subject has no such version. */
  public static final int VERSION_NOT_FOUND = 40402;

  /** Confluent error code: no schema has the requested id. */
  public static final int SCHEMA_NOT_FOUND = 40403;

  /** Confluent error code: the schema is incompatible with an earlier version of the subject. */
  public static final int INCOMPATIBLE_SCHEMA = 409;

  /** Status and code used when no registry answered at all. */
  public static final int NO_ANSWER = -1;

  private final int httpStatus;
  private final int errorCode;

  /** A refusal with the registry's status and error code ({@link #NO_ANSWER} when unknown). */
  public SchemaRegistryException(String message, int httpStatus, int errorCode) {
    super(message);
    this.httpStatus = httpStatus;
    this.errorCode = errorCode;
  }

  /** No registry answered; {@code cause} says why. */
  public SchemaRegistryException(String message, Throwable cause) {
    super(message, cause);
    this.httpStatus = NO_ANSWER;
    this.errorCode = NO_ANSWER;
  }

  /** HTTP status of the answer, or {@link #NO_ANSWER} if no registry answered. */
  public int httpStatus() {
    return httpStatus;
  }

  /** The registry's {@code error_code}, or {@link #NO_ANSWER} if it gave none. */
  public int errorCode() {
    return errorCode;
  }

  /** True when the registry answered that the schema id, subject or version does not exist. */
  public boolean isNotFound() {
    return errorCode == SCHEMA_NOT_FOUND
        || errorCode == SUBJECT_NOT_FOUND
        || errorCode == VERSION_NOT_FOUND
        || (errorCode == NO_ANSWER && httpStatus == 404);
  }

  /** True when no registry could be reached (connection refused, timeout, I/O error). */
  public boolean isUnreachable() {
    return httpStatus == NO_ANSWER;
  }
}
