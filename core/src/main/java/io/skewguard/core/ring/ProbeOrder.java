package io.skewguard.core.ring;

import io.skewguard.core.slots.SlotSpread;

/**
 * The order a reader probes a slot's holders in (docs/design.md §3.5), built from the same scores
 * {@link WeightedPick} places writes by:
 *
 * <ol>
 *   <li>the winner among the slot's writers now (where a key written now went);
 *   <li>the winner among its own writers, without the spread (where a key written before the spread,
 *       or after it narrowed, went);
 *   <li>the winner among all its candidates, read-only ones too (where a key written before a drain
 *       mark went);
 *   <li>the winner among all its holders (where a key written during an earlier spread went, now that
 *       its spread nodes are held);
 *   <li>the other candidates by score, lowest first, as {@link WeightedPick#pickTop} ranks them
 *       (nodes with no positive weight last, in candidate order);
 *   <li>the other spread and held nodes by score, the same way.
 * </ol>
 *
 * Each node appears once, so a read probes at most {@code m + spread + held} nodes; with the weights
 * a key was written under, it is found at probe 1 if written now and at probe 1 or 2 if written
 * before the spread (probe 2 exactly when the spread's winner is a spread node). A key written
 * before the spread under other weights (or moved there by a migration) is on a candidate, so it is
 * found within the first {@code m + 2} probes whatever the weights did since. For a slot that is not
 * spread and has no read-only candidate the order is exactly {@code pickTop} over the candidates.
 *
 * <p>Not thread-safe (scratch arrays): one instance per reading thread, or a new one per call.
 * Allocation-free once built.
 */
public final class ProbeOrder {

    private int[] position;
    private double[] score;
    private boolean[] taken;

    /** An order for slots of up to {@code holders} holders (grows when a slot has more). */
    public ProbeOrder(int holders) {
        this.position = new int[Math.max(1, holders)];
        this.score = new double[Math.max(1, holders)];
        this.taken = new boolean[Math.max(1, holders)];
    }

    /**
     * Writes the probe order of key hash {@code keyHash} in {@code slot} to {@code out} (node indexes)
     * and returns how many were written: {@code slot.holders().size()}.
     *
     * @param effective effective weight by node index ({@code w × freeRatio})
     * @throws ArrayIndexOutOfBoundsException when {@code out} is shorter than the slot's holders
     */
    public int order(WeightedPick pick, long keyHash, SlotSpread slot, double[] effective, int[] out) {
        CandidateSet holders = slot.holders();
        int n = holders.size();
        if (position.length < n) {
            position = new int[n];
            score = new double[n];
            taken = new boolean[n];
        }
        java.util.Arrays.fill(taken, 0, n, false);
        // holders by score, stable insertion sort (ties: holder order, as pickTop)
        for (int p = 0; p < n; p++) {
            int node = holders.node(p);
            double s = pick.score(keyHash, node, effective[node]);
            int at = p;
            while (at > 0 && s < score[at - 1]) {
                score[at] = score[at - 1];
                position[at] = position[at - 1];
                at--;
            }
            score[at] = s;
            position[at] = p;
        }
        int written = 0;
        written = firstOf(slot, SlotSpread.WRITER, holders, n, out, written);
        written = firstOf(slot, SlotSpread.OWN_WRITER, holders, n, out, written);
        written = firstOf(slot, SlotSpread.CANDIDATE, holders, n, out, written);
        written = firstOf(slot, 0, holders, n, out, written);
        for (int pass = 0; pass < 2; pass++) { // the other candidates, then the other spread and held nodes
            for (int r = 0; r < n; r++) {
                int p = position[r];
                if (!taken[p] && ((slot.holderIn(p) & SlotSpread.CANDIDATE) != 0) == (pass == 0)) {
                    taken[p] = true;
                    out[written++] = holders.node(p);
                }
            }
        }
        return written;
    }

    /**
     * Appends the best-scoring holder with a positive weight in the set of {@code bit} ({@code 0}: every
     * holder), unless it is there already.
     */
    private int firstOf(SlotSpread slot, int bit, CandidateSet holders, int n, int[] out, int written) {
        for (int r = 0; r < n; r++) {
            if (score[r] == Double.POSITIVE_INFINITY) {
                return written; // no member of the set can take writes: nothing was written there by the pick
            }
            int p = position[r];
            if (bit == 0 || (slot.holderIn(p) & bit) != 0) {
                if (taken[p]) {
                    return written;
                }
                taken[p] = true;
                out[written] = holders.node(p);
                return written + 1;
            }
        }
        return written;
    }
}
