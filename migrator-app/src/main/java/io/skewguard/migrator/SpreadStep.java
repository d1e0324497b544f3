package io.skewguard.migrator;

import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.ring.NodeIndex;
import io.skewguard.core.slots.SlotSpread;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.core.slots.SpreadUpdate;
import io.skewguard.migrator.policy.MembershipChanges;
import io.skewguard.migrator.policy.SlotLoad;
import io.skewguard.migrator.policy.SpreadPolicy;
import io.skewguard.migrator.policy.SpreadState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The slot-table side of spreading (docs/design.md §3.5): from a cluster's rows, its live nodes and
 * a report's slot heat, the {@link SpreadPolicy}'s decision as the rows that change. Pure apart from
 * its log line: the coordinator loads the inputs from its stores and publishes the rows as one update
 * (the simulator's model mode calls it with the model's figures).
 *
 * <p>Spread nodes come from {@link HashRing#extension} on the ring of the cluster's members (ring
 * weight 1, sorted by id, as the table was built), from the slot's ring point past its candidate
 * set; only {@code eligible} nodes (active members with a capacity report) may take a slot's
 * writes, and never the target of a migration running in that slot (an abort would drop what it
 * received).
 */
public final class SpreadStep {

    private static final Logger LOG = LoggerFactory.getLogger(SpreadStep.class);

    private SpreadStep() {}

    /** The policy's new state and the rows it changes (slot → row). */
    public record Result(SpreadState state, Map<Integer, MembershipChanges.Row> changed) {}

    /**
     * What the rule needs of a cluster's rows besides the heat: each valid row with the capacity of
     * the nodes that take its writes (its own candidates, and with its spread nodes). It changes only
     * with the rows or a capacity, not with a report, so a caller may keep it while
     * {@link #sameInputs} holds.
     */
    public static final class Writers {
        private final List<MembershipChanges.Row> rows;
        private final Map<String, Long> capacity;
        private final double totalCapacity;
        private final MembershipChanges.Row[] valid;
        private final double[] own;
        private final double[] writers;
        private final Map<Integer, MembershipChanges.Row> bySlot;

        private Writers(List<MembershipChanges.Row> rows, Map<String, Long> capacity, double totalCapacity,
                List<MembershipChanges.Row> valid, double[] own, double[] writers, Map<Integer, MembershipChanges.Row> bySlot) {
            this.rows = rows;
            this.capacity = capacity;
            this.totalCapacity = totalCapacity;
            this.valid = valid.toArray(new MembershipChanges.Row[0]);
            this.own = own;
            this.writers = writers;
            this.bySlot = bySlot;
        }

        /**
         * @param capacity total bytes of every live node (its latest capacity report)
         */
        public static Writers of(String cluster, List<MembershipChanges.Row> rows, Map<String, Long> capacity) {
            Map<String, Long> kept = Map.copyOf(capacity);
            double totalCapacity = 0;
            for (long c : capacity.values()) {
                totalCapacity += c;
            }
            Map<Integer, MembershipChanges.Row> bySlot = new java.util.HashMap<>();
            List<MembershipChanges.Row> valid = new ArrayList<>(rows.size());
            double[] own = new double[rows.size()];
            double[] writers = new double[rows.size()];
            for (MembershipChanges.Row row : rows) {
                if (!valid(row)) {
                    // a row adopted from the topic that names a node twice (a candidate also spread or held): the
                    // writers refuse it too; it is left as it is rather than decided on
                    LOG.warn("{}: slot {}: row left out of the spread rule: it names a node twice (candidates {}, spread {}, held {})",
                            cluster, row.slot(), row.candidates(), row.spread(), row.held());
                    continue;
                }
                bySlot.put(row.slot(), row);
                double o = 0;
                boolean allReadOnly = row.readOnly().containsAll(row.candidates());
                for (String node : row.candidates()) {
                    if (allReadOnly || !row.readOnly().contains(node)) {
                        o += kept.getOrDefault(node, 0L);
                    }
                }
                double w = o;
                for (String node : row.spread()) {
                    w += kept.getOrDefault(node, 0L);
                }
                own[valid.size()] = o;
                writers[valid.size()] = w;
                valid.add(row);
            }
            return new Writers(rows, kept, totalCapacity, valid, own, writers, bySlot);
        }

        /** True when these were worked out from the very same rows (the same list) and equal capacities. */
        public boolean sameInputs(List<MembershipChanges.Row> rows, Map<String, Long> capacity) {
            return this.rows == rows && this.capacity.equals(capacity);
        }
    }

    /**
     * @param capacity   total bytes of every live node (its latest capacity report)
     * @param racks      every member with its rack (null: unknown), for the ring
     * @param eligible   the nodes that may take writes of a slot
     */
    public static Result decide(String cluster, SpreadPolicy policy, SpreadState state, long reportTime, long[] slotHeat,
            List<MembershipChanges.Row> rows, Map<String, Long> capacity, Map<String, String> racks, Set<String> eligible,
            int slotCount, int vnodesPerUnit) {
        return decide(cluster, policy, state, reportTime, slotHeat, Writers.of(cluster, rows, capacity), racks, eligible, slotCount,
                vnodesPerUnit);
    }

