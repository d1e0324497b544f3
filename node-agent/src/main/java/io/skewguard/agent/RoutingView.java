package io.skewguard.agent;

import io.skewguard.agent.command.EpochBound;
import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.NodeIndex;
import io.skewguard.core.ring.WeightedPick;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SlotAssignment;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a writer of one cluster needs to place a write: the slot table (slot → candidate set, and a
 * running migration's dual-write target) and the weight table (node → weight factor w), combined
 * with the nodes' free ratios into effective weights {@code w × freeRatio} (docs/design.md §3).
 *
 * <p><b>Concurrency.</b> All routing state lives in one immutable {@link Snapshot} behind a volatile
 * reference. Updates ({@code apply}, {@code setFreeRatio}) are serialised by a lock, build a new
 * snapshot and swap it in; {@link #pick} reads the reference once and never locks, so any number of
 * writer threads can pick while the consumer thread applies rows.
 *
 * <p><b>Cost of a pick.</b> One xxh3 of the key, one mask for the slot, then {@link WeightedPick} over
 * the slot's m candidates (one xxh3 and one {@code log} each) with effective weights in a {@code
 * double[]} indexed by node index: O(m), no allocation.
 *
 * <p><b>Idempotent updates.</b> A {@code NodeWeight} row older than the node's applied weight epoch,
 * or a {@code SlotAssignment} row older than the slot's applied routing epoch, is ignored, so rows
 * read again (a re-read of the compacted topics, at-least-once delivery) change nothing. Rows of
 * other clusters are ignored. A row whose epoch jumps past the newest applied one (any node's weight
 * epoch, any slot's routing epoch: both count per cluster) by more than the {@link EpochBound} is
 * refused and counted ({@link #refusedEpochs()}), never adopted.
 */
public final class RoutingView {

    /** The immutable routing state a pick reads. Arrays are never modified once published. */
    private record Snapshot(
            NodeIndex nodes,
            WeightedPick pick,
            String[] ids,
            double[] weight,
            long[] weightEpoch,
            double[] freeRatio,
            double[] effective,
            CandidateSet[] candidates,
            long[] slotEpoch,
            String[] inFlightTarget) {}

    private final String cluster;
    private final int slotCount;
    private final Object updates = new Object();
    private volatile Snapshot snapshot;
    private volatile EpochBound epochs = EpochBound.defaults();
    private final AtomicLong refusedEpochs = new AtomicLong();
    private volatile int maxNodes = DEFAULT_MAX_NODES;
    private final AtomicLong refusedNodes = new AtomicLong();

    /** Most nodes a view learns from rows unless {@link #boundNodes} says otherwise (as the apps' {@code max-nodes-per-cluster}). */
    public static final int DEFAULT_MAX_NODES = 4096;

    private RoutingView(String cluster, int slotCount, Snapshot snapshot) {
        this.cluster = cluster;
        this.slotCount = slotCount;
        this.snapshot = snapshot;
    }

    /**
     * An empty view of {@code cluster} with {@code slotCount} slots (a power of two). No slot can be
     * picked until its {@code SlotAssignment} arrives.
     */
    public static RoutingView empty(String cluster, int slotCount) {
        Objects.requireNonNull(cluster, "cluster");
        SlotTable.requireSlotCount(slotCount);
        NodeIndex nodes = NodeIndex.empty();
        long[] slotEpoch = new long[slotCount];
        Arrays.fill(slotEpoch, -1);
        return new RoutingView(cluster, slotCount, new Snapshot(nodes, WeightedPick.over(nodes), new String[0],
                new double[0], new long[0], new double[0], new double[0], new CandidateSet[slotCount], slotEpoch,
                new String[slotCount]));
    }

    /**
     * A view of {@code cluster} starting from {@code table} (e.g. built from the ring at start-up), with
     * every weight factor 1.0 and every free ratio 1.0. Rows from the topics then update it.
     */
    public static RoutingView of(String cluster, SlotTable table) {
        RoutingView view = empty(cluster, table.slotCount());
        synchronized (view.updates) {
            Snapshot s = view.grown(view.snapshot, table.nodes().ids());
            CandidateSet[] candidates = new CandidateSet[table.slotCount()];
            long[] slotEpoch = new long[table.slotCount()];
            for (int slot = 0; slot < candidates.length; slot++) {
                candidates[slot] = remap(table.candidates(slot), table.nodes(), s.nodes());
                slotEpoch[slot] = table.routingEpoch();
            }
            view.snapshot = new Snapshot(s.nodes(), s.pick(), s.ids(), s.weight(), s.weightEpoch(), s.freeRatio(),
                    s.effective(), candidates, slotEpoch, s.inFlightTarget());
        }
        return view;
    }

    /** Refuses rows whose epoch jumps past the newest applied one by more than {@code bound}; returns this view. */
    public RoutingView boundEpochs(EpochBound bound) {
        this.epochs = Objects.requireNonNull(bound, "bound");
        return this;
    }

    /**
     * Refuses rows that would make the view know more than {@code maxNodes} nodes (its arrays and
     * the pick's tables grow with every node named); returns this view.
     */
    public RoutingView boundNodes(int maxNodes) {
        if (maxNodes < 1) {
            throw new IllegalArgumentException("maxNodes must be at least 1, was " + maxNodes);
        }
        this.maxNodes = maxNodes;
        return this;
    }

    /** Rows refused since start because they named nodes past the {@link #boundNodes bound}. */
    public long refusedNodes() {
        return refusedNodes.get();
    }

    /** Rows refused since start because their epoch jumped too far. */
    public long refusedEpochs() {
        return refusedEpochs.get();
    }

    /** The cluster this view routes for. */
    public String cluster() {
        return cluster;
    }

    /** Number of slots S. */
    public int slotCount() {
        return slotCount;
    }

    // ------------------------------------------------------------------ updates

    /**
     * Applies a row of the weight table.
     *
     * @return whether the row changed the view (false: other cluster, or older than the applied epoch)
     * @throws IllegalArgumentException if the weight is not a positive finite number
     */
    public boolean apply(NodeWeight row) {
        if (!cluster.equals(row.getCluster())) {
            return false;
        }
        double w = row.getWeight();
        if (!(w > 0) || !Double.isFinite(w)) {
            throw new IllegalArgumentException("weight of node " + row.getNode() + " must be positive, was " + w);
        }
        synchronized (updates) {
            if (overNodes(List.of(row.getNode()))) {
                return false;
            }
            Snapshot s = grown(snapshot, List.of(row.getNode()));
            int node = s.nodes().require(row.getNode());
            if (row.getEpoch() < s.weightEpoch()[node] || jumps("weight epoch", s.weightEpoch(), row.getEpoch())) {
                return false;
            }
            double[] weight = s.weight().clone();
            long[] weightEpoch = s.weightEpoch().clone();
            double[] effective = s.effective().clone();
            weight[node] = w;
            weightEpoch[node] = row.getEpoch();
            effective[node] = w * s.freeRatio()[node];
            snapshot = new Snapshot(s.nodes(), s.pick(), s.ids(), weight, weightEpoch, s.freeRatio(), effective,
                    s.candidates(), s.slotEpoch(), s.inFlightTarget());
            return true;
        }
    }

    /**
     * Applies a row of the slot table.
     *
     * @return whether the row changed the view (false: other cluster, or older than the slot's epoch)
     * @throws IllegalArgumentException if the slot is out of range or the candidate set is invalid
     */
    public boolean apply(SlotAssignment row) {
        if (!cluster.equals(row.getCluster())) {
            return false;
        }
        int slot = row.getSlot();
        if (slot < 0 || slot >= slotCount) {
            throw new IllegalArgumentException("slot " + slot + " is outside [0, " + slotCount + ")");
        }
        synchronized (updates) {
            if (row.getRoutingEpoch() < snapshot.slotEpoch()[slot] || jumps("routing epoch", snapshot.slotEpoch(), row.getRoutingEpoch())) {
                return false;
            }
            if (overNodes(row.getCandidates())) {
                return false;
            }
            Snapshot s = grown(snapshot, row.getCandidates());
            int[] set = new int[row.getCandidates().size()];
            for (int i = 0; i < set.length; i++) {
                set[i] = s.nodes().require(row.getCandidates().get(i));
            }
            CandidateSet[] candidates = s.candidates().clone();
            long[] slotEpoch = s.slotEpoch().clone();
            String[] inFlight = s.inFlightTarget().clone();
            candidates[slot] = new CandidateSet(set);
            slotEpoch[slot] = row.getRoutingEpoch();
            inFlight[slot] = row.getInFlightTarget();
            snapshot = new Snapshot(s.nodes(), s.pick(), s.ids(), s.weight(), s.weightEpoch(), s.freeRatio(),
                    s.effective(), candidates, slotEpoch, inFlight);
            return true;
        }
    }

    /** Whether {@code ids} would make the view know more than {@code maxNodes} nodes; counted and logged if so. */
    private boolean overNodes(List<String> ids) {
        NodeIndex known = snapshot.nodes();
        long added = ids.stream().distinct().filter(id -> known.indexOf(id) < 0).count();
        if (known.size() + added <= maxNodes) {
            return false;
        }
        refusedNodes.incrementAndGet();
        org.slf4j.LoggerFactory.getLogger(RoutingView.class).warn(
                "{}: row refused: it names {} node(s) this view does not know, and it knows {} of at most {}",
                cluster, added, known.size(), maxNodes);
        return true;
    }

    /** Whether {@code epoch} jumps too far past the newest of {@code applied}; counted and logged if so. */
    private boolean jumps(String what, long[] applied, long epoch) {
        long newest = Arrays.stream(applied).max().orElse(-1);
        var problem = epochs.problem(what, newest, epoch);
        problem.ifPresent(p -> {
            refusedEpochs.incrementAndGet();
            org.slf4j.LoggerFactory.getLogger(RoutingView.class).warn("{}: row refused: {}", cluster, p);
        });
        return problem.isPresent();
    }

    /**
     * Sets a node's free ratio {@code 1 − used/total}, clamped to [0, 1]; a node with free ratio 0 is
     * full and never picked.
     */
    public void setFreeRatio(String node, double freeRatio) {
        if (Double.isNaN(freeRatio)) {
            throw new IllegalArgumentException("free ratio of node " + node + " is NaN");
        }
        double ratio = Math.max(0.0, Math.min(1.0, freeRatio));
        synchronized (updates) {
            if (overNodes(List.of(node))) {
                return;
            }
            Snapshot s = grown(snapshot, List.of(node));
            int index = s.nodes().require(node);
            double[] free = s.freeRatio().clone();
            double[] effective = s.effective().clone();
            free[index] = ratio;
            effective[index] = s.weight()[index] * ratio;
            snapshot = new Snapshot(s.nodes(), s.pick(), s.ids(), s.weight(), s.weightEpoch(), free, effective,
                    s.candidates(), s.slotEpoch(), s.inFlightTarget());
        }
    }

    // ------------------------------------------------------------------ reads

    /**
     * The node a write of {@code key} goes to: the weighted-rendezvous winner of the key's slot's
     * candidate set under the current effective weights. Allocation-free.
     *
     * @throws IllegalStateException if the key's slot has no candidate set yet, or every candidate is
     *     full (free ratio 0)
     */
    public String pick(CharSequence key) {
        Snapshot s = snapshot;
        long hash = HashRing.hashKey(key);
        int slot = SlotTable.slotOf(hash, slotCount);
        CandidateSet candidates = s.candidates()[slot];
        if (candidates == null) {
            throw new IllegalStateException("cluster " + cluster + ": slot " + slot + " has no candidate set yet");
        }
        return s.ids()[s.pick().pick(hash, candidates, s.effective())];
    }

    /** The slot of {@code key}: {@code xxh3(key) mod S}. */
    public int slotOf(CharSequence key) {
        return SlotTable.slotOf(HashRing.hashKey(key), slotCount);
    }

    /** Target of a running migration of {@code slot} (writes go there too), or null. */
    public String inFlightTarget(int slot) {
        return snapshot.inFlightTarget()[slot];
    }

    /** Applied routing epoch of {@code slot}, -1 before its first row. */
    public long routingEpoch(int slot) {
        return snapshot.slotEpoch()[slot];
    }

    /** Current weight factor of {@code node}; 1.0 for a node without a weight row. */
    public double weight(String node) {
        Snapshot s = snapshot;
        int index = s.nodes().indexOf(node);
        return index < 0 ? 1.0 : s.weight()[index];
    }

    /** Applied weight epoch of {@code node}, -1 before its first weight row. */
    public long weightEpoch(String node) {
        Snapshot s = snapshot;
        int index = s.nodes().indexOf(node);
        return index < 0 ? -1 : s.weightEpoch()[index];
    }

    /** Whether every slot has a candidate set, so that every key can be picked. */
    public boolean complete() {
        for (CandidateSet set : snapshot.candidates()) {
            if (set == null) {
                return false;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ internals

    /** {@code s} with any of {@code ids} it does not know appended (weight 1, free ratio 1). */
    private Snapshot grown(Snapshot s, List<String> ids) {
        NodeIndex nodes = s.nodes();
        for (String id : ids) {
            nodes = nodes.with(id);
        }
        if (nodes == s.nodes()) {
            return s;
        }
        int old = s.ids().length;
        int size = nodes.size();
        String[] names = Arrays.copyOf(s.ids(), size);
        double[] weight = Arrays.copyOf(s.weight(), size);
        long[] weightEpoch = Arrays.copyOf(s.weightEpoch(), size);
        double[] free = Arrays.copyOf(s.freeRatio(), size);
        double[] effective = Arrays.copyOf(s.effective(), size);
        for (int i = old; i < size; i++) {
            names[i] = nodes.id(i);
            weight[i] = 1.0;
            weightEpoch[i] = -1;
            free[i] = 1.0;
            effective[i] = 1.0;
        }
        return new Snapshot(nodes, WeightedPick.over(nodes), names, weight, weightEpoch, free, effective,
                s.candidates(), s.slotEpoch(), s.inFlightTarget());
    }

    private static CandidateSet remap(CandidateSet set, NodeIndex from, NodeIndex to) {
        int[] nodes = new int[set.size()];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = to.require(from.id(set.node(i)));
        }
        return new CandidateSet(nodes);
    }
}
