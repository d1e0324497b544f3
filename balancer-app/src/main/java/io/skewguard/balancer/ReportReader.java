package io.skewguard.balancer;

import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Checks the detector's records before the controller sees them and turns a report into a
 * {@link LoadSnapshot}. Everything that fails here is dead-lettered, not thrown at Streams.
 *
 * <p>Times the controller keeps ({@code windowEnd} as the last round's time, {@code since} as the
 * episode it repairs) may lie at most {@code max-future-skew} ahead of this process's clock: one
 * record further ahead would otherwise hold every later round back as too soon, or every later
 * confirmation as an episode already seen. Such a record is refused as {@code future}.
 */
final class ReportReader {

    private final Set<String> knownClusters;
    private final FutureSkew futureSkew;

    /**
     * @param knownClusters clusters this balancer serves; empty accepts every cluster
     * @param futureSkew how far ahead of the clock a time may lie
     */
    ReportReader(Set<String> knownClusters, FutureSkew futureSkew) {
        this.knownClusters = Set.copyOf(knownClusters);
        this.futureSkew = futureSkew;
    }

    /** @param now this process's clock (epoch ms) */
    LoadSnapshot snapshot(String key, SkewReport report, long now) throws RejectedInput {
        String cluster = report.getCluster();
        checkCluster(key, cluster);
        checkTime("windowEnd", report.getWindowEnd().toEpochMilli(), now);
        if (report.getNodes().isEmpty()) {
            throw new RejectedInput("report of cluster " + cluster + " has zero nodes");
        }
        double gini = report.getHeatGini();
        if (!Double.isFinite(gini) || gini < 0 || gini > 1) {
            throw new RejectedInput("report of cluster " + cluster + " has heat Gini " + gini + ", not in [0, 1]");
        }
        List<NodeLoad> loads = new ArrayList<>(report.getNodes().size());
        Set<String> seen = new HashSet<>();
        for (NodeFigures figures : report.getNodes()) {
            String node = figures.getNode();
            if (node == null || node.isEmpty()) {
                throw new RejectedInput("report of cluster " + cluster + " has a node without id");
            }
            if (!seen.add(node)) {
                throw new RejectedInput("report of cluster " + cluster + " lists node " + node + " twice");
            }
            if (figures.getHeatBytes() < 0 || figures.getUsedBytes() < 0 || figures.getTotalBytes() < 0) {
                throw new RejectedInput("node " + node + " of cluster " + cluster + " has negative bytes");
            }
            if (figures.getTotalBytes() > 0 && figures.getUsedBytes() > figures.getTotalBytes()) {
                throw new RejectedInput("node " + node + " of cluster " + cluster + " has used > total bytes");
            }
            if (!Double.isFinite(figures.getUtilisation())) {
                throw new RejectedInput("node " + node + " of cluster " + cluster + " has utilisation "
                        + figures.getUtilisation());
            }
            loads.add(new NodeLoad(node, figures.getHeatBytes(), figures.getTotalBytes()));
        }
        return new LoadSnapshot(cluster, report.getWindowEnd().toEpochMilli(), gini, loads);
    }

    /** @param now this process's clock (epoch ms) */
    void checkAlert(String key, SkewAlert alert, long now) throws RejectedInput {
        checkCluster(key, alert.getCluster());
        checkTime("since", alert.getSince().toEpochMilli(), now);
        if (!Double.isFinite(alert.getValue())) {
            throw new RejectedInput("alert " + alert.getAlertId() + " has value " + alert.getValue());
        }
    }

    private void checkTime(String what, long time, long now) throws RejectedInput {
        Optional<String> future = futureSkew.check(what, time, now);
        if (future.isPresent()) {
            throw new RejectedInput(future.get());
        }
    }

    private void checkCluster(String key, String cluster) throws RejectedInput {
        if (cluster == null || cluster.isEmpty()) {
            throw new RejectedInput("record without cluster id");
        }
        if (!cluster.equals(key)) {
            throw new RejectedInput("record key '" + key + "' is not its cluster '" + cluster + "'");
        }
        if (!knownClusters.isEmpty() && !knownClusters.contains(cluster)) {
            throw new RejectedInput("unknown cluster '" + cluster + "'");
        }
    }
}
