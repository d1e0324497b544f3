package io.skewguard.migrator.policy;

import java.util.List;

/**
 * Everything the coordinator remembers about one cluster, kept in its state store.
 *
 * @param cluster cluster id
 * @param repairing a repair runs (from CONFIRMED CAPACITY until the target CV or no improving move)
 * @param batchSeq number of batches started so far (the last batch id's number)
 * @param batch the running switch batch, or null between batches
 * @param unreported committed moves the capacity reports may not show yet
 * @param writeLoad the rate limiter's memory of the cluster's write load
 * @param budgetBytesPerSec the current migration bandwidth budget of the cluster
 * @param bytesMoved bytes of shards committed since the coordinator first saw the cluster
 * @param batchesCommitted batches that committed
 * @param batchesAborted batches that aborted
 * @param lastMessage the last repair status message, for people
 * @param routingEpoch the slot table's routing epoch; kept here because the coordinator is the
 *     table's only writer and a switch must not scan the table to find it
 * @param consecutiveAborts batches aborted in a row (0 after a committed batch or a new repair)
 * @param copyBytesPerSec the rate the running batch's COPY commands were last sent with; 0 without a batch
 * @param maintenanceLevel the capacity CV above which a maintenance repair starts, set when a repair
 *     ends without failing (factor × the larger of its target and the CV it ended at); 0 when none
 *     may start (never repaired, repairing, or the last repair stopped on aborts)
 * @param driftSince report time from which the capacity CV has stayed above the maintenance level,
 *     {@link #NEVER} if it is not above
 */
public record RepairState(
        String cluster,
        boolean repairing,
        long batchSeq,
        SwitchBatch batch,
        List<AppliedMove> unreported,
        AdaptiveRateLimiter.WriteLoad writeLoad,
        long budgetBytesPerSec,
        long bytesMoved,
        long batchesCommitted,
        long batchesAborted,
        String lastMessage,
        long routingEpoch,
        int consecutiveAborts,
        long copyBytesPerSec,
        double maintenanceLevel,
        long driftSince) {

    /** Marks "no such time". */
    public static final long NEVER = Long.MIN_VALUE;


    public RepairState {
        unreported = List.copyOf(unreported);
    }

    /** A cluster seen for the first time: no repair, full budget. */
    public static RepairState fresh(String cluster, long budgetBytesPerSec) {
        return new RepairState(cluster, false, 0, null, List.of(), AdaptiveRateLimiter.WriteLoad.NONE, budgetBytesPerSec, 0, 0, 0, null, 0, 0, 0, 0, NEVER);
    }

    RepairState withBatch(SwitchBatch next) {
        return new RepairState(cluster, repairing, batchSeq, next, unreported, writeLoad, budgetBytesPerSec, bytesMoved,
                batchesCommitted, batchesAborted, lastMessage, routingEpoch, consecutiveAborts, copyBytesPerSec, maintenanceLevel, driftSince);
    }

    /** The state after (re)sending the running batch's COPY commands at {@code rate}. */
    RepairState withCopyBytesPerSec(long rate) {
        return new RepairState(cluster, repairing, batchSeq, batch, unreported, writeLoad, budgetBytesPerSec, bytesMoved,
                batchesCommitted, batchesAborted, lastMessage, routingEpoch, consecutiveAborts, rate, maintenanceLevel, driftSince);
    }

    /** The state with the cluster's budget at {@code bytesPerSec} (an operator's throttle, or the limiter's again). */
    RepairState withBudget(long bytesPerSec) {
        return new RepairState(cluster, repairing, batchSeq, batch, unreported, writeLoad, bytesPerSec, bytesMoved,
                batchesCommitted, batchesAborted, lastMessage, routingEpoch, consecutiveAborts, copyBytesPerSec, maintenanceLevel, driftSince);
    }

    /** The state with the capacity CV above the maintenance level since {@code since} ({@link #NEVER}: not above). */
    RepairState withDriftSince(long since) {
        return new RepairState(cluster, repairing, batchSeq, batch, unreported, writeLoad, budgetBytesPerSec, bytesMoved,
                batchesCommitted, batchesAborted, lastMessage, routingEpoch, consecutiveAborts, copyBytesPerSec, maintenanceLevel, since);
    }

    /** The state without the committed moves to or from {@code nodes} (expired: no report will show them). */
    public RepairState withoutMovesOf(java.util.Set<String> nodes) {
        List<AppliedMove> kept = unreported.stream()
                .filter(m -> !nodes.contains(m.source()) && !nodes.contains(m.target())).toList();
        return new RepairState(cluster, repairing, batchSeq, batch, kept, writeLoad, budgetBytesPerSec, bytesMoved,
                batchesCommitted, batchesAborted, lastMessage, routingEpoch, consecutiveAborts, copyBytesPerSec, maintenanceLevel, driftSince);
    }

    /** The state whose next batch is number {@code seq} + 1. */
    public RepairState withBatchSeq(long seq) {
        return new RepairState(cluster, repairing, seq, batch, unreported, writeLoad, budgetBytesPerSec, bytesMoved,
                batchesCommitted, batchesAborted, lastMessage, routingEpoch, consecutiveAborts, copyBytesPerSec, maintenanceLevel, driftSince);
    }

    /**
     * The state with migration {@code migrationId} of the running batch, past its commit point,
     * switched at routing epoch {@code epoch} (what its COMMIT and CLEANUP name); unchanged otherwise.
     */
    public RepairState withSwitchEpoch(String migrationId, long epoch) {
        if (batch == null) {
            return this;
        }
        List<Migration> next = new java.util.ArrayList<>();
        for (Migration m : batch.migrations()) {
            next.add(m.id().equals(migrationId) && m.state() instanceof MigrationState.Committing c ? m.with(c.switchedAt(epoch)) : m);
        }
        return withBatch(batch.with(next));
    }

    /** The state after a switch raised the table's routing epoch. */
    public RepairState withRoutingEpoch(long next) {
        return new RepairState(cluster, repairing, batchSeq, batch, unreported, writeLoad, budgetBytesPerSec, bytesMoved,
                batchesCommitted, batchesAborted, lastMessage, next, consecutiveAborts, copyBytesPerSec, maintenanceLevel, driftSince);
    }
}
