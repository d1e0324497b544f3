package io.skewguard.sim.model;

import io.skewguard.agent.RoutingView;
import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.ring.NodeIndex;
import io.skewguard.core.ring.ProbeOrder;
import io.skewguard.core.ring.WeightedPick;
import io.skewguard.core.slots.SlotSpread;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.core.stats.CoefficientOfVariation;
import io.skewguard.core.stats.Gini;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.sim.scenario.NodeSpec;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The simulated storage cluster: nodes with capacities and racks, the ring, the slot table built from
 * it (core's {@link HashRing} and {@link SlotTable}), the bytes of every shard (slot, node), the
 * writers' weight factors, and a sample of real keys ({@link KeyLedger}).
 *
 * <p><b>Writes.</b> The writers route through a {@link RoutingView}, the one the node agents' writers
 * use: it holds every slot's candidates, read-only marks, spread and held nodes (docs/design.md §3.5)
 * and the weights, and the model gives it the nodes' free ratios before every write. A step writes
 * {@code rate × step} bytes; slot s gets its heat share of them (× log-normal noise), split over the
 * view's writers of the slot in proportion to its effective weights {@code w × freeRatio} (docs/design.md
 * §3.3) — the expected outcome of its pick over the slot's many keys. The sampled keys and the hot keys
 * go through its pick itself; reads probe its {@code ProbeOrder}. In model mode the cluster feeds the
 * view its own changes (switches, rebuilds, spreads, weights); in fast mode the migrator's slot-table
 * rows go to it as they come ({@link #routeExternally}).
 *
 * <p><b>Moves.</b> Data changes place only through the methods below, each counting what it moves:
 * a migration's switch and cleanup ({@link #switchSlot}, {@link #cleanup}), a relocation after a
 * weight change ({@link #relocateAfterWeightChange}, the Ceph baseline), and the rebuild after a node
 * loss ({@link #lose}, counted apart as recovery, the same for every policy).
 *
 * <p>Cost per step: O(S·m) for the writes and O(N log N) for the figures; the shard table is a dense
 * {@code double[S][Nmax]} where Nmax counts every node that ever joins.
 */
public final class Cluster {

    private static final double FULL = 1.0;

    private final Scenario scenario;
    private final int slots;
    private final int maxNodes;
    private NodeIndex index;
    private HashRing ring;
    private SlotTable table;
    private WeightedPick pick;
    private final double[] capacity;
    private final String[] rack;
    private final boolean[] alive;
    /** Joined during the run (not one of the scenario's starting nodes). */
    private final boolean[] joined;
    /** Lost, and still in candidate sets until the slot-table update that replaces it ({@link #fail}). */
    private final boolean[] failed;
    /** A lost node whose replacement update has come ({@link #replaceLost}): no writer should route to it any more. */
    private final boolean[] replaced;
    /** Per slot, the candidates that take no new writes (draining); null when every candidate takes writes. */
    private final java.util.BitSet[] readOnly;
    private final double[] used;
    private final double[] weight;
    private final double[] effective;
    private final double[][] shard;
    private final double[] heat;
    private final double[] slotHeat;
    private final double[] share;
    private final double[] fillShare;
    private final int[] inFlightTarget;
    private final int[] inFlightSource;
    private final List<HotShard> hotShards = new ArrayList<>();
    private final KeyLedger keys;
    private final SplittableRandom noise;
    private int[] stepWriteSlot = new int[1024];
    private int[] stepWriteNode = new int[1024];
    private double[] stepWriteBytes = new double[1024];
    private int stepWrites;
    private double bytesMoved;
    private double recoveryBytes;
    private double rejectedBytes;
    private double reroutedFromLost;
    private double routedToLostAfterUpdate;
    private long weightChanges;
    /** The writers' routing state: what every write and read goes through. */
    private final RoutingView routes;
    /** Fast mode: the view takes the migrator's rows, not the model's own. */
    private boolean external;
    /** Routing epoch of the rows the model makes itself. */
    private long routeEpoch;
    private final long[] weightEpoch;
    /** By view node index, the model's; grows with the view's node table. */
    private int[] fromView = new int[0];
    private final ProbeOrder probeOrder = new ProbeOrder(16);
    private int[] probes = new int[16];

    public Cluster(Scenario scenario) {
        this.scenario = scenario;
        this.slots = scenario.slots();
        int joins = 0;
        for (ScenarioEvent e : scenario.events()) {
            if (e instanceof ScenarioEvent.Join) {
                joins++;
            }
        }
        this.maxNodes = scenario.nodes().size() + joins;
        List<Node> members = new ArrayList<>();
        for (NodeSpec n : scenario.nodes()) {
            members.add(new Node(n.id(), n.rack(), n.ringWeight()));
        }
        this.ring = HashRing.of(NodeIndex.empty(), members, scenario.vnodesPerUnit());
        this.index = ring.nodes();
        this.table = SlotTable.fromRing(ring, scenario.candidates(), slots);
        this.pick = WeightedPick.over(index);
        this.capacity = new double[maxNodes];
        this.rack = new String[maxNodes];
        this.alive = new boolean[maxNodes];
        this.joined = new boolean[maxNodes];
        this.failed = new boolean[maxNodes];
        this.replaced = new boolean[maxNodes];
        this.readOnly = new java.util.BitSet[slots];
        this.used = new double[maxNodes];
        this.weight = new double[maxNodes];
        this.effective = new double[maxNodes];
        this.shard = new double[slots][maxNodes];
        this.heat = new double[maxNodes];
        this.slotHeat = new double[slots];
        this.inFlightTarget = new int[slots];
        this.inFlightSource = new int[slots];
        java.util.Arrays.fill(inFlightTarget, -1);
        java.util.Arrays.fill(weight, 1.0);
        for (NodeSpec n : scenario.nodes()) {
            int i = index.require(n.id());
            capacity[i] = n.capacityBytes();
            rack[i] = n.rack();
            alive[i] = true;
        }
        SplittableRandom root = new SplittableRandom(scenario.seed());
        this.share = SlotHeat.shares(scenario.heat(), slots, root.split());
        this.noise = root.split();
        SplittableRandom history = root.split();
        this.fillShare = scenario.fillHeat() == null ? share : SlotHeat.shares(scenario.fillHeat(), slots, history);
        this.keys = new KeyLedger(scenario.seed(), maxNodes);
        this.weightEpoch = new long[maxNodes];
        this.routes = RoutingView.of(ROUTING_CLUSTER, table);
        this.routeEpoch = table.routingEpoch();
        fillInitialData();
    }

    /** The cluster id of the rows the model's routing view takes. */
    public static final String ROUTING_CLUSTER = "sim";

    /**
     * Lays down the starting data ({@code fill} × capacity) in 50 rounds with the same heat and placement
     * as later writes, so the free-ratio term acts on the history as it would have.
     */
    private void fillInitialData() {
        double total = 0;
        for (int i = 0; i < maxNodes; i++) {
            total += alive[i] ? capacity[i] : 0;
        }
        double bytes = scenario.fill() * total;
        int rounds = 50;
        int initialKeys = scenario.probeKeys() / 2;
        for (int r = 0; r < rounds; r++) {
            write(bytes / rounds, false, fillShare);
            keys.write(this, initialKeys / rounds + (r < initialKeys % rounds ? 1 : 0));
        }
        java.util.Arrays.fill(heat, 0);
        java.util.Arrays.fill(slotHeat, 0);
    }

    // ---------------------------------------------------------------- writes

    /**
     * Writes {@code bytes} over the slots by heat share, hot-spot factor and (if {@code withNoise})
     * noise; records this step's per-node and per-slot heat. Returns the bytes actually written.
     */
    public double write(double bytes, boolean withNoise) {
        return write(bytes, withNoise, share);
    }

    private double write(double bytes, boolean withNoise, double[] share) {
        java.util.Arrays.fill(heat, 0);
        java.util.Arrays.fill(slotHeat, 0);
        stepWrites = 0;
        refreshEffectiveWeights();
        double sigma = scenario.writes().noise();
        double weightSum = 0;
        double[] slotBytes = new double[slots];
        for (int s = 0; s < slots; s++) {
            double f = share[s];
            if (withNoise && sigma > 0) {
                f *= Math.exp(sigma * gaussian() - sigma * sigma / 2);
            }
            slotBytes[s] = f;
            weightSum += share[s];
        }
        double scale = bytes / weightSum;
        double written = 0;
        double[] believed = routes.effectiveWeights(); // the writers' view, by view node index
        for (int s = 0; s < slots; s++) {
            double b = slotBytes[s] * scale;
            CandidateSet set = routes.route(s).writers(); // view node indexes
            double sum = 0;
            double toLost = 0;
            for (int k = 0; k < set.size(); k++) {
                int node = model(set.node(k));
                sum += believed[set.node(k)];
                if (failed[node]) {
                    toLost += believedWeight(node);
                }
            }
            if (toLost > 0) {
                // the writers' pick still names the lost node for its share of the slot's keys: those writes
                // fail there and go to the slot's other candidates (placed below), counted here
                countRoutedToLost(s, b * toLost / (sum + toLost));
            }
            if (sum <= 0) {
                rejectedBytes += b;
                continue;
            }
            double placed = 0;
            for (int k = 0; k < set.size(); k++) {
                int node = model(set.node(k));
                // a node never takes more than its free space; what it cannot take is refused
                double add = Math.min(b * believed[set.node(k)] / sum, Math.max(0, capacity[node] - used[node]));
                if (add > 0) {
                    shard[s][node] += add;
                    used[node] += add;
                    heat[node] += add;
                    placed += add;
                    recordStepWrite(s, node, add);
                }
            }
            rejectedBytes += b - placed;
            slotHeat[s] = placed;
            written += placed;
        }
        if (share == this.share) {
            for (HotShard hot : hotShards) {
                written += hot.write(this, bytes);
            }
        }
        return written;
    }

    /** The weight the writers give a lost node they do not know is lost: its factor × free ratio at the loss. */
    private double believedWeight(int node) {
        return capacity[node] > 0 ? weight[node] * Math.max(0, FULL - used[node] / capacity[node]) : 0;
    }

    /** Bytes of slot {@code slot} the writers routed to a lost node (before or after its replacement update). */
    private void countRoutedToLost(int slot, double bytes) {
        CandidateSet set = table.candidates(slot);
        boolean afterUpdate = false;
        for (int k = 0; k < set.size(); k++) {
            afterUpdate |= failed[set.node(k)] && replaced[set.node(k)];
        }
        if (afterUpdate) {
            routedToLostAfterUpdate += bytes;
        } else {
            reroutedFromLost += bytes;
        }
    }

    /**
     * The nodes of {@code slot} a writer picks among, in model node indexes, as the routing view has
     * them: the candidates without the read-only ones (all of them when every one is read-only and
     * nothing is spread), then the spread nodes.
     */
    public CandidateSet writers(int slot) {
        return toModel(routes.route(slot).writers());
    }

    /** Every node that may hold keys of {@code slot} (candidates, spread, held), in model node indexes. */
    public CandidateSet holders(int slot) {
        return toModel(routes.route(slot).holders());
    }

    /** The spread nodes of {@code slot}, in model node indexes (empty: not spread). */
    public int[] spread(int slot) {
        return toModel(routes.route(slot).spread());
    }

    /** True when {@code slot} is spread or has held nodes: its reads may probe past its candidates. */
    public boolean isSpreadOrHeld(int slot) {
        SlotSpread route = routes.route(slot);
        return route.isSpread() || route.heldCount() > 0;
    }

    /** The held nodes of {@code slot}, in model node indexes. */
    public int[] held(int slot) {
        return toModel(routes.route(slot).held());
    }

    /**
     * The node a write of key hash {@code hash} goes to: the routing view's pick among its slot's
     * writers (a lost node, whose free ratio the writers see as 0 once a write to it failed, never
     * wins), in model node index.
     *
     * @throws IllegalStateException when no writer of the slot can take it (all full)
     */
    public int pickWriter(long hash) {
        return index.require(routes.pickHash(hash));
    }

    /** The writers' routing view (read only: the cluster feeds it). */
    public RoutingView routes() {
        return routes;
    }

    /**
     * Fast mode: from now on the routing view takes the slot-table rows the migrator publishes
     * ({@link #applyRoute}), and the model's own table changes no longer make rows of their own.
     */
    public void routeExternally() {
        external = true;
    }

    /** A slot-table row as the writers receive it (fast mode: the migrator's), into the routing view. */
    public void applyRoute(SlotAssignment row) {
        SlotAssignment mine = row.getCluster().equals(ROUTING_CLUSTER) ? row
                : SlotAssignment.newBuilder(row).setCluster(ROUTING_CLUSTER).build();
        routes.apply(mine);
    }

    /**
     * Spreads or narrows {@code slot} (model mode: the spread rule's decision): {@code spread} take its
     * writes besides its candidates, {@code held} keep what they received. Nothing moves.
     */
    public void setSpread(int slot, List<String> spread, List<String> held, String reason) {
        publishRoute(slot, spread, held, reason);
    }

    /** Marks the read-only candidates of {@code slot} (a slot-table row's {@code readOnly}), replacing the marks before. */
    public void markReadOnly(int slot, java.util.Collection<Integer> nodes) {
        if (nodes.isEmpty()) {
            readOnly[slot] = null;
        } else {
            java.util.BitSet marks = new java.util.BitSet(maxNodes);
            nodes.forEach(marks::set);
            readOnly[slot] = marks;
        }
        refreshRoute(slot);
    }

    /** The model's own row of {@code slot} (its table and marks, the view's spread) into the view, at a new epoch. */
    private void refreshRoute(int slot) {
        if (external) {
            return;
        }
        SlotSpread route = routes.route(slot);
        List<String> spread = ids(route.spread());
        List<String> held = ids(route.held());
        // a node that became a candidate is no longer spread or held there
        List<String> candidates = table.candidateIds(slot);
        spread = spread.stream().filter(n -> !candidates.contains(n)).toList();
        held = held.stream().filter(n -> !candidates.contains(n)).toList();
        publishRoute(slot, spread, held, routes.spreadReason(slot));
    }

    private void publishRoute(int slot, List<String> spread, List<String> held, String reason) {
        List<String> readOnlyIds = new ArrayList<>();
        CandidateSet set = table.candidates(slot);
        for (int k = 0; k < set.size(); k++) {
            if (readOnly(slot, set.node(k))) {
                readOnlyIds.add(index.id(set.node(k)));
            }
        }
        routes.apply(SlotAssignment.newBuilder().setCluster(ROUTING_CLUSTER).setSlot(slot).setRoutingEpoch(++routeEpoch)
                .setCandidates(table.candidateIds(slot)).setReadOnly(readOnlyIds).setSpread(new ArrayList<>(spread))
                .setSpreadHeld(new ArrayList<>(held)).setSpreadReason(reason).setUpdatedAt(java.time.Instant.EPOCH).build());
    }

    private List<String> ids(int[] viewNodes) {
        List<String> out = new ArrayList<>(viewNodes.length);
        NodeIndex view = routes.nodes();
        for (int n : viewNodes) {
            out.add(view.id(n));
        }
        return out;
    }

    /** The model's node index of view node {@code viewNode}. */
    private int model(int viewNode) {
        if (viewNode >= fromView.length) {
            NodeIndex view = routes.nodes();
            int[] grown = new int[view.size()];
            for (int i = 0; i < grown.length; i++) {
                grown[i] = index.indexOf(view.id(i));
            }
            fromView = grown;
        }
        return fromView[viewNode];
    }

    private CandidateSet toModel(CandidateSet viewSet) {
        int[] nodes = new int[viewSet.size()];
        for (int k = 0; k < nodes.length; k++) {
            nodes[k] = model(viewSet.node(k));
        }
        return new CandidateSet(nodes);
    }

    private int[] toModel(int[] viewNodes) {
        int[] nodes = new int[viewNodes.length];
        for (int k = 0; k < nodes.length; k++) {
            nodes[k] = model(viewNodes[k]);
        }
        return nodes;
    }

    /**
     * The 1-based probe at which a reader finds the key of hash {@code hash}, probing the routing
     * view's {@code ProbeOrder} of its slot with {@code holds} (model node indexes); 0 when no
     * holder has it.
     */
    public int probe(long hash, java.util.function.IntPredicate holds) {
        if (probes.length < routes.maxHolders()) {
            probes = new int[routes.maxHolders()];
        }
        return routes.probe(hash, probeOrder, probes, viewNode -> holds.test(model(viewNode)));
    }

    /** Whether {@code node} is a read-only candidate of {@code slot}. */
    public boolean readOnly(int slot, int node) {
        return readOnly[slot] != null && readOnly[slot].get(node);
    }

    /** Counts bytes no candidate could take. */
    void refuse(double bytes) {
        rejectedBytes += bytes;
    }

    /** Adds {@code bytes} written to shard (slot, node) in this step. */
    void addWrite(int slot, int node, double bytes) {
        shard[slot][node] += bytes;
        used[node] += bytes;
        heat[node] += bytes;
        slotHeat[slot] += bytes;
        recordStepWrite(slot, node, bytes);
    }

    private void recordStepWrite(int slot, int node, double bytes) {
        if (stepWrites == stepWriteSlot.length) {
            int n = 2 * stepWrites;
            stepWriteSlot = java.util.Arrays.copyOf(stepWriteSlot, n);
            stepWriteNode = java.util.Arrays.copyOf(stepWriteNode, n);
            stepWriteBytes = java.util.Arrays.copyOf(stepWriteBytes, n);
        }
        stepWriteSlot[stepWrites] = slot;
        stepWriteNode[stepWrites] = node;
        stepWriteBytes[stepWrites] = bytes;
        stepWrites++;
    }

    /** One write of the last step: {@code bytes} to shard (slot, node). */
    public interface StepWrite {
        void wrote(int slot, int node, double bytes);
    }

    /**
     * The last step's writes, as the writers sent them: one call per (slot, node) share and per hot
     * key's write (so a shard may appear more than once), in the order they were made.
     */
    public void forEachStepWrite(StepWrite visitor) {
        for (int i = 0; i < stepWrites; i++) {
            visitor.wrote(stepWriteSlot[i], stepWriteNode[i], stepWriteBytes[i]);
        }
    }

    /** Writes {@code count} sampled keys through the real pick (see {@link KeyLedger}). */
    public void writeKeys(int count) {
        refreshEffectiveWeights();
        keys.write(this, count);
    }

    private double gaussian() {
        // Box–Muller on the seeded stream: the same seed gives the same noise on every JVM
        double u1 = noise.nextDouble();
        double u2 = noise.nextDouble();
        return Math.sqrt(-2 * Math.log(1 - u1)) * Math.cos(2 * Math.PI * u2);
    }

    /**
     * {@code w × freeRatio} per node, 0 for a node that is lost or full; the free ratios go to the
     * routing view too (a lost node's as 0: its writes fail and go to the slot's other writers).
     */
    void refreshEffectiveWeights() {
        List<String> ids = new ArrayList<>(maxNodes);
        double[] free = new double[maxNodes];
        int n = 0;
        for (int i = 0; i < maxNodes; i++) {
            double ratio = alive[i] && capacity[i] > 0 ? Math.max(0, FULL - used[i] / capacity[i]) : 0;
            effective[i] = alive[i] && capacity[i] > 0 ? weight[i] * ratio : 0;
            if (i < index.size()) {
                ids.add(index.id(i));
                free[n++] = ratio;
            }
        }
        routes.setFreeRatios(ids, java.util.Arrays.copyOf(free, n));
    }

    double[] effectiveWeights() {
        return effective;
    }

    // ---------------------------------------------------------------- events

    /** Applies a timeline event. */
    public void apply(ScenarioEvent event) {
        if (event instanceof ScenarioEvent.Join join) {
            join(join.node());
        } else if (event instanceof ScenarioEvent.Loss loss) {
            lose(loss.node());
        } else if (event instanceof ScenarioEvent.HotSpot hot) {
            int s = hot.slot().hottest() ? hottestSlot() : hot.slot().slot();
            hotShards.add(HotShard.start(this, s, hot.factor(), hot.keys()));
        }
    }

    /** The hot shards started so far. */
    public List<HotShard> hotShards() {
        return List.copyOf(hotShards);
    }

    /** The slot with the highest write share, lowest slot on ties. */
    public int hottestSlot() {
        int best = 0;
        for (int s = 1; s < slots; s++) {
            if (share[s] > share[best]) {
                best = s;
            }
        }
        return best;
    }

    /** The write share of a slot (its part of every step's writes, before noise and hot spots). */
    public double share(int slot) {
        return share[slot];
    }

    /** A new empty node: on the ring, in no candidate set (the slot table changes only by migration). */
    public void join(NodeSpec node) {
        ring = ring.withNode(new Node(node.id(), node.rack(), node.ringWeight()));
        index = ring.nodes();
        table = table.withNodes(index);
        pick = WeightedPick.over(index);
        int i = index.require(node.id());
        capacity[i] = node.capacityBytes();
        rack[i] = node.rack();
        alive[i] = true;
        joined[i] = true;
        weight[i] = 1.0;
    }

    /**
     * A node is lost. In every slot whose candidate set holds it, the next distinct live node
     * clockwise on the ring without it takes its place, and its shard is rebuilt there from replicas
     * (replicas themselves are outside the model). Those bytes count as recovery, not as moved.
     */
    public void lose(String id) {
        int lost = index.require(id);
        alive[lost] = false;
        ring = ring.withoutNode(id);
        int walk = Math.min(ring.memberCount(), scenario.candidates() + 16);
        for (int s = 0; s < slots; s++) {
            CandidateSet set = table.candidates(s);
            if (!set.contains(lost)) {
                loseSpread(s, lost);
                continue;
            }
            CandidateSet around = ring.candidates(SlotTable.slotPoint(s, slots), walk);
            CandidateSet holders = holders(s);
            int replacement = -1;
            for (int k = 0; k < around.size(); k++) {
                if (!holders.contains(around.node(k))) {
                    replacement = around.node(k);
                    break;
                }
            }
            if (replacement < 0) {
                // every live node is already a candidate: the set just shrinks would be the truth, but a
                // candidate set cannot shrink in the slot table, so the lost node stays, taking no writes
                continue;
            }
            table = table.apply(table.replacement(s, id, index.id(replacement)));
            double bytes = shard[s][lost];
            shard[s][replacement] += bytes;
            used[replacement] += bytes;
            recoveryBytes += bytes;
            keys.moveShard(s, lost, replacement);
            if (inFlightTarget[s] == lost) {
                inFlightTarget[s] = -1;
            }
            refreshRoute(s);
        }
        for (int s = 0; s < slots; s++) {
            used[lost] -= shard[s][lost];
            shard[s][lost] = 0;
        }
        used[lost] = 0;
    }

    /**
     * Model mode: a lost node that is a spread or held node of {@code slot} leaves it there, and what it
     * held of the slot is rebuilt on the slot's anchor (recovery bytes, keys moved with them).
     */
    private void loseSpread(int slot, int lost) {
        List<String> spread = ids(routes.route(slot).spread());
        List<String> held = ids(routes.route(slot).held());
        String id = index.id(lost);
        if (!spread.contains(id) && !held.contains(id)) {
            return;
        }
        int anchor = table.candidates(slot).anchor();
        double bytes = shard[slot][lost];
        shard[slot][anchor] += bytes;
        used[anchor] += bytes;
        recoveryBytes += bytes;
        keys.moveShard(slot, lost, anchor);
        List<String> nextSpread = new ArrayList<>(spread);
        List<String> nextHeld = new ArrayList<>(held);
        nextSpread.remove(id);
        nextHeld.remove(id);
        publishRoute(slot, nextSpread, nextHeld, "node " + id + " lost: dropped, its part rebuilt on the anchor");
    }

    /**
     * A node is lost, and the writers learn it only from the slot table (a migrator following
     * membership, fast mode): the node stops (no writes land on it, it answers nothing, its data is
     * unreachable) but stays in every candidate set until {@link #replaceLost} replaces it, slot by slot.
     * Until then the writers' pick still names it for its share of each slot's keys; those writes fail
     * and go to the slot's other candidates (a client's retry), counted as {@link #reroutedFromLostBytes}.
     */
    public void fail(String id) {
        int lost = index.require(id);
        if (!alive[lost]) {
            throw new IllegalStateException("node " + id + " is not in the cluster");
        }
        alive[lost] = false;
        failed[lost] = true;
        ring = ring.withoutNode(id);
    }

    /**
     * The slot-table update that replaces a lost node ({@link #fail}) in {@code slot}'s candidate set:
     * {@code replacement} takes its place and its shard is rebuilt there from replicas (bytes and keys;
     * counted as recovery, not as moved). Returns the bytes rebuilt.
     */
    public double replaceLost(int slot, int lost, int replacement) {
        if (!failed[lost]) {
            throw new IllegalArgumentException("node " + index.id(lost) + " is not a lost node");
        }
        table = table.apply(table.replacement(slot, index.id(lost), index.id(replacement)));
        refreshRoute(slot);
        replaced[lost] = true;
        double bytes = shard[slot][lost];
        shard[slot][replacement] += bytes;
        used[replacement] += bytes;
        recoveryBytes += bytes;
        shard[slot][lost] = 0;
        used[lost] -= bytes;
        keys.moveShard(slot, lost, replacement);
        if (inFlightTarget[slot] == lost || inFlightTarget[slot] >= 0 && inFlightSource[slot] == lost) {
            inFlightTarget[slot] = -1;
        }
        if (readOnly[slot] != null) {
            readOnly[slot].clear(lost);
        }
        return bytes;
    }

    /**
     * The slot-table update that replaces a lost node ({@link #fail}) among {@code slot}'s spread or
     * held nodes: what it held of the slot is rebuilt on {@code replacement} from replicas (recovery).
     * The candidate set does not change. Returns the bytes rebuilt.
     */
    public double rebuildHeld(int slot, int lost, int replacement) {
        if (!failed[lost]) {
            throw new IllegalArgumentException("node " + index.id(lost) + " is not a lost node");
        }
        replaced[lost] = true;
        double bytes = shard[slot][lost];
        shard[slot][replacement] += bytes;
        used[replacement] += bytes;
        recoveryBytes += bytes;
        shard[slot][lost] = 0;
        used[lost] -= bytes;
        keys.moveShard(slot, lost, replacement);
        return bytes;
    }

    /** True for a node lost while still in candidate sets ({@link #fail}), replaced or not. */
    public boolean failed(int node) {
        return node < maxNodes && failed[node];
    }

    /** True for a node that joined during the run. */
    public boolean joined(int node) {
        return node < maxNodes && joined[node];
    }

    /**
     * Bytes the writers routed to a lost node before the slot-table update that replaced it; they went
     * to the slot's other candidates instead (a client's retry).
     */
    public double reroutedFromLostBytes() {
        return reroutedFromLost;
    }

    /**
     * Bytes the writers routed to a lost node after the update that replaced it (a slot whose set still
     * holds it then): 0 when the update replaced it in every set.
     */
    public double routedToLostAfterUpdateBytes() {
        return routedToLostAfterUpdate;
    }

    /**
     * The joined nodes' utilisation against the mean utilisation of the live nodes: the largest
     * {@code |u − mean| / mean} among the live nodes that joined during the run, or NaN without any.
     */
    public double joinedUtilisationSpread() {
        double sum = 0;
        int live = 0;
        for (int i = 0; i < maxNodes; i++) {
            if (alive[i]) {
                sum += utilisation(i);
                live++;
            }
        }
        double mean = live == 0 ? 0 : sum / live;
        double worst = Double.NaN;
        for (int i = 0; i < maxNodes; i++) {
            if (alive[i] && joined[i] && mean > 0) {
                double d = Math.abs(utilisation(i) - mean) / mean;
                worst = Double.isNaN(worst) ? d : Math.max(worst, d);
            }
        }
        return worst;
    }

    /**
     * CRUSH semantics of a membership change (the Ceph baseline): the slot table is rebuilt from the
     * current ring, and in every slot each node that left the candidate set hands its shard (bytes and
     * keys) to a node that entered it, pairing them in candidate order. Counts the bytes as moved;
     * returns them. Routing epoch + 1.
     */
    public double remapToRing() {
        SlotTable fresh = SlotTable.fromRing(ring, scenario.candidates(), slots);
        List<CandidateSet> sets = new ArrayList<>(slots);
        double moved = 0;
        for (int s = 0; s < slots; s++) {
            CandidateSet before = table.candidates(s);
            CandidateSet after = fresh.candidates(s);
            List<Integer> entered = new ArrayList<>();
            for (int k = 0; k < after.size(); k++) {
                if (!before.contains(after.node(k))) {
                    entered.add(after.node(k));
                }
            }
            int next = 0;
            for (int k = 0; k < before.size(); k++) {
                int left = before.node(k);
                if (after.contains(left) || next >= entered.size()) {
                    continue;
                }
                int to = entered.get(next++);
                double bytes = shard[s][left];
                shard[s][to] += bytes;
                used[to] += bytes;
                shard[s][left] = 0;
                used[left] -= bytes;
                moved += bytes;
                keys.moveShard(s, left, to);
            }
            sets.add(after);
        }
        table = SlotTable.of(index, sets, table.routingEpoch() + 1);
        for (int s = 0; s < slots; s++) {
            refreshRoute(s);
        }
        bytesMoved += moved;
        return moved;
    }

    // ---------------------------------------------------------------- migrations (SkewGuard)

    /** The slot names an in-flight target: writes of shard (slot, source) are dual-written to it. */
    public void markInFlight(int slot, int source, int target) {
        inFlightTarget[slot] = target;
        inFlightSource[slot] = source;
    }

    /** COPY done: the target holds a copy of shard (slot, source) (plus what was dual-written). */
    public void copyShard(int slot, int source, int target) {
        keys.copyShard(slot, source, target);
    }

    /** ABORT: the target drops its copy; the slot table never changed. */
    public void dropCopy(int slot, int target) {
        if (inFlightTarget[slot] == target) {
            inFlightTarget[slot] = -1;
        }
        if (!table.candidates(slot).contains(target)) {
            keys.dropShard(slot, target);
        }
    }

    /**
     * The switch: source replaced by target in the slot's candidate set (routing epoch + 1); the target
     * now holds the shard's bytes (copied plus dual-written). Counts the bytes as moved.
     */
    public double switchSlot(int slot, int source, int target) {
        table = table.apply(table.replacement(slot, index.id(source), index.id(target)));
        refreshRoute(slot);
        inFlightTarget[slot] = -1;
        double bytes = shard[slot][source];
        shard[slot][target] += bytes;
        used[target] += bytes;
        bytesMoved += bytes;
        return bytes;
    }

    /** CLEANUP: the source frees the shard. */
    public void cleanup(int slot, int source) {
        if (table.candidates(slot).contains(source)) {
            return; // never free a shard the slot table still routes to
        }
        used[source] -= shard[slot][source];
        shard[slot][source] = 0;
        keys.dropShard(slot, source);
    }

    // ---------------------------------------------------------------- weights

    /** Sets the writers' weight factor of a node (counts a change when it differs). */
    public void setWeight(int node, double w) {
        if (weight[node] != w) {
            weight[node] = w;
            weightChanges++;
            routes.apply(NodeWeight.newBuilder().setCluster(ROUTING_CLUSTER).setNode(index.id(node)).setEpoch(++weightEpoch[node])
                    .setWeight(w).setUpdatedAt(java.time.Instant.EPOCH).build());
        }
    }

    /**
     * Ceph semantics of a weight change: placement is a function of the weights, so the existing data
     * whose placement changes relocates. With weighted rendezvous a lower weight of node j only moves
     * keys off j (fraction {@code 1 − P'_j / P_j} of each of its shards, to the other candidates in
     * proportion to their weights) and a higher one only moves keys onto j (fraction
     * {@code 1 − W/W'} of every other candidate's shard). Counts the bytes as moved; returns them.
     */
    public double relocateAfterWeightChange(int node, double oldWeight, double newWeight) {
        double moved = 0;
        for (int s = 0; s < slots; s++) {
            CandidateSet set = table.candidates(s);
            if (!set.contains(node)) {
                continue;
            }
            double others = 0;
            for (int k = 0; k < set.size(); k++) {
                int n = set.node(k);
                if (n != node && alive[n]) {
                    others += weight[n];
                }
            }
            if (others <= 0) {
                continue;
            }
            double before = oldWeight / (others + oldWeight);
            double after = newWeight / (others + newWeight);
            // a receiving node takes no more than its free space (Ceph stops backfill into a full OSD);
            // what does not fit stays where it is
            if (newWeight < oldWeight) {
                double off = shard[s][node] * (1 - after / before);
                for (int k = 0; k < set.size(); k++) {
                    int n = set.node(k);
                    if (n != node && alive[n]) {
                        double add = Math.min(off * weight[n] / others, Math.max(0, capacity[n] - used[n]));
                        shard[s][n] += add;
                        used[n] += add;
                        shard[s][node] -= add;
                        used[node] -= add;
                        moved += add;
                    }
                }
            } else if (newWeight > oldWeight) {
                double fraction = 1 - (others + oldWeight) / (others + newWeight);
                for (int k = 0; k < set.size(); k++) {
                    int n = set.node(k);
                    if (n != node && alive[n]) {
                        double off = Math.min(shard[s][n] * fraction, Math.max(0, capacity[node] - used[node]));
                        shard[s][n] -= off;
                        used[n] -= off;
                        shard[s][node] += off;
                        used[node] += off;
                        moved += off;
                    }
                }
            }
            keys.relocate(this, s, node, oldWeight, newWeight);
        }
        bytesMoved += moved;
        return moved;
    }

    // ---------------------------------------------------------------- figures

    /** The figures of the current step over the live nodes. */
    public ClusterFigures figures() {
        int live = 0;
        for (int i = 0; i < maxNodes; i++) {
            if (alive[i]) {
                live++;
            }
        }
        double[] heatPerCapacity = new double[live];
        double[] utilisation = new double[live];
        double usedSum = 0;
        double totalSum = 0;
        double max = 0;
        double min = Double.MAX_VALUE;
        for (int i = 0, k = 0; i < maxNodes; i++) {
            if (!alive[i]) {
                continue;
            }
            heatPerCapacity[k] = heat[i] / capacity[i];
            double u = Math.max(0, used[i]) / capacity[i];
            utilisation[k++] = u;
            usedSum += Math.max(0, used[i]);
            totalSum += capacity[i];
            max = Math.max(max, u);
            min = Math.min(min, u);
        }
        double target = usedSum / totalSum;
        double minimum = 0;
        for (int i = 0; i < maxNodes; i++) {
            if (alive[i]) {
                minimum += Math.max(0, used[i] - target * capacity[i]);
            }
        }
        return new ClusterFigures(Gini.of(heatPerCapacity), CoefficientOfVariation.of(utilisation), max - min,
                target, minimum, usedSum, totalSum);
    }

    // ---------------------------------------------------------------- reads

    public Scenario scenario() {
        return scenario;
    }

    public int slotCount() {
        return slots;
    }

    /** Size of every per-node array: the initial nodes plus every node that ever joins. */
    public int maxNodes() {
        return maxNodes;
    }

    public NodeIndex nodes() {
        return index;
    }

    public SlotTable slotTable() {
        return table;
    }

    public WeightedPick pick() {
        return pick;
    }

    /** True for a node that is in the cluster now (joined and not lost). */
    public boolean alive(int node) {
        return node < maxNodes && alive[node];
    }

    public double capacity(int node) {
        return capacity[node];
    }

    public String rack(int node) {
        return rack[node];
    }

    public double used(int node) {
        return used[node];
    }

    public double utilisation(int node) {
        return capacity[node] > 0 ? used[node] / capacity[node] : 0;
    }

    public double weight(int node) {
        return weight[node];
    }

    /** Bytes written to the node in the last step. */
    public double heat(int node) {
        return heat[node];
    }

    /** Bytes written to the slot in the last step. */
    public double slotHeat(int slot) {
        return slotHeat[slot];
    }

    public double shardBytes(int slot, int node) {
        return shard[slot][node];
    }

    /** The in-flight migration target of the slot, or -1. */
    public int inFlightTarget(int slot) {
        return inFlightTarget[slot];
    }

    /** The source of the slot's in-flight migration (meaningful while {@link #inFlightTarget} is set). */
    public int inFlightSource(int slot) {
        return inFlightSource[slot];
    }

    /** Bytes moved by policies (switches and relocations); recovery after a node loss is apart. */
    public double bytesMoved() {
        return bytesMoved;
    }

    /** Bytes rebuilt from replicas after node losses. */
    public double recoveryBytes() {
        return recoveryBytes;
    }

    /** Bytes no candidate could take (every candidate of the slot full or lost). */
    public double rejectedBytes() {
        return rejectedBytes;
    }

    /** How many times a node's weight factor changed. */
    public long weightChanges() {
        return weightChanges;
    }

    public KeyLedger keys() {
        return keys;
    }
}
