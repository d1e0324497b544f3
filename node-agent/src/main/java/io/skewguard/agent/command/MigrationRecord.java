package io.skewguard.agent.command;

import java.util.Objects;

/**
 * What this node knows and did about one migration: enough to answer any repeat of any of its
 * commands the same way, after a restart too, and to refuse a switch or a cleanup it did not take
 * part in.
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
 * @param routingEpoch routing epoch the node took part at (the target's COPY, the source's PREPARE);
 *     {@link #UNKNOWN} for a record saved before epochs were recorded
 * @param commitEpoch routing epoch of the COMMIT applied (the slot table after the switch);
 *     {@link #UNKNOWN} before the commit
 * @param finishedAt when the migration finished on this node (target COMMITTED, source CLEANED,
 *     either ABORTED), epoch milliseconds; {@link #UNKNOWN} while it runs. Finished records are
 *     pruned once older than the agent's {@code finished-migration-retention}.
 */
public record MigrationRecord(
        String migrationId, String cluster, int slot, String source, String target, Role role, Stage stage,
        long bytesCopied, long maxBytesPerSec, String copyCommandId, long routingEpoch, long commitEpoch, long finishedAt) {

    /** An epoch or time not (yet) known. */
    public static final long UNKNOWN = -1;

    public MigrationRecord {
        Objects.requireNonNull(migrationId, "migrationId");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(stage, "stage");
        copyCommandId = copyCommandId == null ? "" : copyCommandId;
    }

    /** A record without epochs or finishing time (as saved before they were recorded). */
    public MigrationRecord(String migrationId, String cluster, int slot, String source, String target, Role role, Stage stage,
                           long bytesCopied, long maxBytesPerSec, String copyCommandId) {
        this(migrationId, cluster, slot, source, target, role, stage, bytesCopied, maxBytesPerSec, copyCommandId,
                UNKNOWN, UNKNOWN, UNKNOWN);
    }

    /** This record at {@code next}, at time {@code now} (which becomes its finishing time if {@code next} ends it here). */
    public MigrationRecord at(Stage next, long now) {
        long finished = finishedAt == UNKNOWN && ends(role, next) ? now : finishedAt;
        return new MigrationRecord(migrationId, cluster, slot, source, target, role, next, bytesCopied, maxBytesPerSec,
                copyCommandId, routingEpoch, commitEpoch, finished);
    }

    /** This record committed at routing epoch {@code epoch}, at time {@code now}. */
    public MigrationRecord committed(long epoch, long now) {
        MigrationRecord r = at(Stage.COMMITTED, now);
        return new MigrationRecord(migrationId, cluster, slot, source, target, role, r.stage(), bytesCopied, maxBytesPerSec,
                copyCommandId, routingEpoch, epoch, r.finishedAt());
    }

    /** This record with the copy rate of a later COPY. */
    public MigrationRecord withRate(long bytesPerSec) {
        return new MigrationRecord(migrationId, cluster, slot, source, target, role, stage, bytesCopied, bytesPerSec,
                copyCommandId, routingEpoch, commitEpoch, finishedAt);
    }

    /** This record copied: stage COPIED with {@code bytes}. */
    public MigrationRecord copied(long bytes) {
        return new MigrationRecord(migrationId, cluster, slot, source, target, role, Stage.COPIED, bytes, maxBytesPerSec,
                copyCommandId, routingEpoch, commitEpoch, finishedAt);
    }

    /** Whether nothing more happens to this migration on this node (so the record is kept only against repeats). */
    public boolean finished() {
        return finishedAt != UNKNOWN;
    }

    /** The last stage of a migration on a node of {@code role}: the target's COMMITTED, the source's CLEANED, ABORTED. */
    static boolean ends(Role role, Stage stage) {
        return stage == Stage.ABORTED || stage == Stage.CLEANED || (stage == Stage.COMMITTED && role == Role.TARGET);
    }
}