    /** {@link #decide(String, SpreadPolicy, SpreadState, long, long[], List, Map, Map, Set, int, int)} on rows' writers kept from before. */
    public static Result decide(String cluster, SpreadPolicy policy, SpreadState state, long reportTime, long[] slotHeat,
            Writers writers, Map<String, String> racks, Set<String> eligible, int slotCount, int vnodesPerUnit) {
        long totalHeat = 0;
        for (long h : slotHeat) {
            totalHeat += Math.max(0, h);
        }
        double totalCapacity = writers.totalCapacity;
        Map<String, Long> capacity = writers.capacity;
        Map<Integer, MembershipChanges.Row> bySlot = writers.bySlot;
        List<SlotLoad> loads = new ArrayList<>();
        for (int i = 0; i < writers.valid.length; i++) {
            MembershipChanges.Row row = writers.valid[i];
            long heat = row.slot() < slotHeat.length ? Math.max(0, slotHeat[row.slot()]) : 0;
            if (heat == 0 && row.spread().isEmpty()) {
                continue;
            }
            loads.add(new SlotLoad(row.slot(), heat, writers.own[i], row.spread().size(), writers.writers[i]));
        }
        // the ring only when a slot spreads or narrows (most reports change nothing)
        Ring[] built = new Ring[1];
        java.util.function.Supplier<Ring> rings = () -> built[0] != null ? built[0] : (built[0] = Ring.of(racks, vnodesPerUnit));
        SpreadPolicy.Decision decision = policy.decide(state, reportTime, totalHeat, totalCapacity, loads, slot -> {
            Ring ring = rings.get();
            MembershipChanges.Row row = bySlot.get(slot);
            int[] extension = ring.extension(row, eligible, policy.rule().maxExtra(), slotCount);
            double[] caps = new double[extension.length];
            for (int i = 0; i < extension.length; i++) {
                caps[i] = capacity.getOrDefault(ring.index.id(extension[i]), 0L);
            }
            return caps;
        });
        Map<Integer, MembershipChanges.Row> changed = new TreeMap<>();
        for (SpreadUpdate update : decision.updates()) {
            MembershipChanges.Row row = bySlot.get(update.slot());
            try {
                changed.put(update.slot(), rings.get().apply(update, row, eligible, slotCount));
                LOG.info("{}: slot {}: {}", cluster, update.slot(), update.reason());
            } catch (IllegalArgumentException refused) {
                LOG.warn("{}: slot {}: {}", cluster, update.slot(), refused.getMessage());
            }
        }
        return new Result(decision.state(), changed);
    }

    private static boolean valid(MembershipChanges.Row row) {
        if (row.candidates().isEmpty() || !row.candidates().containsAll(row.readOnly())) {
            return false;
        }
        if (row.spread().isEmpty() && row.held().isEmpty() && row.candidates().size() <= 16) {
            // the common row, a candidate set alone: pairwise, without a set per row and report; the ids' hashes
            // (kept by each String) tell most pairs apart before their characters are compared
            List<String> c = row.candidates();
            for (int i = 1; i < c.size(); i++) {
                String a = c.get(i);
                int hash = a.hashCode();
                for (int j = 0; j < i; j++) {
                    String b = c.get(j);
                    if (b.hashCode() == hash && a.equals(b)) {
                        return false;
                    }
                }
            }
            return true;
        }
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (List<String> list : List.of(row.candidates(), row.spread(), row.held())) {
            for (String node : list) {
                if (!seen.add(node)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** The members' ring with an index that also knows every node a row names (those off the ring get indexes past it). */
    private static final class Ring {
        final HashRing ring;
        NodeIndex index;

        private Ring(HashRing ring) {
            this.ring = ring;
            this.index = ring.nodes();
        }

        static Ring of(Map<String, String> racks, int vnodesPerUnit) {
            List<Node> nodes = new ArrayList<>();
            new TreeMap<>(racks).forEach((id, rack) -> nodes.add(new Node(id, rack, 1.0)));
            return new Ring(HashRing.of(nodes, vnodesPerUnit));
        }

        int[] extension(MembershipChanges.Row row, Set<String> eligible, int count, int slotCount) {
            SlotSpread current = spreadOf(row);
            return ring.extension(SlotTable.slotPoint(row.slot(), slotCount), current.candidates().nodes(), count,
                    eligibility(row, eligible));
        }

        MembershipChanges.Row apply(SpreadUpdate update, MembershipChanges.Row row, Set<String> eligible, int slotCount) {
            SlotSpread next = update.apply(ring, slotCount, spreadOf(row), eligibility(row, eligible));
            return row.withSpread(ids(next.spread()), ids(next.held()), update.reason());
        }

        private boolean[] eligibility(MembershipChanges.Row row, Set<String> eligible) {
            boolean[] ok = new boolean[index.size()];
            for (int i = 0; i < ring.nodes().size(); i++) {
                String id = index.id(i);
                ok[i] = ring.isMember(i) && eligible.contains(id) && !id.equals(row.inFlightTarget());
            }
            return ok;
        }

        private SlotSpread spreadOf(MembershipChanges.Row row) {
            return SlotSpread.of(new CandidateSet(indexes(row.candidates())), indexes(row.readOnly()), indexes(row.spread()),
                    indexes(row.held()));
        }

        private int[] indexes(List<String> ids) {
            int[] out = new int[ids.size()];
            for (int i = 0; i < out.length; i++) {
                index = index.with(ids.get(i));
                out[i] = index.indexOf(ids.get(i));
            }
            return out;
        }

        private List<String> ids(int[] nodes) {
            List<String> out = new ArrayList<>(nodes.length);
            for (int node : nodes) {
                out.add(index.id(node));
            }
            return List.copyOf(out);
        }
    }
}
