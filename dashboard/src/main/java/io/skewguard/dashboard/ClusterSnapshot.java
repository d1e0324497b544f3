package io.skewguard.dashboard;

import java.util.List;
import java.util.Map;

/**
 * What the page shows of one cluster at one moment; a copy, served as JSON.
 *
 * @param series heat Gini and capacity CV of each report within the history, oldest first
 * @param thresholds the detector's threshold per alert kind ({@code HEAT}, {@code CAPACITY}) as its
 *     latest alert of that kind states it; absent before the first alert of a kind
 * @param clearLevels the level below which a CONFIRMED alert of a kind clears, once an alert has stated it
 * @param alertStates the latest alert state per kind
 * @param migrationsByPhase running migrations per phase ({@code COPY}, {@code PREPARE}, {@code COMMIT},
 *     {@code CLEANUP}, {@code ABORT})
 * @param decisions what the loop decided, newest read first (alerts, rounds, batches, membership, the
 *     operators' controls, and the apps' own decisions from the decision log)
 * @param controls the operators' controls as they stand
 * @param proposals the newest dry-run proposal of each app (balancer, migrator)
 * @param skippedRecords records of this dashboard's topics that could not be decoded (all clusters)
 */
public record ClusterSnapshot(
        String cluster,
        List<Point> series,
        Map<String, Double> thresholds,
        Map<String, Double> clearLevels,
        Map<String, String> alertStates,
        List<NodeBar> nodes,
        Map<String, Integer> migrationsByPhase,
        List<RunningMigration> migrations,
        long migrationsCommitted,
        long migrationsAborted,
        long bytesMoved,
        long weightRounds,
        long routingEpoch,
        List<Decision> decisions,
        Controls controls,
        List<ProposalView> proposals,
        long skippedRecords) {

    /** One report: the end of its window and its figures. */
    public record Point(long time, double heatGini, double capacityCv, String heatState, String capacityState) {}

    /**
     * One node: utilisation from the latest report, weight factor from the balancer (1 until it sets
     * one), membership state from the membership topic ({@code null}: a member without a record),
     * whether an operator excluded it.
     */
    public record NodeBar(String node, String rack, double utilisation, long usedBytes, long totalBytes, double weight,
                          String membership, boolean excluded) {}

    /** The controls: dry run, paused, the throttle in bytes per second (0: auto), the excluded nodes, all of it for people. */
    public record Controls(boolean dryRun, boolean paused, long throttleBytesPerSec, List<String> excluded, String text) {}

    /**
     * A dry run's proposal: its app, when, the figure it acts on (now and expected), the bytes it
     * would move, how many moves its first batch would start, and its items (at most 50 shown of {@code total}).
     */
    public record ProposalView(String app, long time, String metric, double current, double expected, long bytesToMove, int firstBatch,
                               List<String> items, int total) {}

    /** A migration that has started and not yet been cleaned up or aborted. */
    public record RunningMigration(String id, String batch, int slot, String source, String target, String phase,
                                   long bytesCopied, long shardBytes) {}

    /** One decision of the loop: when (the record's own time), of which kind, and what. */
    public record Decision(long time, String kind, String text) {}
}
