package io.skewguard.schemas.serde;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs a registry outage once, when it starts (WARN, with the URL and why), and once when it ends
 * (INFO), however many clients of that registry a process has and however often they retry: an
 * app has several serdes per task, each with its own client, and retries every few seconds.
 *
 * <p>Kept per registry (its base URLs as one string) for the whole JVM.
 */
final class RegistryOutage {

  private static final Logger LOG = LoggerFactory.getLogger(RegistryOutage.class);
  /** Registry → when its outage was first seen (System.nanoTime), while it lasts. */
  private static final Map<String, Long> DOWN_SINCE = new ConcurrentHashMap<>();

  private RegistryOutage() {}

  /** A request to {@code registry} failed as an outage does. */
  static void failed(RegistryUnavailableException e) {
    if (DOWN_SINCE.putIfAbsent(e.registry(), System.nanoTime()) == null) {
      LOG.warn("{}; records whose schema is not cached wait and are retried, none is dead-lettered, until "
          + "schema registry {} answers again", e.getMessage(), e.registry());
    } else {
      LOG.debug("schema registry {} still unavailable: {}", e.registry(), e.getMessage());
    }
  }

  /** A request to {@code registry} got an answer from it. */
  static void answered(String registry) {
    if (DOWN_SINCE.isEmpty()) {
      return; // the usual case: nothing to look up
    }
    Long since = DOWN_SINCE.remove(registry);
    if (since != null) {
      LOG.info("schema registry {} answers again after {} ms; processing goes on", registry,
          Duration.ofNanos(System.nanoTime() - since).toMillis());
    }
  }

  /** Whether an outage of {@code registry} is going on, as far as this JVM has seen. */
  static boolean isDown(String registry) {
    return DOWN_SINCE.containsKey(registry);
  }
}
