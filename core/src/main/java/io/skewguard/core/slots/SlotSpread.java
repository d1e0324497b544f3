package io.skewguard.core.slots;

import io.skewguard.core.ring.CandidateSet;
import java.util.Arrays;

/**
 * Where one slot's keys are written and where they may be read (docs/design.md §3.5): its candidate
 * set (some of them read-only while a node is drained), the <b>spread</b> nodes that take new writes
 * of the slot besides the candidates, and the <b>held</b> nodes that took writes of it during an
 * earlier spread and keep serving them (read-only, no new writes).
 *
 * <ul>
 *   <li>writers: the candidates that are not read-only, then the spread nodes. When no candidate
 *       takes writes and nothing is spread, all candidates (a write must land somewhere).
 *   <li>own writers: the writers the slot has without its spread (where writes go once it narrows).
 *   <li>holders: candidates, then spread, then held nodes: every node a reader may have to probe.
 * </ul>
 *
 * <p>No data moves when a slot spreads or narrows: {@link #widenedTo} only adds writers,
 * {@link #narrowed} turns every spread node into a held one. Node lists are distinct node indexes,
 * pairwise disjoint; read-only nodes are candidates. Immutable; the arrays are copied in.
 */
public final class SlotSpread {

    private static final int[] NONE = new int[0];

    private final CandidateSet candidates;
    private final int[] readOnly;
    private final int[] spread;
    private final int[] held;
    private final CandidateSet writers;
    private final CandidateSet ownWriters;
    private final CandidateSet holders;
    private final boolean writersFallBack;
    /** By holder position: which of the sets of {@link #holderIn} the holder belongs to, as bits. */
    private final byte[] holderSets;

    /** Bit of {@link #holderIn}: the holder is one of the slot's writers now. */
    public static final int WRITER = 1;
    /** Bit of {@link #holderIn}: the holder is one of the slot's own writers (without the spread). */
    public static final int OWN_WRITER = 2;
    /** Bit of {@link #holderIn}: the holder is a candidate. */
    public static final int CANDIDATE = 4;

    private SlotSpread(CandidateSet candidates, int[] readOnly, int[] spread, int[] held) {
        this.candidates = candidates;
        this.readOnly = readOnly.clone();
        this.spread = spread.clone();
        this.held = held.clone();
        for (int node : this.readOnly) {
            if (!candidates.contains(node)) {
                throw new IllegalArgumentException("read-only node " + node + " is not one of the candidates " + candidates);
            }
        }
        int[] all = new int[candidates.size() + this.spread.length + this.held.length];
        int n = 0;
        for (int i = 0; i < candidates.size(); i++) {
            all[n++] = candidates.node(i);
        }
        for (int node : this.spread) {
            all[n++] = node;
        }
        for (int node : this.held) {
            all[n++] = node;
        }
        // CandidateSet refuses duplicates and negative indexes: spread and held nodes are distinct and
        // neither candidates nor each other
        this.holders = new CandidateSet(all);
        int[] own = new int[candidates.size()];
        int owned = 0;
        for (int i = 0; i < candidates.size(); i++) {
            if (!contains(this.readOnly, candidates.node(i))) {
                own[owned++] = candidates.node(i);
            }
        }
        this.writersFallBack = owned == 0 && this.spread.length == 0;
        this.ownWriters = owned == 0 ? candidates : owned == own.length ? candidates : new CandidateSet(Arrays.copyOf(own, owned));
        if (this.spread.length == 0) {
            this.writers = ownWriters;
        } else {
            int[] w = Arrays.copyOf(own, owned + this.spread.length);
            System.arraycopy(this.spread, 0, w, owned, this.spread.length);
            this.writers = new CandidateSet(w);
        }
        this.holderSets = new byte[holders.size()];
        for (int p = 0; p < holderSets.length; p++) {
            int node = holders.node(p);
            holderSets[p] = (byte) ((writers.contains(node) ? WRITER : 0) | (ownWriters.contains(node) ? OWN_WRITER : 0)
                    | (p < candidates.size() ? CANDIDATE : 0));
        }
    }

