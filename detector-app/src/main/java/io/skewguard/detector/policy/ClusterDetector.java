package io.skewguard.detector.policy;

import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotHeat;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Detection for one cluster: the sliding heat window, every node's latest capacity, the two alert
 * state machines, and the cluster's stream time. Fed with {@link #apply batches} of per-tick heat
 * and capacity reports; ticks on its own stream time.
 *
 * <p><b>When a tick fires.</b> Tick {@code E} (a multiple of the tick length) covers the window
 * {@code [E - window, E)} and is computed once the cluster's stream time (highest event time seen)
 * reaches {@code E + grace}: every event the ingest stage accepted as on time (no older than stream
 * time minus grace) has then been counted, so a late event within grace is part of every report
 * whose window covers it. A cluster without input does not tick. The first tick of a new cluster
 * is the first tick after its first event.
 *
 * <p><b>Gaps.</b> When stream time jumps by more than {@code 2 × (window/tick + 1)} ticks at once,
 * every tick whose window holds heat is computed, and so is the first tick of each run of ticks
 * with empty windows (the heat has drained out) and the last {@code window/tick + 1} ticks; the
 * other empty ticks are skipped and counted in {@link Result#skippedTicks()}. "Holds heat" covers
 * heat ahead of the old window (up to {@code grace} past the next tick, or from another ingest
 * task's partial): a tick is skipped only when no heat at all lies in its window. Heat that lay too
 * far ahead for the ring when the batch came joins the window as soon as it fits, before any tick
 * covering it.
 *
 * <p><b>Known nodes.</b> At tick {@code E} a node is known when it has heat in the window or a
 * capacity report not older than {@code E - nodeExpiry}. Known nodes without heat count as 0.
 * After the ticks of a batch, a node that is not known at the last one and has no heat left
 * anywhere in the ring is forgotten: removed from the index (its slot is reused by the next new
 * node) and from the capacities, so the detector's state holds only nodes that still report. No
 * report changes by this: a forgotten node would have been left out of every later one.
 *
 * <p>Per tick cost O(window/tick × (nodes + slots) + nodes log nodes); per batch O(batch size).
 * Not thread safe.
 */
public final class ClusterDetector {

    /**
     * What a batch produced: ticks in order, heat to persist, capacities to persist, and the nodes
     * forgotten after the ticks (their persisted capacity may be deleted).
     */
    public record Result(
            List<Tick> ticks, List<BucketHeat> accepted, int droppedBuckets, long skippedTicks,
            List<NodeCapacity> capacityUpdates, List<String> forgotten) {}

    /** One tick's report and the alert transitions at that tick. */
    public record Tick(SkewReport report, List<SkewAlert> alerts) {}

    /** What must survive a restart besides the heat and the capacities. */
    public record Progress(
            long watermark, long nextTick,
            AlertState heatState, long heatSince,
            AlertState capacityState, long capacitySince) {}

    private final String cluster;
    private final DetectionParameters p;
    private final Map<String, Integer> nodeIndex = new HashMap<>();
    private final List<String> nodeNames = new ArrayList<>(); // null at a forgotten node's index
    private final java.util.ArrayDeque<Integer> freeIndexes = new java.util.ArrayDeque<>();
    private final Map<String, NodeCapacity> capacities = new HashMap<>();
    private final AlertStateMachine heatAlert;
    private final AlertStateMachine capacityAlert;
    private HeatWindow window;
    private long watermark = Long.MIN_VALUE;
    private long nextTick = Long.MIN_VALUE;

    /** A cluster seen for the first time. */
    public ClusterDetector(String cluster, DetectionParameters p) {
        this(cluster, p, new Progress(Long.MIN_VALUE, Long.MIN_VALUE,
                AlertState.NORMAL, Long.MIN_VALUE, AlertState.NORMAL, Long.MIN_VALUE));
    }

    /** A cluster resumed from its persisted progress; add its heat with {@link #restore}. */
    public ClusterDetector(String cluster, DetectionParameters p, Progress progress) {
        this.cluster = cluster;
        this.p = p;
        this.heatAlert = new AlertStateMachine(p.heatThreshold(), p.hysteresis(), p.cooldownMs(),
                progress.heatState(), progress.heatSince());
        this.capacityAlert = new AlertStateMachine(p.capacityThreshold(), p.hysteresis(), p.cooldownMs(),
                progress.capacityState(), progress.capacitySince());
        this.watermark = progress.watermark();
        this.nextTick = progress.nextTick();
        if (nextTick != Long.MIN_VALUE) {
            window = new HeatWindow(p.windowBuckets(), p.ringBuckets(), nextTick / p.tickMs() - p.windowBuckets());
        }
    }

    public String cluster() {
        return cluster;
    }

    /** Highest event time seen; {@link Long#MIN_VALUE} before the first. */
    public long watermark() {
        return watermark;
    }

    /** The oldest bucket still needed; persisted heat before it may be deleted. */
    public long firstBucket() {
        return window == null ? Long.MIN_VALUE : window.firstBucket();
    }

    public Progress progress() {
        return new Progress(watermark, nextTick, heatAlert.state(), heatAlert.since(),
                capacityAlert.state(), capacityAlert.since());
    }

    public AlertState heatState() {
        return heatAlert.state();
    }

    public AlertState capacityState() {
        return capacityAlert.state();
    }

    /** Adds persisted heat after a restart; returns false when it is no longer needed. */
    public boolean restore(BucketHeat heat) {
        if (window == null || !window.fits(heat.bucket())) {
            return false;
        }
        add(heat);
        return true;
    }

    /** Adds a persisted capacity after a restart. */
    public void restore(NodeCapacity capacity) {
        capacities.put(capacity.node(), capacity);
        index(capacity.node());
    }

    /**
     * Merges a batch of heat and capacity reports whose highest event time is {@code maxEventTime},
     * then computes every tick that became due.
     */
    public Result apply(List<BucketHeat> heat, List<NodeCapacity> capacityReports, long maxEventTime) {
        if (window == null) {
            start(heat, capacityReports, maxEventTime);
        }
        List<NodeCapacity> updates = new ArrayList<>(capacityReports.size());
        for (NodeCapacity c : capacityReports) {
            NodeCapacity old = capacities.get(c.node());
            if (old == null || old.eventTime() <= c.eventTime()) {
                capacities.put(c.node(), c);
                index(c.node());
                updates.add(c);
            }
        }
        List<BucketHeat> accepted = new ArrayList<>(heat.size());
        List<BucketHeat> ahead = new ArrayList<>();
        int dropped = 0;
        for (BucketHeat h : heat) {
            if (h.bucket() < window.firstBucket()) {
                dropped++;
            } else if (window.fits(h.bucket())) {
                add(h);
                accepted.add(h);
            } else {
                ahead.add(h);
            }
        }
        watermark = Math.max(watermark, maxEventTime);
        List<Tick> ticks = new ArrayList<>();
        ahead.sort(Comparator.comparingLong(BucketHeat::bucket));
        ArrayDeque<BucketHeat> waiting = new ArrayDeque<>(ahead);
        long skipped = tickUntil(ticks, waiting, accepted);
        addFitting(waiting, accepted);
        dropped += waiting.size();
        List<String> forgotten = ticks.isEmpty() ? List.of() : forget(nextTick - p.tickMs());
        return new Result(ticks, accepted, dropped, skipped, updates, forgotten);
    }

    /** Forgets the nodes not known at tick {@code end} that have no heat left in the ring. */
    private List<String> forget(long end) {
        List<String> gone = new ArrayList<>();
        for (int i = 0; i < nodeNames.size(); i++) {
            String node = nodeNames.get(i);
            if (node == null) {
                continue;
            }
            NodeCapacity c = capacities.get(node);
            if ((c == null || c.eventTime() < end - p.nodeExpiryMs()) && window.retainedNodeHeat(i) == 0) {
                nodeIndex.remove(node);
                nodeNames.set(i, null);
                capacities.remove(node);
                freeIndexes.push(i);
                gone.add(node);
            }
        }
        return gone;
    }

    /** Number of nodes the detector holds state for. */
    public int nodesHeld() {
        return nodeIndex.size();
    }

    /** Adds the heat waiting ahead of the ring (oldest first) that the ring now holds room for. */
    private void addFitting(ArrayDeque<BucketHeat> waiting, List<BucketHeat> accepted) {
        while (!waiting.isEmpty() && window.fits(waiting.peekFirst().bucket())) {
            BucketHeat h = waiting.pollFirst();
            add(h);
            accepted.add(h);
        }
    }

    private void start(List<BucketHeat> heat, List<NodeCapacity> capacityReports, long maxEventTime) {
        long first = maxEventTime;
        for (BucketHeat h : heat) {
            first = Math.min(first, h.bucket() * p.tickMs());
        }
        for (NodeCapacity c : capacityReports) {
            first = Math.min(first, c.eventTime());
        }
        long firstBucket = Math.floorDiv(first, p.tickMs());
        nextTick = (firstBucket + 1) * p.tickMs();
        window = new HeatWindow(p.windowBuckets(), p.ringBuckets(), firstBucket + 1 - p.windowBuckets());
    }

    /**
     * Computes every tick due, but in a gap skips the ticks whose window holds no heat (see the
     * class comment); heat waiting ahead of the ring joins it as soon as it fits, before any tick
     * whose window covers it. Returns the number of ticks skipped.
     */
    private long tickUntil(List<Tick> out, ArrayDeque<BucketHeat> waiting, List<BucketHeat> accepted) {
        if (watermark == Long.MIN_VALUE) {
            return 0;
        }
        long last = Math.floorDiv(watermark - p.graceMs(), p.tickMs()) * p.tickMs();
        if (last < nextTick) {
            return 0;
        }
        int w = p.windowBuckets();
        boolean gap = (last - nextTick) / p.tickMs() + 1 > 2L * (w + 1);
        long resume = last / p.tickMs() - w; // the last window/tick + 1 ticks are always computed
        long skipped = 0;
        boolean previousEmpty = false;
        while (nextTick <= last) {
            addFitting(waiting, accepted);
            long end = nextTick / p.tickMs();
            if (gap && end < resume) {
                long held = window.nextHeldBucket(end - w);
                if (!waiting.isEmpty()) {
                    held = Math.min(held, waiting.peekFirst().bucket());
                }
                boolean empty = held >= end;
                if (empty && previousEmpty) {
                    // ticks before held + 1 see an empty window, like the one just computed
                    long to = held >= resume - 1 ? resume : held + 1;
                    skipped += to - end;
                    nextTick = to * p.tickMs();
                    window.slideTo(to - w);
                    continue;
                }
                previousEmpty = empty;
            }
            out.add(tick(nextTick));
            nextTick += p.tickMs();
            window.slideTo(nextTick / p.tickMs() - w);
        }
        return skipped;
    }

    private Tick tick(long end) {
        int n = window.nodeCount();
        long[] nodeHeat = new long[Math.max(n, nodeNames.size())];
        long[] slotHeat = new long[window.slotCount()];
        window.sum(end / p.tickMs(), nodeHeat, slotHeat);

        // known nodes, sorted by id
        List<String> known = new ArrayList<>();
        for (int i = 0; i < nodeNames.size(); i++) {
            String node = nodeNames.get(i);
            if (node == null) {
                continue;
            }
            NodeCapacity c = capacities.get(node);
            if (nodeHeat[i] > 0 || (c != null && c.eventTime() >= end - p.nodeExpiryMs())) {
                known.add(node);
            }
        }
        known.sort(null);
        int k = known.size();
        long[] heat = new long[k];
        long[] used = new long[k];
        long[] total = new long[k];
        int shardCount = 0;
        List<NodeFigures> figures = new ArrayList<>(k);
        for (int j = 0; j < k; j++) {
            String node = known.get(j);
            heat[j] = nodeHeat[nodeIndex.get(node)];
            NodeCapacity c = capacities.get(node);
            if (c != null && c.eventTime() >= end - p.nodeExpiryMs()) {
                used[j] = c.usedBytes();
                total[j] = c.totalBytes();
                shardCount += c.shardSlots().length;
            }
            figures.add(NodeFigures.newBuilder()
                    .setNode(node)
                    .setRack(c == null ? null : c.rack())
                    .setHeatBytes(heat[j])
                    .setUsedBytes(used[j])
                    .setTotalBytes(total[j])
                    .setUtilisation(total[j] > 0 ? (double) used[j] / total[j] : 0.0)
                    .build());
        }
        double[] shardUsed = new double[shardCount];
        int s = 0;
        for (int j = 0; j < k; j++) {
            NodeCapacity c = capacities.get(known.get(j));
            if (total[j] > 0) {
                for (long b : c.shardUsedBytes()) {
                    shardUsed[s++] = b;
                }
            }
        }
        SkewFigures f = SkewFigures.compute(heat, used, total, slotHeat, slotHeat.length,
                shardUsed, shardCount, p.topSlots());

        List<SkewAlert> alerts = new ArrayList<>(2);
        for (AlertStateMachine.Transition t : heatAlert.observe(f.heatGini(), end)) {
            alerts.add(alert(AlertKind.HEAT, t));
        }
        for (AlertStateMachine.Transition t : capacityAlert.observe(f.capacityCv(), end)) {
            alerts.add(alert(AlertKind.CAPACITY, t));
        }
        List<SlotHeat> hottest = new ArrayList<>(f.hottestSlots().length);
        for (int i = 0; i < f.hottestSlots().length; i++) {
            hottest.add(new SlotHeat(f.hottestSlots()[i], f.hottestBytes()[i]));
        }
        List<Long> dense = new ArrayList<>(slotHeat.length);
        for (long h : slotHeat) {
            dense.add(h);
        }
        SkewReport report = SkewReport.newBuilder()
                .setCluster(cluster)
                .setWindowStart(java.time.Instant.ofEpochMilli(end - p.windowMs()))
                .setWindowEnd(java.time.Instant.ofEpochMilli(end))
                .setHeatGini(f.heatGini())
                .setCapacityCv(f.capacityCv())
                .setShardCapacityCv(f.shardCapacityCv())
                .setNodeCount(k)
                .setTotalWriteBytes(f.totalWriteBytes())
                .setNodes(figures)
                .setHottestSlots(hottest)
                .setSlotHeat(dense)
                .setHeatState(heatAlert.state())
                .setCapacityState(capacityAlert.state())
                .build();
        return new Tick(report, alerts);
    }

    private SkewAlert alert(AlertKind kind, AlertStateMachine.Transition t) {
        return SkewAlert.newBuilder()
                .setAlertId(cluster + "/" + kind + "/" + t.to() + "/" + t.time())
                .setCluster(cluster)
                .setKind(kind)
                .setPreviousState(t.from())
                .setState(t.to())
                .setValue(t.value())
                .setThreshold(t.threshold())
                .setSince(java.time.Instant.ofEpochMilli(t.since()))
                .setEventTime(java.time.Instant.ofEpochMilli(t.time()))
                .build();
    }

    private void add(BucketHeat h) {
        for (int i = 0; i < h.nodes().length; i++) {
            window.addNode(h.bucket(), index(h.nodes()[i]), h.nodeBytes()[i]);
        }
        for (int i = 0; i < h.slots().length; i++) {
            window.addSlot(h.bucket(), h.slots()[i], h.slotBytes()[i]);
        }
    }

    private int index(String node) {
        Integer i = nodeIndex.get(node);
        if (i == null) {
            if (freeIndexes.isEmpty()) {
                i = nodeNames.size();
                nodeNames.add(node);
            } else {
                i = freeIndexes.pop();
                nodeNames.set(i, node);
            }
            nodeIndex.put(node, i);
        }
        return i;
    }

    @Override
    public String toString() {
        return "ClusterDetector[" + cluster + ", watermark " + watermark + ", next tick " + nextTick
                + ", heat " + heatAlert.state() + ", capacity " + capacityAlert.state()
                + ", nodes " + Arrays.toString(nodeNames.toArray()) + "]";
    }
}
