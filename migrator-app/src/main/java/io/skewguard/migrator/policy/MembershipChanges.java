package io.skewguard.migrator.policy;

import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.ring.NodeIndex;
import io.skewguard.core.slots.SlotTable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The slot-table side of membership changes, pure: which rows a drain marks read-only, a cancel
 * clears, and how a node that leaves (drained, lost, removed) is replaced in every candidate set
 * (docs/migrator.md, "Membership"). Each function returns only the rows it changes; the caller
 * publishes them as one update (one new routing epoch).
 */
public final class MembershipChanges {

    private MembershipChanges() {}

    /**
     * One slot-table row as these rules need it; {@code inFlightTarget} and {@code spreadReason} may be
     * null. {@code spread} and {@code held} are the slot's spread and held nodes (docs/design.md §3.5).
     */
    public record Row(int slot, List<String> candidates, List<String> readOnly, String inFlightTarget, List<String> spread,
            List<String> held, String spreadReason) {
        public Row {
            candidates = List.copyOf(candidates);
            readOnly = List.copyOf(readOnly);
            spread = List.copyOf(spread);
            held = List.copyOf(held);
        }

        public Row(int slot, List<String> candidates, List<String> readOnly, String inFlightTarget) {
            this(slot, candidates, readOnly, inFlightTarget, List.of(), List.of(), null);
        }

        public Row(int slot, List<String> candidates, List<String> readOnly) {
            this(slot, candidates, readOnly, null);
        }

        Row with(List<String> nextCandidates, List<String> nextReadOnly) {
            return new Row(slot, nextCandidates, nextReadOnly, inFlightTarget, spread, held, spreadReason);
        }

        /** This row with other spread and held nodes, for {@code reason}. */
        public Row withSpread(List<String> nextSpread, List<String> nextHeld, String reason) {
            return new Row(slot, candidates, readOnly, inFlightTarget, nextSpread, nextHeld, reason);
        }

        /** True when {@code node} may hold keys of the slot: a candidate, a spread or a held node. */
        public boolean names(String node) {
            return candidates.contains(node) || spread.contains(node) || held.contains(node);
        }
    }

    /**
     * The rows whose candidate set holds {@code node}, with {@code node} added to their read-only
     * candidates; and the rows that spread over {@code node}, with it moved from their spread to their
     * held nodes (it takes no new writes there either, and keeps serving what it received).
     */
    public static Map<Integer, Row> markReadOnly(Collection<Row> rows, String node) {
        Map<Integer, Row> changed = new TreeMap<>();
        for (Row row : rows) {
            if (row.candidates().contains(node) && !row.readOnly().contains(node)) {
                List<String> readOnly = new ArrayList<>(row.readOnly());
                readOnly.add(node);
                changed.put(row.slot(), row.with(row.candidates(), readOnly));
            } else if (row.spread().contains(node)) {
                List<String> spread = new ArrayList<>(row.spread());
                spread.remove(node);
                List<String> held = new ArrayList<>(row.held());
                held.add(node);
                changed.put(row.slot(), row.withSpread(spread, held, "node " + node + " draining: from spread to held, "
                        + spread.size() + " spread nodes left"));
            }
        }
        return changed;
    }

    /** The rows that mark {@code node} read-only, without the mark. */
    public static Map<Integer, Row> clearReadOnly(Collection<Row> rows, String node) {
        Map<Integer, Row> changed = new TreeMap<>();
        for (Row row : rows) {
            if (row.readOnly().contains(node)) {
                List<String> readOnly = new ArrayList<>(row.readOnly());
                readOnly.remove(node);
                changed.put(row.slot(), row.with(row.candidates(), readOnly));
            }
        }
        return changed;
    }

    /**
     * Replaces {@code leaving} in every candidate set holding it (except {@code keep}: slots whose
     * switch a running batch will still make) by {@link HashRing#replacement} on the ring of {@code
     * members} (sorted by id, ring weight 1, {@code vnodesPerUnit}), from the slot's ring point. Only
     * nodes in {@code eligible} may come in. A set for which no eligible node is left loses the node
     * (unless it is the set's only candidate, which stays: a set is never empty). The node leaves the
     * read-only candidates too. The slot's in-flight target is never its replacement.
     *
     * <p>A leaving node that is a spread or held node of a slot is replaced there the same way (its
     * replacement takes the spread's writes, or holds what the storage layer rebuilds of the slot),
     * or dropped when no eligible node is left. No replacement is a node that already holds the slot
     * (a candidate, spread or held node).
     *
     * @param members every member of the cluster with its rack (null: unknown); {@code leaving} need not be one
     */
    public static Map<Integer, Row> replace(Collection<Row> rows, String leaving, Map<String, String> members, Set<String> eligible,
            Set<Integer> keep, int slotCount, int vnodesPerUnit) {
        return replace(rows, leaving, members, eligible, keep, slotCount, vnodesPerUnit, true);
    }

