package io.skewguard.agent;

import io.skewguard.agent.command.EpochBound;
import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.NodeIndex;
import io.skewguard.core.ring.ProbeOrder;
import io.skewguard.core.ring.WeightedPick;
import io.skewguard.core.slots.SlotSpread;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SlotAssignment;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

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
 * <p><b>Read-only candidates.</b> A {@code SlotAssignment} row's {@code readOnly} candidates (a node
 * being drained) keep serving reads of what they hold but take no new writes: {@link #pick} leaves them
 * out; {@link #probeOrder} (reads) still ranks every candidate. When every candidate of a slot is
 * read-only (and nothing is spread) the pick falls back to all of them and counts it
 * ({@link #readOnlyFallbacks()}).
 *
 * <p><b>Spread slots</b> (docs/design.md §3.5). A row's {@code spread} nodes take new writes of the
 * slot besides its candidates: {@link #pick} chooses among both; its {@code spreadHeld} nodes took
 * writes of it during an earlier spread and only serve reads. {@link #probeOrder} follows
 * {@link ProbeOrder}: the writers' winner, the slot's own writers' winner, the candidates' winner, the
 * holders' winner, then the other candidates and the other spread and held nodes by score, so a key
 * written before or after a spread is found, at most after {@code m + spread + held} probes. A spread node that refuses a write (it cleaned the slot up after
 * an earlier migration away, {@code StaleRouteException}) gets {@link #fallback}: the slot's own
 * writers' winner, the node readers probe next.
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
            SlotSpread[] routes,
            String[] spreadReason,
            long[] slotEpoch,
            String[] inFlightTarget,
            int maxHolders) {

        /** This snapshot with other node tables (the slot tables as they are). */
        Snapshot withNodes(NodeIndex nodes, WeightedPick pick, String[] ids, double[] weight, long[] weightEpoch,
                           double[] freeRatio, double[] effective) {
            return new Snapshot(nodes, pick, ids, weight, weightEpoch, freeRatio, effective, routes, spreadReason,
                    slotEpoch, inFlightTarget, maxHolders);
        }
    }

    private final String cluster;
    private final int slotCount;
    private final Object updates = new Object();
    private volatile Snapshot snapshot;
    private volatile EpochBound epochs = EpochBound.defaults();
    private final AtomicLong refusedEpochs = new AtomicLong();
    private volatile int maxNodes = DEFAULT_MAX_NODES;
    private final AtomicLong refusedNodes = new AtomicLong();
    private final LongAdder readOnlyFallbacks = new LongAdder();

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
                new double[0], new long[0], new double[0], new double[0], new SlotSpread[slotCount],
                new String[slotCount], slotEpoch, new String[slotCount], 0));
    }

    /**
     * A view of {@code cluster} starting from {@code table} (e.g. built from the ring at start-up), with
     * every weight factor 1.0 and every free ratio 1.0. Rows from the topics then update it.
     */
    public static RoutingView of(String cluster, SlotTable table) {
        RoutingView view = empty(cluster, table.slotCount());
        synchronized (view.updates) {
            Snapshot s = view.grown(view.snapshot, table.nodes().ids());
            SlotSpread[] routes = new SlotSpread[table.slotCount()];
            long[] slotEpoch = new long[table.slotCount()];
            int maxHolders = 0;
            for (int slot = 0; slot < routes.length; slot++) {
                routes[slot] = SlotSpread.of(remap(table.candidates(slot), table.nodes(), s.nodes()));
                slotEpoch[slot] = table.routingEpoch();
                maxHolders = Math.max(maxHolders, routes[slot].holders().size());
            }
            view.snapshot = new Snapshot(s.nodes(), s.pick(), s.ids(), s.weight(), s.weightEpoch(), s.freeRatio(),
                    s.effective(), routes, s.spreadReason(), slotEpoch, s.inFlightTarget(), maxHolders);
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
            snapshot = s.withNodes(s.nodes(), s.pick(), s.ids(), weight, weightEpoch, s.freeRatio(), effective);
            return true;
        }
    }

    /**
     * Applies a row of the slot table.
     *
     * @return whether the row changed the view (false: other cluster, or older than the slot's epoch)
     * @throws IllegalArgumentException if the slot is out of range, the candidate set is invalid, or
     *     the read-only, spread and held nodes break their rules (read-only nodes are candidates;
     *     spread and held nodes are distinct and outside the candidate set)
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
            List<String> readOnly = row.getReadOnly() == null ? List.of() : row.getReadOnly();
            List<String> spread = row.getSpread() == null ? List.of() : row.getSpread();
            List<String> held = row.getSpreadHeld() == null ? List.of() : row.getSpreadHeld();
            List<String> named = new java.util.ArrayList<>(row.getCandidates());
            named.addAll(spread);
            named.addAll(held);
            if (overNodes(named)) {
                return false;
            }
            for (String node : readOnly) {
                if (!row.getCandidates().contains(node)) {
                    throw new IllegalArgumentException("slot " + slot + ": read-only node " + node
                            + " is not one of its candidates " + row.getCandidates());
                }
            }
            for (String node : spread) {
                if (row.getCandidates().contains(node) || held.contains(node)) {
                    throw new IllegalArgumentException("slot " + slot + ": spread node " + node + " is also one of its "
                            + (held.contains(node) ? "held nodes " + held : "candidates " + row.getCandidates()));
                }
            }
            for (String node : held) {
                if (row.getCandidates().contains(node)) {
                    throw new IllegalArgumentException("slot " + slot + ": held node " + node
                            + " is also one of its candidates " + row.getCandidates());
                }
            }
            Snapshot s = grown(snapshot, named);
            SlotSpread route;
            try {
                route = SlotSpread.of(new CandidateSet(indexes(s.nodes(), row.getCandidates())), indexes(s.nodes(), readOnly),
                        indexes(s.nodes(), spread), indexes(s.nodes(), held));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("slot " + slot + ": " + e.getMessage(), e);
            }
            SlotSpread[] routes = s.routes().clone();
            String[] reasons = s.spreadReason().clone();
            long[] slotEpoch = s.slotEpoch().clone();
            String[] inFlight = s.inFlightTarget().clone();
            // every candidate read-only and nothing spread (a drain of the whole set): writes must still land
            // somewhere, so the pick falls back to all of them, counted at each pick
            routes[slot] = route;
            reasons[slot] = row.getSpreadReason();
            slotEpoch[slot] = row.getRoutingEpoch();
            inFlight[slot] = row.getInFlightTarget();
            snapshot = new Snapshot(s.nodes(), s.pick(), s.ids(), s.weight(), s.weightEpoch(), s.freeRatio(),
                    s.effective(), routes, reasons, slotEpoch, inFlight, Math.max(s.maxHolders(), route.holders().size()));
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
            snapshot = s.withNodes(s.nodes(), s.pick(), s.ids(), s.weight(), s.weightEpoch(), free, effective);
        }
    }

    /**
     * Sets the free ratios of {@code nodes} at once, one new snapshot for all of them
     * ({@link #setFreeRatio} for each would build one per node).
     */
    public void setFreeRatios(List<String> nodes, double[] freeRatios) {
        if (nodes.size() != freeRatios.length) {
            throw new IllegalArgumentException(nodes.size() + " nodes but " + freeRatios.length + " free ratios");
        }
        for (int i = 0; i < freeRatios.length; i++) {
            if (Double.isNaN(freeRatios[i])) {
                throw new IllegalArgumentException("free ratio of node " + nodes.get(i) + " is NaN");
            }
        }
        synchronized (updates) {
            if (overNodes(nodes)) {
                return;
            }
            Snapshot s = grown(snapshot, nodes);
            double[] free = s.freeRatio().clone();
            double[] effective = s.effective().clone();
            for (int i = 0; i < freeRatios.length; i++) {
                int index = s.nodes().require(nodes.get(i));
                free[index] = Math.max(0.0, Math.min(1.0, freeRatios[i]));
                effective[index] = s.weight()[index] * free[index];
            }
            snapshot = s.withNodes(s.nodes(), s.pick(), s.ids(), s.weight(), s.weightEpoch(), free, effective);
        }
    }

    // ------------------------------------------------------------------ reads

    /**
     * The node a write of {@code key} goes to: the weighted-rendezvous winner among the key's slot's
     * candidates that take writes (read-only ones left out; all of them, counted, when every one is
     * read-only) under the current effective weights. Allocation-free.
     *
     * @throws IllegalStateException if the key's slot has no candidate set yet, or every candidate is
     *     full (free ratio 0)
     */
    public String pick(CharSequence key) {
        return pickHash(HashRing.hashKey(key));
    }

    /** {@link #pick(CharSequence)} of a key's hash ({@link HashRing#hashKey}). Allocation-free. */
    public String pickHash(long keyHash) {
        Snapshot s = snapshot;
        int slot = SlotTable.slotOf(keyHash, slotCount);
        SlotSpread route = s.routes()[slot];
        if (route == null) {
            throw new IllegalStateException("cluster " + cluster + ": slot " + slot + " has no candidate set yet");
        }
        if (route.writersFallBack()) {
            readOnlyFallbacks.increment();
        }
        return s.ids()[s.pick().pick(keyHash, route.writers(), s.effective())];
    }

    /**
     * Where a write of {@code key} goes when {@code refused} refused it: the winner among the slot's own
     * writers (its candidates that take writes, without the spread) when {@code refused} is a spread
     * node of the key's slot; null otherwise (the writer's slot table is older than the store's, and
     * the row it waits for changes the pick). Allocation-free.
     *
     * @throws IllegalStateException if the key's slot has no candidate set yet, or every own writer is full
     */
    public String fallback(CharSequence key, String refused) {
        Snapshot s = snapshot;
        long hash = HashRing.hashKey(key);
        int slot = SlotTable.slotOf(hash, slotCount);
        SlotSpread route = s.routes()[slot];
        if (route == null) {
            throw new IllegalStateException("cluster " + cluster + ": slot " + slot + " has no candidate set yet");
        }
        int node = s.nodes().indexOf(refused);
        if (node < 0 || !route.isSpread() || route.candidates().contains(node) || !route.writers().contains(node)) {
            return null;
        }
        return s.ids()[s.pick().pick(hash, route.ownWriters(), s.effective())];
    }

    /**
     * The nodes a reader of {@code key} probes, in order (docs/design.md §3.5, {@link ProbeOrder}):
     * the winner among the slot's writers, among its own writers, among its candidates, among all its
     * holders, then the other candidates (read-only ones included: they still hold what they held), then
     * the other spread and held nodes, each ranked as {@link WeightedPick#pickTop} ranks them under the
     * current effective weights (full nodes last). For a slot that is not spread and has no read-only candidate this is
     * {@code pickTop} over its candidates.
     *
     * @throws IllegalStateException if the key's slot has no candidate set yet
     */
    public List<String> probeOrder(CharSequence key) {
        return probeOrderHash(HashRing.hashKey(key));
    }

    /** {@link #probeOrder(CharSequence)} of a key's hash. */
    public List<String> probeOrderHash(long keyHash) {
        Snapshot s = snapshot;
        SlotSpread route = route(s, keyHash);
        int[] order = new int[route.holders().size()];
        int n = new ProbeOrder(order.length).order(s.pick(), keyHash, route, s.effective(), order);
        String[] ids = new String[n];
        for (int i = 0; i < n; i++) {
            ids[i] = s.ids()[order[i]];
        }
        return List.of(ids);
    }

    /**
     * Reads {@code key} the way a reader does: probes the nodes of {@link #probeOrder} one after the
     * other with {@code holds} until one holds the key. Allocation-free when {@code probes} is long
     * enough for the slot ({@link #maxHolders()}) and {@code order} is one per reading thread.
     *
     * @return the 1-based probe that found the key, or 0 when no holder has it
     */
    public int probe(long keyHash, ProbeOrder order, int[] probes, java.util.function.IntPredicate holds) {
        Snapshot s = snapshot;
        SlotSpread route = route(s, keyHash);
        int n = order.order(s.pick(), keyHash, route, s.effective(), probes);
        for (int i = 0; i < n; i++) {
            if (holds.test(probes[i])) {
                return i + 1;
            }
        }
        return 0;
    }

    private SlotSpread route(Snapshot s, long keyHash) {
        int slot = SlotTable.slotOf(keyHash, slotCount);
        SlotSpread route = s.routes()[slot];
        if (route == null) {
            throw new IllegalStateException("cluster " + cluster + ": slot " + slot + " has no candidate set yet");
        }
        return route;
    }

    /** The most holders (candidates, spread and held nodes) any slot had: the length {@link #probe} needs. */
    public int maxHolders() {
        return snapshot.maxHolders();
    }

    /** The node table the indexes of {@link #route} and {@link #probe} point into (it only grows). */
    public NodeIndex nodes() {
        return snapshot.nodes();
    }

    /** The routing state of {@code slot} in node indexes of {@link #nodes()}, or null before its first row. */
    public SlotSpread route(int slot) {
        return snapshot.routes()[slot];
    }

    /**
     * The effective weights {@code w × freeRatio} by node index of {@link #nodes()}, as one consistent
     * snapshot: the array is never modified once published and must not be written to (a later update
     * builds a new one).
     */
    public double[] effectiveWeights() {
        return snapshot.effective();
    }

    /** The effective weight {@code w × freeRatio} of the node at index {@code node} of {@link #nodes()}. */
    public double effectiveWeight(int node) {
        double[] e = snapshot.effective();
        return node < e.length ? e[node] : 0.0;
    }

    /** The spread nodes of {@code slot} (extra writers), as its last row named them; empty before it. */
    public List<String> spread(int slot) {
        SlotSpread route = snapshot.routes()[slot];
        return route == null ? List.of() : ids(route.spread());
    }

    /** The held nodes of {@code slot} (read-only, from an earlier spread); empty before its first row. */
    public List<String> held(int slot) {
        SlotSpread route = snapshot.routes()[slot];
        return route == null ? List.of() : ids(route.held());
    }

    /** The reason of {@code slot}'s last spread change, or null. */
    public String spreadReason(int slot) {
        return snapshot.spreadReason()[slot];
    }

    /** The candidates of {@code slot} that take no new writes (draining), as the slot's last row named them; empty before it. */
    public List<String> readOnly(int slot) {
        SlotSpread route = snapshot.routes()[slot];
        if (route == null) {
            return List.of();
        }
        List<String> readOnly = new java.util.ArrayList<>();
        CandidateSet all = route.candidates();
        for (int i = 0; i < all.size(); i++) {
            if (route.writersFallBack() || route.isReadOnly(all.node(i))) {
                readOnly.add(snapshot.ids()[all.node(i)]);
            }
        }
        return List.copyOf(readOnly);
    }

    private List<String> ids(int[] nodes) {
        String[] names = snapshot.ids();
        String[] out = new String[nodes.length];
        for (int i = 0; i < nodes.length; i++) {
            out[i] = names[nodes[i]];
        }
        return List.of(out);
    }

    /**
     * Picks made since start in a slot whose every candidate is read-only: the pick then falls back to
     * all of them (a write must land somewhere), and this count says how often that happened.
     */
    public long readOnlyFallbacks() {
        return readOnlyFallbacks.sum();
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
        for (SlotSpread set : snapshot.routes()) {
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
        return s.withNodes(nodes, WeightedPick.over(nodes), names, weight, weightEpoch, free, effective);
    }

    private static int[] indexes(NodeIndex nodes, List<String> ids) {
        int[] out = new int[ids.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = nodes.require(ids.get(i));
        }
        return out;
    }

    private static CandidateSet remap(CandidateSet set, NodeIndex from, NodeIndex to) {
        int[] nodes = new int[set.size()];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = to.require(from.id(set.node(i)));
        }
        return new CandidateSet(nodes);
    }
}
