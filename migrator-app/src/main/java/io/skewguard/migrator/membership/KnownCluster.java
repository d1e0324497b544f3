package io.skewguard.migrator.membership;

import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * What the topics say about one cluster when the command starts: the latest membership record of
 * each node, the cluster's latest report (per-node bytes and racks) and its slot table (candidate
 * sets, read-only marks). A node is known when any of the three names it; a node without a
 * membership record counts as a member (ACTIVE), as the migrator takes it.
 *
 * @param cluster the cluster id
 * @param entries latest membership record by node
 * @param report the latest report of the cluster, or null when there is none
 * @param rows latest slot-table row by slot
 */
public record KnownCluster(String cluster, SortedMap<String, NodeMembership> entries, SkewReport report,
        SortedMap<Integer, SlotAssignment> rows) {

    public KnownCluster {
        Objects.requireNonNull(cluster, "cluster");
        entries = new TreeMap<>(entries);
        rows = new TreeMap<>(rows);
    }

    /** A cluster the topics say nothing about. */
    public static KnownCluster empty(String cluster) {
        return new KnownCluster(cluster, new TreeMap<>(), null, new TreeMap<>());
    }

    /** Every node named by a membership record, the latest report or a slot-table row, sorted. */
    public SortedSet<String> nodes() {
        SortedSet<String> all = new TreeSet<>(entries.keySet());
        if (report != null) {
            report.getNodes().forEach(f -> all.add(f.getNode()));
        }
        rows.values().forEach(r -> {
            all.addAll(r.getCandidates());
            all.addAll(r.getReadOnly());
        });
        return all;
    }

    public boolean knows(String node) {
        return nodes().contains(node);
    }

    public Optional<NodeMembership> entry(String node) {
        return Optional.ofNullable(entries.get(node));
    }

    /** The node's state: its membership record's, or ACTIVE for a known node without one. */
    public MembershipState state(String node) {
        NodeMembership e = entries.get(node);
        return e != null ? e.getState() : MembershipState.ACTIVE;
    }

    /** Whether the node may be a candidate: a known member that is not draining, drained, removed or lost. */
    public boolean live(String node) {
        return knows(node) && state(node) == MembershipState.ACTIVE;
    }

    /** Known nodes that may be candidates, sorted. */
    public List<String> liveNodes() {
        return nodes().stream().filter(this::live).toList();
    }

    public Optional<NodeFigures> figures(String node) {
        if (report == null) {
            return Optional.empty();
        }
        return report.getNodes().stream().filter(f -> f.getNode().equals(node)).findFirst();
    }

    /** The node's rack: its membership record's, else the latest report's; null when unknown. */
    public String rack(String node) {
        NodeMembership e = entries.get(node);
        if (e != null && e.getRack() != null) {
            return e.getRack();
        }
        return figures(node).map(NodeFigures::getRack).orElse(null);
    }

    /** Used bytes from the latest report, when it has a capacity figure of the node. */
    public OptionalLong usedBytes(String node) {
        return figures(node).filter(f -> f.getTotalBytes() > 0).map(f -> OptionalLong.of(f.getUsedBytes())).orElse(OptionalLong.empty());
    }

    /** Total bytes from the latest report, else as declared on the membership record. */
    public OptionalLong totalBytes(String node) {
        Optional<NodeFigures> f = figures(node).filter(x -> x.getTotalBytes() > 0);
        if (f.isPresent()) {
            return OptionalLong.of(f.get().getTotalBytes());
        }
        NodeMembership e = entries.get(node);
        return e != null && e.getCapacityBytes() != null ? OptionalLong.of(e.getCapacityBytes()) : OptionalLong.empty();
    }

    /** Slots whose candidate set holds the node (read-only or not). */
    public List<Integer> slotsHolding(String node) {
        List<Integer> slots = new ArrayList<>();
        rows.forEach((slot, r) -> {
            if (r.getCandidates().contains(node)) {
                slots.add(slot);
            }
        });
        return slots;
    }

    /** Slots where the node is a read-only candidate. */
    public List<Integer> readOnlySlots(String node) {
        List<Integer> slots = new ArrayList<>();
        rows.forEach((slot, r) -> {
            if (r.getReadOnly().contains(node)) {
                slots.add(slot);
            }
        });
        return slots;
    }

    /** The candidate-set size m of the slot table (its largest set), when it has rows. */
    public OptionalInt candidateSetSize() {
        return rows.values().stream().mapToInt(r -> r.getCandidates().size()).max();
    }

    /** The slot table's routing epoch (its highest row's), when it has rows. */
    public OptionalLong routingEpoch() {
        return rows.values().stream().mapToLong(SlotAssignment::getRoutingEpoch).max();
    }

    /** Whether the topics say anything of the cluster at all. */
    public boolean isEmpty() {
        return entries.isEmpty() && report == null && rows.isEmpty();
    }

    /** Σ used and Σ total bytes over {@code nodes} with a capacity figure. */
    public Map.Entry<Long, Long> usedAndTotal(List<String> nodes) {
        long used = 0;
        long total = 0;
        for (String n : nodes) {
            OptionalLong t = totalBytes(n);
            if (t.isPresent()) {
                total += t.getAsLong();
                used += usedBytes(n).orElse(0);
            }
        }
        return Map.entry(used, total);
    }
}
