package io.skewguard.schemas.serde;

import java.util.Optional;
import org.apache.kafka.common.errors.RetriableException;

/**
 * The schema registry could not give an answer about the record's schema: it is unreachable, timed
 * out, answered 5xx, 408 or 429, refused the credentials (401, 403), or answered 404 without a
 * registry error code (the URL's base path is wrong). None of that says anything about the record.
 *
 * <p>Deliberately not a {@link org.apache.kafka.common.errors.SerializationException}: the apps
 * send records that raise one of those to the dead-letter topic, and a good record must never go
 * there because of a bad moment. An app that meets this exception stops at the record, commits
 * nothing past it, waits and tries again (docs/design.md §5). It is a Kafka
 * {@link RetriableException} for the same reason.
 */
public class RegistryUnavailableException extends RetriableException {

  private static final long serialVersionUID = 1L;

  private final String registry;
  private final boolean wrongBasePath;

  /**
   * @param registry the registry's base URL(s), as they appear in log lines
   * @param message what failed, for people
   * @param wrongBasePath true when the registry answered 404 without an error code
   */
  public RegistryUnavailableException(String registry, String message, boolean wrongBasePath, Throwable cause) {
    super(message, cause);
    this.registry = registry;
    this.wrongBasePath = wrongBasePath;
  }

  /** The registry's base URL(s), credentials removed. */
  public String registry() {
    return registry;
  }

  /**
   * True when a registry answered 404 without a registry error code: something answers at that
   * URL, but not the Confluent API, so the path part of {@code schema.registry.url} is wrong.
   */
  public boolean wrongBasePath() {
    return wrongBasePath;
  }

  /** The outage {@code failure} is or was caused by, if any (Kafka Streams wraps it, for one). */
  public static Optional<RegistryUnavailableException> causeOf(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof RegistryUnavailableException outage) {
        return Optional.of(outage);
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return Optional.empty();
  }
}
