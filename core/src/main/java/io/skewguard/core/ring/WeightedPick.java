package io.skewguard.core.ring;

import net.openhft.hashing.LongHashFunction;

/**
 * Deterministic weighted rendezvous among a candidate set: the write placement of docs/design.md §3.3.
 *
 * <p><b>Formula.</b> For key hash {@code k} and candidate node {@code j} with seed {@code s_j}
 * ({@link NodeIndex#seed(int)}, {@code xxh3(id)}) and effective weight {@code e_j = w_j × freeRatio_j}:
 *
 * <pre>
 *   u_j     = ((xxh3_64(k XOR s_j) >>> 11) + 0.5) / 2^53          uniform in (0, 1), never 0 or 1
 *   score_j = -ln(u_j) / e_j                                       exponential with rate e_j
 *   winner  = argmin_j score_j                                     ties: earlier candidate wins
 * </pre>
 *
 * The minimum of independent exponentials with rates {@code e_j} falls on {@code j} with probability
 * {@code e_j / sum(e)}: writes spread in proportion to effective weight. The same key under the same
 * weights always gets the same node, and changing one node's weight changes only that node's score,
 * so the only keys that move are those moving to or from that node.
 *
 * <p><b>Full nodes.</b> A node whose effective weight is not positive (0 when full; negative or NaN
 * are treated the same) gets score {@code +∞}. {@link #pick} never returns such a node: when every
 * candidate is full it throws {@link IllegalStateException} rather than overfill one — there is no
 * room for the write in the slot. {@link #pickTop} (read probing, replica placement) orders them
 * last, in candidate-set order, and reports how many of its answers can take writes.
 *
 * <p><b>Cost.</b> One 8-byte xxh3 per candidate. {@link #pick} takes one {@code Math.log} per
 * candidate that can still win: since {@code -ln(u) >= 1 - u}, a candidate whose {@code (1 - u) / e}
 * is already at or above the best score so far is skipped without the logarithm, which changes no
 * result. {@link #pickTop} scores every candidate (the same pruning measured slower there: it chains
 * each candidate to the previous insertion). O(m) for {@link #pick}, O(m·r) comparisons for
 * {@link #pickTop}. Primitives only: no boxing, no allocation per call; results
 * go to caller-provided arrays. Immutable and thread-safe.
 */
public final class WeightedPick {

    private static final LongHashFunction XX3 = LongHashFunction.xx3();
    private static final double TWO_POW_MINUS_53 = 0x1.0p-53;
    private static final double BOUND_SLACK = 1.0 - 1e-9;

    private final NodeIndex nodes;
    private final long[] seeds;

    private WeightedPick(NodeIndex nodes) {
        this.nodes = nodes;
        this.seeds = nodes.seedArray();
    }

    /**
     * A pick over the nodes of {@code nodes}. Candidates must be indexes of that table; when the table
     * grows (a node joins), make a new pick from the grown table.
     */
    public static WeightedPick over(NodeIndex nodes) {
        return new WeightedPick(nodes);
    }

    /** The node table this pick reads seeds from. */
    public NodeIndex nodes() {
        return nodes;
    }

    /**
     * The effective weight of a node: {@code weightFactor × freeRatio} with
     * {@code freeRatio = 1 − used/total} clamped to [0, 1]; 0 for a node with no capacity.
     */
    public static double effectiveWeight(double weightFactor, long usedBytes, long totalBytes) {
        if (totalBytes <= 0) {
            return 0.0;
        }
        double freeRatio = Math.max(0.0, Math.min(1.0, 1.0 - (double) usedBytes / totalBytes));
        return weightFactor * freeRatio;
    }

    /** {@code u} for a key hash and a node seed: uniform in (0, 1) from the top 53 bits of xxh3. */
    public static double uniform(long keyHash, long nodeSeed) {
        long h = XX3.hashLong(keyHash ^ nodeSeed);
        return ((h >>> 11) + 0.5) * TWO_POW_MINUS_53;
    }

    /** {@code -ln(u) / effectiveWeight}, or {@code +∞} when the weight is not positive. */
    public double score(long keyHash, int node, double effectiveWeight) {
        if (!(effectiveWeight > 0)) {
            return Double.POSITIVE_INFINITY;
        }
        return -Math.log(uniform(keyHash, seeds[node])) / effectiveWeight;
    }

