package io.skewguard.agent.command;

import java.util.Objects;

/**
 * What this node knows and did about one migration: enough to answer any repeat of any of its
 * commands the same way, after a restart too.
 *
 * @param migrationId the migration
 * @param cluster its cluster, for the answers
 * @param slot the slot of the shard
 * @param source node that gives the shard up
 * @param target node that receives it
 * @param role this node's part
 * @param stage how far it got here
 * @param bytesCopied bytes the copy took (target, from COPIED on); 0 otherwise
 * @param maxBytesPerSec copy rate of the latest COPY (target), so that a resumed copy keeps it; 0 otherwise
 * @param copyCommandId id of the COPY command (target), so the asynchronous "copy done" answer names it
 */
public record MigrationRecord(
        String migrationId, String cluster, int slot, String source, String target, Role role, Stage stage,
        long bytesCopied, long maxBytesPerSec, String copyCommandId) {

    public MigrationRecord {
        Objects.requireNonNull(migrationId, "migrationId");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(stage, "stage");
        copyCommandId = copyCommandId == null ? "" : copyCommandId;
    }

    /** This record at {@code next}. */
    public MigrationRecord at(Stage next) {
        return new MigrationRecord(migrationId, cluster, slot, source, target, role, next, bytesCopied, maxBytesPerSec, copyCommandId);
    }

    /** This record with the copy rate of a later COPY. */
    public MigrationRecord withRate(long bytesPerSec) {
        return new MigrationRecord(migrationId, cluster, slot, source, target, role, stage, bytesCopied, bytesPerSec, copyCommandId);
    }

    /** This record copied: stage COPIED with {@code bytes}. */
    public MigrationRecord copied(long bytes) {
        return new MigrationRecord(migrationId, cluster, slot, source, target, role, Stage.COPIED, bytes, maxBytesPerSec, copyCommandId);
    }
}
