package io.skewguard.dashboard;

import java.time.Duration;
import java.util.Objects;

/**
 * How much the dashboard keeps per cluster, so that its memory stays bounded however long it runs
 * and whatever the topics hold.
 *
 * @param history reports older than this before the newest report are dropped from the charts
 * @param maxPoints at most this many reports per cluster (the oldest go first)
 * @param maxDecisions at most this many decision-log entries per cluster (the oldest go first)
 * @param maxNodes at most this many nodes per cluster; further nodes are not shown
 * @param maxMigrations at most this many running migrations tracked per cluster (the oldest go first)
 * @param maxClusters at most this many clusters; records of further clusters are ignored
 */
public record ViewLimits(Duration history, int maxPoints, int maxDecisions, int maxNodes, int maxMigrations, int maxClusters) {

    public ViewLimits {
        Objects.requireNonNull(history, "history");
        if (history.isNegative() || history.isZero()) {
            throw new IllegalArgumentException("history must be positive, was " + history);
        }
        if (maxPoints < 2 || maxDecisions < 1 || maxNodes < 1 || maxMigrations < 1 || maxClusters < 1) {
            throw new IllegalArgumentException("every limit must be at least 1 (points at least 2)");
        }
    }

    /** Six hours of reports, 2000 points, 200 decisions, 1000 nodes, 1000 migrations, 50 clusters. */
    public static ViewLimits defaults() {
        return new ViewLimits(Duration.ofHours(6), 2000, 200, 1000, 1000, 50);
    }

    public ViewLimits withHistory(Duration history) {
        return new ViewLimits(history, maxPoints, maxDecisions, maxNodes, maxMigrations, maxClusters);
    }

    public ViewLimits withMaxDecisions(int maxDecisions) {
        return new ViewLimits(history, maxPoints, maxDecisions, maxNodes, maxMigrations, maxClusters);
    }
}
