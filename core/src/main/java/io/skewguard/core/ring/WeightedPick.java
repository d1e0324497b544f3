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
 * <p><b>Cost.</b> One 8-byte xxh3 per candidate. {@link #pick} takes a logarithm only when it must:
 * with {@code t = 1 - u}, {@code 2t/(1+u) <= -ln(u) <= t(1+u)/(2u)}, so each candidate's score lies in
 * a known interval, tight for the small scores that win. A candidate whose interval starts at or above
 * the best's end is skipped; one whose interval ends below the best's start becomes the best; only
 * when the two overlap are both logarithms taken and the scores compared exactly as {@link #score}
 * computes them. So the result is the argmin of {@link #score}, ties to the earlier candidate, as if
 * every score were computed. The bounds' comparisons multiply out the fractions and never divide.
 * {@link #pickTop} (read probing, replica placement) scores every candidate, since it returns the
 * scores. O(m) for {@link #pick}, O(m·r) comparisons for {@link #pickTop}. Primitives only: no boxing,
 * no allocation per call; results go to caller-provided arrays. Immutable and thread-safe.
 */
public final class WeightedPick {

    private static final LongHashFunction XX3 = LongHashFunction.xx3();
    private static final double TWO_POW_MINUS_53 = 0x1.0p-53;
    /** Margins on the bounds' comparisons, far wider than the rounding of a logarithm and a division. */
    private static final double BOUND_DOWN = 1.0 - 1e-9;
    private static final double BOUND_UP = 1.0 + 1e-9;

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
        // The best so far as an interval [loN/loD, hiN/hiD] around its score, exact (lo = hi, D = 1)
        // once its logarithm has been taken; fractions, so that no comparison divides.
        int best = -1;
        double bestU = 0;
        double bestWeight = 0;
        boolean bestExact = false;
        double bestLoN = 0;
        double bestLoD = 1;
        double bestHiN = 0;
        double bestHiD = 1;
        for (int i = 0; i < count; i++) {
            int node = candidates[i];
            double e = effectiveWeight[node];
            if (!(e > 0)) {
                continue;
            }
            double u = uniform(keyHash, seeds[node]);
            double t = 1.0 - u;
            double loN = 2.0 * t;
            double loD = (1.0 + u) * e;
            if (best >= 0 && loN * bestHiD * BOUND_DOWN >= bestHiN * loD * BOUND_UP) {
                continue; // cannot score below the best: ties go to the earlier candidate
            }
            double hiN = t * (1.0 + u);
            double hiD = 2.0 * u * e;
            boolean exact = false;
            if (best >= 0 && !(hiN * bestLoD * BOUND_UP < bestLoN * hiD * BOUND_DOWN)) {
                // the intervals overlap: compare the exact scores, as score() computes them
                if (!bestExact) {
                    bestLoN = bestHiN = -Math.log(bestU) / bestWeight;
                    bestLoD = bestHiD = 1;
                    bestExact = true;
                }
                double score = -Math.log(u) / e;
                if (!(score < bestLoN)) {
                    continue;
                }
                loN = hiN = score;
                loD = hiD = 1;
                exact = true;
            }
            // the first candidate that can take writes, or one below the best
            best = node;
            bestU = u;
            bestWeight = e;
            bestExact = exact;
            bestLoN = loN;
            bestLoD = loD;
            bestHiN = hiN;
            bestHiD = hiD;
        }
        if (best < 0) {
            throw noRoom(count);
        }
        return best;
    }

    /** {@link #pick(long, int[], int, double[])} over a candidate set. Allocation-free. */
    public int pick(long keyHash, CandidateSet candidates, double[] effectiveWeight) {
        return pick(keyHash, candidates.sharedNodes(), candidates.size(), effectiveWeight);
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
