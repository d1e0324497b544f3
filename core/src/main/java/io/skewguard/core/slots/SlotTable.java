package io.skewguard.core.slots;

import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.NodeIndex;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The slot table (docs/design.md §3.2): S slots, each with its candidate set, and a {@code routingEpoch} that
 * grows by one on every change.
 *
 * <p><b>Slots.</b> {@code slot(key) = xxh3(key) mod S}. S is a power of two, so this is
 * {@code xxh3(key) & (S - 1)}: the low bits of the hash, always in {@code [0, S)} whatever the sign of
 * the hash (it equals {@code Math.floorMod(hash, S)} and the unsigned remainder). A key's slot never
 * changes.
 *
 * <p><b>Slot points.</b> Built from the ring, slot {@code s} starts at ring position
 * {@code s · 2^64 / S} ({@link #slotPoint(int, int)}, read as unsigned): the S slots own equal,
 * contiguous ring segments, and a slot's candidate set is {@link HashRing#candidates(long, int)} walked
 * from the start of its segment. Evenly spaced starting points sample the ring without the extra
 * variance random seeds would add, so each node anchors slots in proportion to its share of the ring.
 *
 * <p><b>Changes.</b> Immutable: {@link #apply(SlotUpdate)} returns a new table at epoch + 1 and leaves
 * this one as it was; an update computed against another epoch is refused. Readers can share a table
 * across threads and swap in the new one through a volatile reference.
 *
 * <p>{@link #slotOf} and {@link #locate} cost one xxh3 of the key plus an array read: O(1), no
 * allocation.
 */
public final class SlotTable {

    /** docs/design.md §3.2: S = 256 by default. */
    public static final int DEFAULT_SLOT_COUNT = 256;
    /** docs/design.md §3.2: S at most 4096. */
    public static final int MAX_SLOT_COUNT = 4096;
    /** docs/design.md §3.2: candidate sets of m = 8 nodes by default (fewer when the ring has fewer). */
    public static final int DEFAULT_CANDIDATES = 8;

    private final NodeIndex nodes;
    private final CandidateSet[] sets;
    private final long routingEpoch;
    private final int mask;

    private SlotTable(NodeIndex nodes, CandidateSet[] sets, long routingEpoch) {
        this.nodes = nodes;
        this.sets = sets;
        this.routingEpoch = routingEpoch;
        this.mask = sets.length - 1;
    }

    /** A table of 256 slots built from {@code ring} with candidate sets of {@code m} nodes, at epoch 0. */
    public static SlotTable fromRing(HashRing ring, int m) {
        return fromRing(ring, m, DEFAULT_SLOT_COUNT);
    }

    /** A table of {@code slotCount} slots built from {@code ring}, candidate sets of {@code m}, epoch 0. */
    public static SlotTable fromRing(HashRing ring, int m, int slotCount) {
        requireSlotCount(slotCount);
        CandidateSet[] sets = new CandidateSet[slotCount];
        for (int s = 0; s < slotCount; s++) {
            sets[s] = ring.candidates(slotPoint(s, slotCount), m);
        }
        return new SlotTable(ring.nodes(), sets, 0);
    }

    /**
     * A table restored from its rows (for example from the compacted slot-table topic): slot {@code s}
     * gets {@code sets.get(s)}.
     */
    public static SlotTable of(NodeIndex nodes, List<CandidateSet> sets, long routingEpoch) {
        Objects.requireNonNull(nodes, "nodes");
        requireSlotCount(sets.size());
        if (routingEpoch < 0) {
            throw new IllegalArgumentException("routing epoch must not be negative, but is " + routingEpoch);
        }
        CandidateSet[] array = sets.toArray(new CandidateSet[0]);
        for (int s = 0; s < array.length; s++) {
            requireKnownNodes(nodes, s, Objects.requireNonNull(array[s], "candidate set of slot " + s));
        }
        return new SlotTable(nodes, array, routingEpoch);
    }

    /**
     * Checks that {@code slotCount} is a power of two in {@code [1, 4096]}.
     *
     * @throws IllegalArgumentException naming the rule otherwise
     */
    public static int requireSlotCount(int slotCount) {
        if (slotCount < 1 || slotCount > MAX_SLOT_COUNT || Integer.bitCount(slotCount) != 1) {
            throw new IllegalArgumentException("slot count must be a power of two between 1 and "
                    + MAX_SLOT_COUNT + ", but is " + slotCount);
        }
        return slotCount;
    }

    /** Ring position where slot {@code slot} of {@code slotCount} starts: {@code slot · 2^64 / slotCount}. */
    public static long slotPoint(int slot, int slotCount) {
        requireSlotCount(slotCount);
        if (slot < 0 || slot >= slotCount) {
            throw new IllegalArgumentException("slot " + slot + " is outside [0, " + slotCount + ")");
        }
        return slotCount == 1 ? 0L : (long) slot << (64 - Integer.numberOfTrailingZeros(slotCount));
    }

    /** The slot of a key hash among {@code slotCount} slots (a power of two): {@code keyHash & (S-1)}. */
    public static int slotOf(long keyHash, int slotCount) {
        return (int) (keyHash & (slotCount - 1));
    }

    // ---------------------------------------------------------------- reads

    /** Number of slots S. */
    public int slotCount() {
        return sets.length;
    }

    /** The routing epoch: 0 when built, + 1 per applied update. */
    public long routingEpoch() {
        return routingEpoch;
    }

    /** The node-id table the candidate sets index into. */
    public NodeIndex nodes() {
        return nodes;
    }

    /** The slot of a key hash. Allocation-free. */
    public int slotOfHash(long keyHash) {
        return (int) (keyHash & mask);
    }

    /** The slot of {@code key}: {@code xxh3(key chars) mod S}. Allocation-free. */
    public int slotOf(CharSequence key) {
        return slotOfHash(HashRing.hashKey(key));
    }

    /** The slot of {@code key}: {@code xxh3(key bytes) mod S}. Allocation-free. */
    public int slotOf(byte[] key) {
        return slotOfHash(HashRing.hashKey(key));
    }

    /** The candidate set of {@code slot}. */
    public CandidateSet candidates(int slot) {
        return sets[slot];
    }

    /** The ids of the candidate set of {@code slot}, anchor first. */
    public List<String> candidateIds(int slot) {
        return sets[slot].ids(nodes);
    }

    /** The candidate set of the slot of a key hash. Allocation-free. */
    public CandidateSet locateHash(long keyHash) {
        return sets[slotOfHash(keyHash)];
    }

    /** The candidate set of the slot of {@code key}. Allocation-free. */
    public CandidateSet locate(CharSequence key) {
        return sets[slotOf(key)];
    }

    /** The candidate set of the slot of {@code key}. Allocation-free. */
    public CandidateSet locate(byte[] key) {
        return sets[slotOf(key)];
    }

    // ---------------------------------------------------------------- changes

    /**
     * This table with {@code update} applied, at routing epoch + 1.
     *
     * @throws StaleSlotUpdateException when {@code update.expectedEpoch()} is not this table's epoch
     *                                  ("stale update: expected routing epoch 7 but table is at 9")
     * @throws IllegalArgumentException when the slot is out of range or the set names an unknown node
     */
    public SlotTable apply(SlotUpdate update) {
        if (update.expectedEpoch() != routingEpoch) {
            throw new StaleSlotUpdateException(update.expectedEpoch(), routingEpoch);
        }
        if (update.slot() >= sets.length) {
            throw new IllegalArgumentException(
                    "slot " + update.slot() + " is outside [0, " + sets.length + ")");
        }
        requireKnownNodes(nodes, update.slot(), update.candidates());
        CandidateSet[] changed = sets.clone();
        changed[update.slot()] = update.candidates();
        return new SlotTable(nodes, changed, routingEpoch + 1);
    }

    /**
     * The update that replaces {@code sourceId} by {@code targetId} in the candidate set of {@code slot}
     * (same position), expected at this table's epoch: what a committed migration applies.
     */
    public SlotUpdate replacement(int slot, String sourceId, String targetId) {
        if (slot < 0 || slot >= sets.length) {
            throw new IllegalArgumentException("slot " + slot + " is outside [0, " + sets.length + ")");
        }
        CandidateSet replaced = sets[slot].replace(nodes.require(sourceId), nodes.require(targetId));
        return new SlotUpdate(routingEpoch, slot, replaced);
    }

    /**
     * This table over a grown node table (a node joined, so migrations may target it). Routing does not
     * change, so neither does the epoch.
     *
     * @throws IllegalArgumentException when {@code grown} does not extend this table's node table
     */
    public SlotTable withNodes(NodeIndex grown) {
        if (!grown.extendsIndex(nodes)) {
            throw new IllegalArgumentException(grown + " does not extend " + nodes);
        }
        return new SlotTable(grown, sets, routingEpoch);
    }

    private static void requireKnownNodes(NodeIndex nodes, int slot, CandidateSet set) {
        for (int i = 0; i < set.size(); i++) {
            if (set.node(i) >= nodes.size()) {
                throw new IllegalArgumentException("candidate set of slot " + slot + " names node index "
                        + set.node(i) + ", but only " + nodes.size() + " nodes are known");
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlotTable other && routingEpoch == other.routingEpoch
                && nodes.equals(other.nodes) && Arrays.equals(sets, other.sets);
    }

    @Override
    public int hashCode() {
        return Objects.hash(nodes, routingEpoch, Arrays.hashCode(sets));
    }

    @Override
    public String toString() {
        return "SlotTable[" + sets.length + " slots, routing epoch " + routingEpoch + ", " + nodes.size() + " nodes]";
    }
}
