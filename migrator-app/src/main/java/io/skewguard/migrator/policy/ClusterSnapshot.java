package io.skewguard.migrator.policy;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Everything the planner needs about one cluster, in plain values: no Kafka, no ring, no slot table
 * internals. A thin adapter ({@code SnapshotAssembler}) builds it from capacity reports, the
 * detector's slot heat and the slot table.
 *
 * @param nodes every node with its capacity and rack; ids unique
 * @param shards the shards that may move: (slot, node) with node in that slot's candidate set
 * @param candidateSets slot to its candidate set (node ids, anchor first)
 * @param draining nodes being drained: every shard of theirs with bytes goes, they take none
 * @param excluded nodes an operator excluded: never a source or target, their bytes stay where they
 *     are and count in the CV
 */
public record ClusterSnapshot(List<NodeCapacity> nodes, List<ShardLoad> shards, Map<Integer, List<String>> candidateSets,
        Set<String> draining, Set<String> excluded) {

    /** A snapshot of a cluster without draining or excluded nodes. */
    public ClusterSnapshot(List<NodeCapacity> nodes, List<ShardLoad> shards, Map<Integer, List<String>> candidateSets) {
        this(nodes, shards, candidateSets, Set.of(), Set.of());
    }

    /** A snapshot without excluded nodes. */
    public ClusterSnapshot(List<NodeCapacity> nodes, List<ShardLoad> shards, Map<Integer, List<String>> candidateSets,
            Set<String> draining) {
        this(nodes, shards, candidateSets, draining, Set.of());
    }

    public ClusterSnapshot {
        nodes = List.copyOf(nodes);
        shards = List.copyOf(shards);
        candidateSets = Map.copyOf(candidateSets);
        draining = Set.copyOf(draining);
        excluded = Set.copyOf(excluded);
        Set<String> ids = new HashSet<>();
        for (NodeCapacity n : nodes) {
            if (!ids.add(n.node())) {
                throw new IllegalArgumentException("node " + n.node() + " appears twice");
            }
        }
        for (ShardLoad s : shards) {
            Objects.requireNonNull(candidateSets.get(s.slot()), () -> "no candidate set for slot " + s.slot());
            if (!ids.contains(s.node())) {
                throw new IllegalArgumentException("shard of slot " + s.slot() + " is on unknown node " + s.node());
            }
        }
    }

    /** Cluster used / cluster total: the utilisation every node is brought towards. */
    public double targetUtilisation() {
        long used = 0;
        long total = 0;
        for (NodeCapacity n : nodes) {
            used += n.usedBytes();
            total += n.totalBytes();
        }
        return total == 0 ? 0.0 : (double) used / total;
    }

    /** Population CV of node utilisation. */
    public double capacityCv() {
        double[] u = new double[nodes.size()];
        for (int i = 0; i < u.length; i++) {
            u[i] = nodes.get(i).utilisation();
        }
        return io.skewguard.core.stats.CoefficientOfVariation.of(u);
    }
}
