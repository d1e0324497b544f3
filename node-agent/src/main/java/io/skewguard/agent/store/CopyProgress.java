package io.skewguard.agent.store;

import java.util.Objects;

/**
 * Where the copy of one migration's shard to this (target) node stands.
 *
 * @param migrationId the migration
 * @param status running, done, failed, or unknown (no copy of that migration here)
 * @param bytesCopied bytes copied so far
 * @param bytesTotal bytes the shard held on the source when the copy started
 * @param message why the copy failed; null otherwise
 */
public record CopyProgress(String migrationId, Status status, long bytesCopied, long bytesTotal, String message) {

    /** The states of a copy. */
    public enum Status { RUNNING, DONE, FAILED, UNKNOWN }

    public CopyProgress {
        Objects.requireNonNull(migrationId, "migrationId");
        Objects.requireNonNull(status, "status");
    }

    /** No copy of {@code migrationId} is known here. */
    public static CopyProgress unknown(String migrationId) {
        return new CopyProgress(migrationId, Status.UNKNOWN, 0, 0, null);
    }
}