    /**
     * The sets the holder at position {@code position} of {@link #holders()} belongs to: bits
     * {@link #WRITER}, {@link #OWN_WRITER}, {@link #CANDIDATE} (every holder is a holder).
     * Allocation-free, O(1).
     */
    public int holderIn(int position) {
        return holderSets[position];
    }

    /** A slot that is not spread, with no read-only candidate. */
    public static SlotSpread of(CandidateSet candidates) {
        return new SlotSpread(candidates, NONE, NONE, NONE);
    }

    /**
     * A slot's full routing state.
     *
     * @throws IllegalArgumentException when a read-only node is not a candidate, or the lists repeat a node
     */
    public static SlotSpread of(CandidateSet candidates, int[] readOnly, int[] spread, int[] held) {
        return new SlotSpread(candidates, readOnly, spread, held);
    }

    /**
     * This slot with {@code extension} as its spread nodes (ordered, as {@code HashRing.extension}
     * gives them). Held nodes named again become writers again; nodes spread before and not named
     * now become held, since they hold what they received. Nothing moves.
     */
    public SlotSpread widenedTo(int[] extension) {
        int[] keep = new int[held.length + spread.length];
        int n = 0;
        for (int node : held) {
            if (!contains(extension, node)) {
                keep[n++] = node;
            }
        }
        for (int node : spread) {
            if (!contains(extension, node)) {
                keep[n++] = node;
            }
        }
        return new SlotSpread(candidates, readOnly, extension, Arrays.copyOf(keep, n));
    }

    /** This slot narrowed back: new writes go to its own writers again, every spread node is held. */
    public SlotSpread narrowed() {
        if (spread.length == 0) {
            return this;
        }
        int[] keep = Arrays.copyOf(held, held.length + spread.length);
        System.arraycopy(spread, 0, keep, held.length, spread.length);
        return new SlotSpread(candidates, readOnly, NONE, keep);
    }

    /** The candidate set. */
    public CandidateSet candidates() {
        return candidates;
    }

    /** Nodes a write of the slot may go to (see the class comment). Allocation-free. */
    public CandidateSet writers() {
        return writers;
    }

    /** The writers without the spread: the candidates that are not read-only (all of them if every one is). */
    public CandidateSet ownWriters() {
        return ownWriters;
    }

    /** Candidates, spread and held nodes: every node a reader may have to probe. Allocation-free. */
    public CandidateSet holders() {
        return holders;
    }

    /** True when no candidate takes writes and nothing is spread: the writers fall back to every candidate. */
    public boolean writersFallBack() {
        return writersFallBack;
    }

    /** True when the slot has spread nodes. */
    public boolean isSpread() {
        return spread.length > 0;
    }

    /** Number of spread nodes. */
    public int spreadCount() {
        return spread.length;
    }

    /** Number of held nodes. */
    public int heldCount() {
        return held.length;
    }

    /** A copy of the spread nodes, in order. */
    public int[] spread() {
        return spread.clone();
    }

    /** A copy of the held nodes, in order. */
    public int[] held() {
        return held.clone();
    }

    /** A copy of the read-only candidates. */
    public int[] readOnly() {
        return readOnly.clone();
    }

    /** True when {@code node} is a read-only candidate. */
    public boolean isReadOnly(int node) {
        return contains(readOnly, node);
    }

    /** True when {@code node} may hold keys of the slot (candidate, spread or held). */
    public boolean holds(int node) {
        return holders.contains(node);
    }

    private static boolean contains(int[] nodes, int node) {
        for (int n : nodes) {
            if (n == node) {
                return true;
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlotSpread other && candidates.equals(other.candidates) && Arrays.equals(readOnly, other.readOnly)
                && Arrays.equals(spread, other.spread) && Arrays.equals(held, other.held);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * (31 * candidates.hashCode() + Arrays.hashCode(readOnly)) + Arrays.hashCode(spread)) + Arrays.hashCode(held);
    }

    @Override
    public String toString() {
        return "SlotSpread[candidates " + candidates + ", read-only " + Arrays.toString(readOnly) + ", spread "
                + Arrays.toString(spread) + ", held " + Arrays.toString(held) + "]";
    }
}
