package io.skewguard.balancer.policy;

import java.util.List;
import java.util.Set;

/**
 * What the controller needs from one {@code SkewReport}: the per-node heat and capacity of a cluster
 * at one tick, and the detector's heat Gini over the same window.
 *
 * @param cluster cluster id
 * @param time event time of the tick (the report's window end), epoch millis
 * @param heatGini Gini of per-node heat divided by capacity share (docs/design.md §6), in [0, 1]
 * @param nodes every known node of the cluster, at least one
 * @param held nodes an operator excluded: their weight stays as it is (they still count in every share)
 */
public record LoadSnapshot(String cluster, long time, double heatGini, List<NodeLoad> nodes, Set<String> held) {

    /** A snapshot in which every node's weight may move. */
    public LoadSnapshot(String cluster, long time, double heatGini, List<NodeLoad> nodes) {
        this(cluster, time, heatGini, nodes, Set.of());
    }

    public LoadSnapshot {
        if (cluster == null || cluster.isEmpty()) {
            throw new IllegalArgumentException("cluster id must not be empty");
        }
        if (!Double.isFinite(heatGini) || heatGini < 0 || heatGini > 1) {
            throw new IllegalArgumentException("heat Gini must be in [0, 1], was " + heatGini);
        }
        if (nodes == null || nodes.isEmpty()) {
            throw new IllegalArgumentException("a load snapshot needs at least one node");
        }
        nodes = List.copyOf(nodes);
        if (nodes.stream().map(NodeLoad::node).distinct().count() != nodes.size()) {
            throw new IllegalArgumentException("node ids of a snapshot must be distinct");
        }
        held = Set.copyOf(held);
    }

    /** This snapshot with {@code nodes} held (excluded by an operator). */
    public LoadSnapshot holding(Set<String> nodes) {
        return new LoadSnapshot(cluster, time, heatGini, this.nodes, nodes);
    }
}