    /**
     * As above; with {@code spreadAndHeld} false (a drained node: it still runs and holds what spread
     * writes it received) only the candidate sets are changed, and the node stays a held node.
     */
    public static Map<Integer, Row> replace(Collection<Row> rows, String leaving, Map<String, String> members, Set<String> eligible,
            Set<Integer> keep, int slotCount, int vnodesPerUnit, boolean spreadAndHeld) {
        List<Node> nodes = new ArrayList<>();
        new TreeMap<>(members).forEach((id, rack) -> nodes.add(new Node(id, rack, 1.0)));
        HashRing ring = nodes.isEmpty() ? null : HashRing.of(nodes, vnodesPerUnit);
        Map<Integer, Row> changed = new TreeMap<>();
        for (Row row : rows) {
            if (!(spreadAndHeld ? row.names(leaving) : row.candidates().contains(leaving)) || keep.contains(row.slot())) {
                continue;
            }
            String replacement = ring == null ? null : replacement(ring, row, leaving, eligible, slotCount);
            if (!row.candidates().contains(leaving)) {
                boolean spread = row.spread().contains(leaving);
                List<String> list = new ArrayList<>(spread ? row.spread() : row.held());
                if (replacement != null) {
                    list.set(list.indexOf(leaving), replacement);
                } else {
                    list.remove(leaving);
                }
                String reason = "node " + leaving + " left: " + (replacement == null ? "dropped from" : "replaced by " + replacement + " in")
                        + " the slot's " + (spread ? "spread" : "held") + " nodes";
                changed.put(row.slot(), spread ? row.withSpread(list, row.held(), reason) : row.withSpread(row.spread(), list, reason));
                continue;
            }
            List<String> candidates = new ArrayList<>(row.candidates());
            int at = candidates.indexOf(leaving);
            if (replacement != null) {
                candidates.set(at, replacement);
            } else if (candidates.size() > 1) {
                candidates.remove(at);
            }
            List<String> readOnly = new ArrayList<>(row.readOnly());
            readOnly.remove(leaving);
            changed.put(row.slot(), row.with(candidates, readOnly));
        }
        return changed;
    }

    private static String replacement(HashRing ring, Row row, String leaving, Set<String> eligible, int slotCount) {
        NodeIndex index = ring.nodes();
        for (String id : row.candidates()) {
            index = index.with(id); // candidates off the ring get indexes past the ring's
        }
        int[] set = new int[row.candidates().size()];
        for (int i = 0; i < set.length; i++) {
            set[i] = index.indexOf(row.candidates().get(i));
        }
        boolean[] ok = new boolean[index.size()];
        for (int i = 0; i < ring.nodes().size(); i++) {
            // a running migration's target is no replacement in its slot: an abort would make it drop the slot's data;
            // nor is a node that holds the slot already (spread or held): it would be named twice
            ok[i] = eligible.contains(index.id(i)) && !index.id(i).equals(leaving) && !index.id(i).equals(row.inFlightTarget())
                    && !row.names(index.id(i));
        }
        int chosen = ring.replacement(SlotTable.slotPoint(row.slot(), slotCount), new CandidateSet(set), index.indexOf(leaving), ok);
        return chosen < 0 ? null : index.id(chosen);
    }

    /**
     * True when a drain is over: the node's latest capacity report, taken after the read-only mark,
     * shows no bytes in any slot whose row still names it (as candidate, spread or held node), and no
     * running batch moves a shard to or from it.
     */
    public static boolean drained(Member member, CapacityReading latest, Collection<Row> rows, boolean inRunningBatch) {
        if (member.standing() != Member.Standing.DRAINING || latest == null || inRunningBatch
                || latest.eventTime() < member.drainMarkedAt()) {
            return false;
        }
        for (Row row : rows) {
            if (row.names(member.node()) && latest.shardBytes().getOrDefault(row.slot(), 0L) > 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The rows that name {@code node} as a spread or held node, without it: a drained node holds
     * nothing of them any more (its shards there moved like the others), so it just leaves.
     */
    public static Map<Integer, Row> dropFromSpread(Collection<Row> rows, String node) {
        Map<Integer, Row> changed = new TreeMap<>();
        for (Row row : rows) {
            if (row.spread().contains(node) || row.held().contains(node)) {
                List<String> spread = new ArrayList<>(row.spread());
                List<String> held = new ArrayList<>(row.held());
                spread.remove(node);
                held.remove(node);
                changed.put(row.slot(), row.withSpread(spread, held, "node " + node + " drained: it leaves the slot's "
                        + (row.spread().contains(node) ? "spread" : "held") + " nodes"));
            }
        }
        return changed;
    }

    /**
     * The slots (with bytes, in slot order) that {@code node} holds in rows that name it (candidate,
     * spread or held node): what a rebuild must restore.
     */
    public static Map<Integer, Long> held(String node, CapacityReading latest, Collection<Row> rows) {
        Map<Integer, Long> held = new TreeMap<>();
        for (Row row : rows) {
            if (row.names(node)) {
                long bytes = latest == null ? 0 : latest.shardBytes().getOrDefault(row.slot(), 0L);
                held.put(row.slot(), bytes);
            }
        }
        return held;
    }

    /**
     * "rebuild from replicas: 37 slots, 1.2 TB: slots 3 (40 GB), 17 (2.1 GB), ..." (at most 20 slots
     * named, the rest counted).
     */
    public static String rebuild(Map<Integer, Long> held) {
        long total = held.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "rebuild from replicas: %d slots, %s", held.size(), bytes(total)));
        int named = 0;
        for (Map.Entry<Integer, Long> e : new TreeMap<>(held).entrySet()) { // slot order, whatever map it came in
            b.append(named == 0 ? ": slots " : ", ");
            if (named == 20) {
                b.append("and ").append(held.size() - 20).append(" more");
                break;
            }
            b.append(e.getKey()).append(" (").append(bytes(e.getValue())).append(')');
            named++;
        }
        return b.toString();
    }

    /** Bytes in decimal units for people: 0 B, 512 B, 40 GB, 1.2 TB. */
    public static String bytes(long bytes) {
        String[] units = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
        double v = bytes;
        int u = 0;
        while (v >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return u == 0 ? bytes + " B" : (v >= 10 ? String.format(Locale.ROOT, "%.0f %s", v, units[u])
                : String.format(Locale.ROOT, "%.1f %s", v, units[u]));
    }
}
