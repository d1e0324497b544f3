package io.skewguard.balancer;

import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks the detector's records before the controller sees them and turns a report into a
 * {@link LoadSnapshot}. Everything that fails here is dead-lettered, not thrown at Streams.
 */
final class ReportReader {

    private final Set<String> knownClusters;

    /** @param knownClusters clusters this balancer serves; empty accepts every cluster */
    ReportReader(Set<String> knownClusters) {
        this.knownClusters = Set.copyOf(knownClusters);
    }

    LoadSnapshot snapshot(String key, SkewReport report) throws RejectedInput {
        String cluster = report.getCluster();
        checkCluster(key, cluster);
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

    void checkAlert(String key, SkewAlert alert) throws RejectedInput {
        checkCluster(key, alert.getCluster());
        if (!Double.isFinite(alert.getValue())) {
            throw new RejectedInput("alert " + alert.getAlertId() + " has value " + alert.getValue());
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
