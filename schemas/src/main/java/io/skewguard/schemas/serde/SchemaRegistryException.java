package io.skewguard.schemas.serde;

import org.apache.kafka.common.KafkaException;

/**
 * A schema registry answered, and refused the request: the schema id, subject or version does not
 * exist, or the schema is incompatible or invalid. (When it cannot give an answer at all, the
 * client throws {@link RegistryUnavailableException} instead.)
 *
 * <p>Carries the HTTP status and the registry's {@code error_code} so that callers can tell "this
 * id does not exist" (a bad record) from "this schema may not be registered" without parsing the
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

  /** HTTP status of the answer, or {@link #NO_ANSWER} if no registry answered. */
  public int httpStatus() {
    return httpStatus;
  }

  /** The registry's {@code error_code}, or {@link #NO_ANSWER} if it gave none. */
  public int errorCode() {
    return errorCode;
  }

  /**
   * True when the registry answered that the schema id, subject or version does not exist. A 404
   * without one of these codes is not this: it comes from something that is not the registry API
   * (a wrong base path), and the client reports it as {@link RegistryUnavailableException}.
   */
  public boolean isNotFound() {
    return isNotFoundCode(errorCode);
  }

  /** Whether {@code errorCode} is one of the registry's "not found" codes (40401, 40402, 40403). */
  public static boolean isNotFoundCode(int errorCode) {
    return errorCode == SCHEMA_NOT_FOUND || errorCode == SUBJECT_NOT_FOUND || errorCode == VERSION_NOT_FOUND;
  }

  /** True when the registry refused a schema as incompatible with the subject's earlier versions. */
  public boolean isIncompatible() {
    return errorCode == INCOMPATIBLE_SCHEMA;
  }
}
