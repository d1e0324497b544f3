package io.skewguard.migrator.policy;

/**
 * The state machine's clocks, all in milliseconds of the coordinator's wall clock.
 *
 * @param copyStallMillis a COPY without any answer (progress or done) for this long aborts the batch
 * @param prepareMillis the batch aborts unless every participant answered PREPARE within this
 * @param retryMillis an unanswered COMMIT or CLEANUP (past the commit point, never abandoned) is sent
 *     again after this long
 * @param abortMillis how long the coordinator waits for ABORT answers before it frees the nodes
 */
public record Timeouts(long copyStallMillis, long prepareMillis, long retryMillis, long abortMillis) {

    public Timeouts {
        if (copyStallMillis < 1 || prepareMillis < 1 || retryMillis < 1 || abortMillis < 1) {
            throw new IllegalArgumentException("every timeout must be >= 1 ms: " + this);
        }
    }
}