    /**
     * The winning node index among {@code candidates[0 .. count-1]}, with {@code effectiveWeight}
     * indexed by node index. Allocation-free.
     *
     * @throws IllegalStateException when no candidate has a positive effective weight (all full)
     */
    public int pick(long keyHash, int[] candidates, int count, double[] effectiveWeight) {
        int best = -1;
        double bestScore = Double.POSITIVE_INFINITY;
        for (int i = 0; i < count; i++) {
            int node = candidates[i];
            double score = scoreBelow(keyHash, node, effectiveWeight[node], bestScore);
            if (score < bestScore) {
                bestScore = score;
                best = node;
            }
        }
        if (best < 0) {
            throw noRoom(count);
        }
        return best;
    }

    /** {@link #pick(long, int[], int, double[])} over a candidate set. Allocation-free. */
    public int pick(long keyHash, CandidateSet candidates, double[] effectiveWeight) {
        int best = -1;
        double bestScore = Double.POSITIVE_INFINITY;
        int count = candidates.size();
        for (int i = 0; i < count; i++) {
            int node = candidates.node(i);
            double score = scoreBelow(keyHash, node, effectiveWeight[node], bestScore);
            if (score < bestScore) {
                bestScore = score;
                best = node;
            }
        }
        if (best < 0) {
            throw noRoom(count);
        }
        return best;
    }

    /**
     * The {@code r} lowest-scoring distinct candidates in score order (reads probe in this order;
     * {@code outNodes[0]} is what {@link #pick} returns when it does not throw). Candidates with no
     * positive weight come last, in candidate order. Writes {@code min(r, count)} node indexes to
     * {@code outNodes} and their scores to {@code outScores}. Allocation-free; O(count·r).
     *
     * @return how many of the written nodes have a positive effective weight (can take a write)
     */
    public int pickTop(long keyHash, int[] candidates, int count, double[] effectiveWeight,
                       int r, int[] outNodes, double[] outScores) {
        requireReplicas(r);
        int filled = 0;
        int limit = Math.min(r, count);
        for (int i = 0; i < count; i++) {
            int node = candidates[i];
            filled = insert(node, score(keyHash, node, effectiveWeight[node]), filled, limit, outNodes, outScores);
        }
        return positives(filled, outScores);
    }

    /** {@link #pickTop(long, int[], int, double[], int, int[], double[])} over a candidate set. */
    public int pickTop(long keyHash, CandidateSet candidates, double[] effectiveWeight,
                       int r, int[] outNodes, double[] outScores) {
        requireReplicas(r);
        int filled = 0;
        int count = candidates.size();
        int limit = Math.min(r, count);
        for (int i = 0; i < count; i++) {
            int node = candidates.node(i);
            filled = insert(node, score(keyHash, node, effectiveWeight[node]), filled, limit, outNodes, outScores);
        }
        return positives(filled, outScores);
    }

    /**
     * The exact score when it may be below {@code bound}, else {@code +∞} (which loses every strict
     * comparison against {@code bound}, so callers see the same result as with the exact score).
     * Since {@code -ln(u) >= 1 - u}, a candidate whose {@code (1 - u) / e} already reaches the bound
     * cannot beat it and skips the logarithm; {@code BOUND_SLACK} keeps the bound safely below the
     * computed {@code -Math.log(u)} despite its last-bit rounding.
     */
    private double scoreBelow(long keyHash, int node, double effectiveWeight, double bound) {
        if (!(effectiveWeight > 0)) {
            return Double.POSITIVE_INFINITY;
        }
        double u = uniform(keyHash, seeds[node]);
        if (bound != Double.POSITIVE_INFINITY && (1.0 - u) * BOUND_SLACK / effectiveWeight >= bound) {
            return Double.POSITIVE_INFINITY;
        }
        return -Math.log(u) / effectiveWeight;
    }

    /** Insertion into the sorted prefix {@code [0, filled)}, keeping at most {@code limit}; stable. */
    private static int insert(int node, double score, int filled, int limit, int[] outNodes, double[] outScores) {
        int pos = filled;
        while (pos > 0 && score < outScores[pos - 1]) {
            pos--;
        }
        if (pos >= limit) {
            return filled;
        }
        int last = Math.min(filled, limit - 1);
        for (int k = last; k > pos; k--) {
            outNodes[k] = outNodes[k - 1];
            outScores[k] = outScores[k - 1];
        }
        outNodes[pos] = node;
        outScores[pos] = score;
        return Math.min(filled + 1, limit);
    }

    private static void requireReplicas(int r) {
        if (r < 1) {
            throw new IllegalArgumentException("pickTop needs r >= 1, but r is " + r);
        }
    }

    private static int positives(int filled, double[] outScores) {
        int n = 0;
        while (n < filled && outScores[n] != Double.POSITIVE_INFINITY) {
            n++;
        }
        return n;
    }

    private static IllegalStateException noRoom(int count) {
        return new IllegalStateException("no candidate can take the write: all " + count
                + " candidates have effective weight 0 (full, or weight not positive)");
    }
}
