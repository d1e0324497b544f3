package io.skewguard.runtime.lifecycle;

import java.time.Duration;
import java.util.Optional;

/**
 * One long-running part of a SkewGuard process (a Kafka Streams application, a consumer loop, a
 * purger thread), run by a {@link ProcessLifecycle}.
 *
 * <p>The contract:
 * <ul>
 *   <li>{@link #start()} begins the work and returns without waiting for it to be ready (the
 *       lifecycle starts the next service meanwhile); an exception means the service did not
 *       start.</li>
 *   <li>{@link #ready()} says whether it is doing its work now; {@link #failure()} is present once
 *       it has failed for good (it will not recover by itself, the process must stop).</li>
 *   <li>{@link #close(Duration)} is the orderly stop: flush, commit, leave the consumer group. It
 *       must be safe in any state (never started, half started after {@code start()} threw, failed,
 *       already closed), must return within about {@code timeout}, and is idempotent.</li>
 * </ul>
 */
public interface Service {

    /** A short name for log lines and the health endpoint, unique within a process. */
    String name();

    /** Starts the work; does not wait until it is ready. */
    void start() throws Exception;

    /**
     * A stop was requested while {@link #start()} runs, called from another thread: a start that
     * waits for something (a registry that is down, say) returns soon after instead of waiting on.
     * Most starts do not wait, and need nothing here.
     */
    default void stopStarting() {}

    /** Whether the service is doing its work now. */
    boolean ready();

    /** Why the service failed for good; empty while it is healthy. */
    Optional<Throwable> failure();

    /**
     * Stops in order within about {@code timeout}; true if everything was flushed and closed in
     * time. Later calls do nothing more and return the first call's answer.
     */
    boolean close(Duration timeout);
}
