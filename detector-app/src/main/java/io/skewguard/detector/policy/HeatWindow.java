package io.skewguard.detector.policy;

import java.util.Arrays;

/**
 * Write heat of one cluster over a sliding window, kept in per-tick buckets: a ring of
 * {@code capacity} buckets, each holding the bytes written per node and per slot during one tick.
 *
 * <p>Bucket {@code b} covers event time {@code [b * tick, (b + 1) * tick)}. The window ending at
 * bucket {@code e} (exclusive) is the sum of buckets {@code [e - windowBuckets, e)}. The ring holds
 * buckets {@code [firstBucket, firstBucket + capacity)}: the window of the next tick plus room for
 * events that are ahead of it (the grace period and the tick being filled).
 *
 * <p>Cost: {@link #addNode}/{@link #addSlot} O(1) (amortised; the arrays grow when a new node
 * index or slot appears), {@link #slideTo} O(1) (stale buckets are cleared lazily when their ring
 * position is reused), {@link #sum} O(windowBuckets × (nodes + slots)) — per tick, never per event.
 * Not thread safe.
 */
public final class HeatWindow {

    private static final long EMPTY = Long.MIN_VALUE;

    private final int windowBuckets;
    private final int capacity;
    private final long[] bucketIds;
    private final long[][] nodeHeat;
    private final long[][] slotHeat;
    private int nodes;
    private int slots;
    private long firstBucket;

    /**
     * @param windowBuckets buckets per window (window / tick), at least 1
     * @param capacity ring size in buckets, at least {@code windowBuckets + 1}
     * @param firstBucket the oldest bucket the ring accepts at first
     */
    public HeatWindow(int windowBuckets, int capacity, long firstBucket) {
        if (windowBuckets < 1 || capacity <= windowBuckets) {
            throw new IllegalArgumentException(
                    "need 1 <= windowBuckets < capacity, got " + windowBuckets + " and " + capacity);
        }
        this.windowBuckets = windowBuckets;
        this.capacity = capacity;
        this.bucketIds = new long[capacity];
        Arrays.fill(bucketIds, EMPTY);
        this.nodeHeat = new long[capacity][];
        this.slotHeat = new long[capacity][];
        for (int i = 0; i < capacity; i++) {
            nodeHeat[i] = new long[8];
            slotHeat[i] = new long[16];
        }
        this.firstBucket = firstBucket;
    }

    public int windowBuckets() {
        return windowBuckets;
    }

    public int capacity() {
        return capacity;
    }

    /** The oldest bucket still held. */
    public long firstBucket() {
        return firstBucket;
    }

    /** Whether {@code bucket} lies in the ring's current range. */
    public boolean fits(long bucket) {
        return bucket >= firstBucket && bucket - firstBucket < capacity;
    }

    /** Number of node indexes seen (the length {@link #sum} fills for nodes). */
    public int nodeCount() {
        return nodes;
    }

    /** Highest slot seen + 1 (the length {@link #sum} fills for slots). */
    public int slotCount() {
        return slots;
    }

    /** Adds {@code bytes} of heat to node {@code node} in {@code bucket}, which must {@link #fits fit}. */
    public void addNode(long bucket, int node, long bytes) {
        int pos = position(bucket);
        if (node >= nodeHeat[pos].length) {
            nodeHeat[pos] = Arrays.copyOf(nodeHeat[pos], Math.max(node + 1, nodeHeat[pos].length * 2));
        }
        nodeHeat[pos][node] += bytes;
        nodes = Math.max(nodes, node + 1);
    }

    /** Adds {@code bytes} of heat to slot {@code slot} in {@code bucket}, which must {@link #fits fit}. */
    public void addSlot(long bucket, int slot, long bytes) {
        int pos = position(bucket);
        if (slot >= slotHeat[pos].length) {
            slotHeat[pos] = Arrays.copyOf(slotHeat[pos], Math.max(slot + 1, slotHeat[pos].length * 2));
        }
        slotHeat[pos][slot] += bytes;
        slots = Math.max(slots, slot + 1);
    }

    /** Forgets every bucket before {@code newFirstBucket}; never moves backwards. */
    public void slideTo(long newFirstBucket) {
        firstBucket = Math.max(firstBucket, newFirstBucket);
    }

    /**
     * Sums the window {@code [endBucket - windowBuckets, endBucket)} into {@code nodeOut} (length
     * at least {@link #nodeCount()}) and {@code slotOut} (length at least {@link #slotCount()}),
     * overwriting them. Buckets before {@link #firstBucket()} count as empty.
     */
    public void sum(long endBucket, long[] nodeOut, long[] slotOut) {
        Arrays.fill(nodeOut, 0, nodes, 0L);
        Arrays.fill(slotOut, 0, slots, 0L);
        for (long b = Math.max(endBucket - windowBuckets, firstBucket); b < endBucket; b++) {
            int pos = (int) Math.floorMod(b, (long) capacity);
            if (bucketIds[pos] != b) {
                continue;
            }
            long[] nh = nodeHeat[pos];
            for (int i = 0, n = Math.min(nodes, nh.length); i < n; i++) {
                nodeOut[i] += nh[i];
            }
            long[] sh = slotHeat[pos];
            for (int i = 0, n = Math.min(slots, sh.length); i < n; i++) {
                slotOut[i] += sh[i];
            }
        }
    }

    /**
     * The oldest bucket at or after {@code from} that the ring holds (heat was added to it and it
     * has not slid out), or {@link Long#MAX_VALUE} when there is none. O(capacity).
     */
    public long nextHeldBucket(long from) {
        long next = Long.MAX_VALUE;
        for (long b : bucketIds) {
            if (b != EMPTY && b >= from && b < next && fits(b)) {
                next = b;
            }
        }
        return next;
    }

    /** Heat of node {@code node} summed over every bucket the ring holds (window and ahead). */
    public long retainedNodeHeat(int node) {
        long total = 0;
        for (int pos = 0; pos < capacity; pos++) {
            long b = bucketIds[pos];
            if (b != EMPTY && fits(b) && node < nodeHeat[pos].length) {
                total += nodeHeat[pos][node];
            }
        }
        return total;
    }

    private int position(long bucket) {
        if (!fits(bucket)) {
            throw new IllegalArgumentException("bucket " + bucket + " outside the ring ["
                    + firstBucket + ", " + (firstBucket + capacity) + ")");
        }
        int pos = (int) Math.floorMod(bucket, (long) capacity);
        if (bucketIds[pos] != bucket) {
            // the position held an evicted bucket: reuse its arrays
            Arrays.fill(nodeHeat[pos], 0L);
            Arrays.fill(slotHeat[pos], 0L);
            bucketIds[pos] = bucket;
        }
        return pos;
    }
}
