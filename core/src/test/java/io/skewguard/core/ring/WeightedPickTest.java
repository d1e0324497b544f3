package io.skewguard.core.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Scale;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

class WeightedPickTest {

    private static final NodeIndex NODES = NodeIndex.of("n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9");
    private static final WeightedPick PICK = WeightedPick.over(NODES);
    private static final int[] EIGHT = {0, 1, 2, 3, 4, 5, 6, 7};

    private static double[] weights(double... w) {
        return Arrays.copyOf(w, NODES.size());
    }

    @Test
    void pickFrequenciesMatchEffectiveWeightsWithinChiSquareBound() {
        // effective weight = weight factor x free ratio, deliberately uneven
        double[] w = weights(0.5 * 0.9, 0.75 * 0.5, 1.0 * 1.0, 1.0 * 0.3, 1.25 * 0.8, 1.5 * 0.6, 1.75 * 0.2, 2.0 * 0.7);
        int keys = 1_000_000;
        long[] observed = new long[NODES.size()];
        for (long k = 0; k < keys; k++) {
            observed[PICK.pick(HashRing.hashKey(k), EIGHT, 8, w)]++;
        }
        double total = Arrays.stream(w).sum();
        double chiSquare = 0;
        for (int node : EIGHT) {
            double expected = keys * w[node] / total;
            chiSquare += (observed[node] - expected) * (observed[node] - expected) / expected;
        }
        // df = 7, 0.999 quantile
        assertThat(chiSquare).isLessThan(24.32);
        assertThat(observed[8] + observed[9]).as("nodes outside the candidate set").isZero();
    }

    @Test
    void sameKeyAndSameWeightsAlwaysGiveTheSameNode() {
        double[] w = weights(1, 2, 0.5, 1, 1, 1.5, 0.7, 1.1);
        WeightedPick other = WeightedPick.over(NodeIndex.of(NODES.ids()));
        for (long k = 0; k < 10_000; k++) {
            long hash = HashRing.hashKey(k);
            int first = PICK.pick(hash, EIGHT, 8, w);
            assertThat(PICK.pick(hash, EIGHT, 8, w)).isEqualTo(first);
            assertThat(other.pick(hash, CandidateSet.of(EIGHT), w)).isEqualTo(first);
        }
    }

    @Test
    void placementDependsOnNodeIdsNotOnIndexOrCandidateOrder() {
        NodeIndex reversed = NodeIndex.of("n7", "n6", "n5", "n4", "n3", "n2", "n1", "n0");
        WeightedPick pick = WeightedPick.over(reversed);
        double[] w = {1, 1, 1, 1, 1, 1, 1, 1};
        int[] candidates = {3, 1, 7, 0, 2, 6, 5, 4};
        for (long k = 0; k < 10_000; k++) {
            long hash = HashRing.hashKey(k);
            String expected = NODES.id(PICK.pick(hash, EIGHT, 8, weights(1, 1, 1, 1, 1, 1, 1, 1)));
            assertThat(reversed.id(pick.pick(hash, candidates, 8, w))).isEqualTo(expected);
        }
    }

    @Test
    void raisingOneWeightOnlyMovesKeysToThatNode() {
        double[] before = weights(1, 1, 1, 1, 1, 1, 1, 1);
        double[] after = before.clone();
        after[3] = 1.4;
        int moved = 0;
        for (long k = 0; k < 200_000; k++) {
            long hash = HashRing.hashKey(k);
            int was = PICK.pick(hash, EIGHT, 8, before);
            int is = PICK.pick(hash, EIGHT, 8, after);
            if (was != is) {
                moved++;
                assertThat(is).isEqualTo(3);
            }
        }
        // share of node 3 goes from 1/8 to 1.4/8.4: about 4.2 % of keys move
        assertThat(moved).isBetween(7_000, 9_700);
    }

    @Test
    void loweringOneWeightOnlyMovesKeysAwayFromThatNode() {
        double[] before = weights(1, 1, 1, 1, 1, 1, 1, 1);
        double[] after = before.clone();
        after[5] = 0.5;
        int moved = 0;
        for (long k = 0; k < 200_000; k++) {
            long hash = HashRing.hashKey(k);
            int was = PICK.pick(hash, EIGHT, 8, before);
            int is = PICK.pick(hash, EIGHT, 8, after);
            if (was != is) {
                moved++;
                assertThat(was).isEqualTo(5);
            }
        }
        assertThat(moved).isPositive();
    }

    @Property(tries = 50)
    void changingAnyOneWeightMovesKeysOnlyToOrFromThatNode(
            @ForAll @Size(8) List<@DoubleRange(min = 0.05, max = 2.0) Double> start,
            @ForAll @IntRange(min = 0, max = 7) int changed,
            @ForAll @DoubleRange(min = 0.0, max = 4.0) double newWeight) {
        double[] before = new double[NODES.size()];
        for (int i = 0; i < 8; i++) {
            before[i] = start.get(i);
        }
        double[] after = before.clone();
        after[changed] = newWeight;
        for (long k = 0; k < 2_000; k++) {
            long hash = HashRing.hashKey(k);
            int was = PICK.pick(hash, EIGHT, 8, before);
            int is = PICK.pick(hash, EIGHT, 8, after);
            if (was != is) {
                assertThat(was == changed || is == changed).as("key %d moved %d -> %d", k, was, is).isTrue();
            }
        }
    }

    @Property(tries = 40)
    void pickIsExactlyTheLowestScoreAndPickTopTheExactRanking(
            @ForAll @Size(8) List<@DoubleRange(min = 0.001, max = 1000.0) @Scale(4) Double> weights) {
        double[] w = new double[NODES.size()];
        for (int i = 0; i < 8; i++) {
            w[i] = weights.get(i);
        }
        int[] top = new int[8];
        double[] topScores = new double[8];
        int[] top3 = new int[3];
        double[] top3Scores = new double[3];
        for (long k = 0; k < 2_000; k++) {
            long hash = HashRing.hashKey(k);
            int lowest = 0;
            double lowestScore = PICK.score(hash, 0, w[0]);
            for (int node = 1; node < 8; node++) {
                double score = PICK.score(hash, node, w[node]);
                if (score < lowestScore) {
                    lowestScore = score;
                    lowest = node;
                }
            }
            assertThat(PICK.pick(hash, EIGHT, 8, w)).isEqualTo(lowest);
            PICK.pickTop(hash, EIGHT, 8, w, 8, top, topScores);
            PICK.pickTop(hash, CandidateSet.of(EIGHT), w, 3, top3, top3Scores);
            assertThat(top3).containsExactly(top[0], top[1], top[2]);
            assertThat(top3Scores).containsExactly(topScores[0], topScores[1], topScores[2]);
        }
    }

    /** The lowest {@link WeightedPick#score} among the candidates, ties to the earlier one; -1 if none. */
    private static int lowestScore(long hash, int[] candidates, double[] w) {
        int lowest = -1;
        double lowestScore = Double.POSITIVE_INFINITY;
        for (int node : candidates) {
            double score = PICK.score(hash, node, w[node]);
            if (score < lowestScore) {
                lowestScore = score;
                lowest = node;
            }
        }
        return lowest;
    }

    @Test
    void pickIsTheLowestScoreForWeightsFromTinyToHugeAndWithZeros() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        for (int round = 0; round < 200_000; round++) {
            double[] w = new double[NODES.size()];
            for (int i = 0; i < 8; i++) {
                int kind = random.nextInt(10);
                w[i] = kind == 0 ? 0.0 : Math.pow(10, random.nextDouble(-12, 6));
            }
            long hash = random.nextLong();
            int expected = lowestScore(hash, EIGHT, w);
            if (expected < 0) {
                continue;
            }
            assertThat(PICK.pick(hash, EIGHT, 8, w)).as("round %d", round).isEqualTo(expected);
        }
    }

    @Test
    void nearTiesAreDecidedByTheExactScoresWithTheEarlierCandidateWinningATie() {
        // two candidates' weights set so their scores agree to the last bits: the bounds cannot decide,
        // the exact scores must, and an exact tie goes to the earlier candidate
        java.util.SplittableRandom random = new java.util.SplittableRandom(9);
        int ties = 0;
        for (int round = 0; round < 100_000; round++) {
            long hash = random.nextLong();
            int a = random.nextInt(8);
            int b = random.nextInt(8);
            if (a == b) {
                continue;
            }
            double[] w = weights(1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9, 1e-9);
            w[a] = Math.pow(10, random.nextDouble(-3, 3));
            double scoreA = PICK.score(hash, a, w[a]);
            double logB = -Math.log(WeightedPick.uniform(hash, NODES.seed(b)));
            w[b] = logB / scoreA * (1 + (random.nextInt(5) - 2) * 1e-16);
            int expected = lowestScore(hash, EIGHT, w);
            if (PICK.score(hash, a, w[a]) == PICK.score(hash, b, w[b])) {
                ties++;
                assertThat(expected).isEqualTo(Math.min(a, b));
            }
            assertThat(PICK.pick(hash, EIGHT, 8, w)).as("round %d", round).isEqualTo(expected);
            assertThat(PICK.pick(hash, CandidateSet.of(EIGHT), w)).isEqualTo(expected);
        }
        assertThat(ties).as("exact ties met").isGreaterThan(100);
    }

    @Test
    void fullNodesAreNeverPicked() {
        double[] w = weights(1, 0, 1, 0, 1, 0, 1, 0);
        for (long k = 0; k < 20_000; k++) {
            assertThat(PICK.pick(HashRing.hashKey(k), EIGHT, 8, w) % 2).isZero();
        }
    }

    @Test
    void allCandidatesFullIsRefusedRatherThanOverfilled() {
        double[] w = weights(0, 0, 0, 0, 0, 0, 0, 0);
        assertThatThrownBy(() -> PICK.pick(7L, EIGHT, 8, w))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("all 8 candidates have effective weight 0");
        assertThatThrownBy(() -> PICK.pick(7L, CandidateSet.of(EIGHT), w))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void pickTopGivesDistinctNodesInScoreOrderStartingWithThePick() {
        double[] w = weights(1, 2, 0.5, 1, 1, 1.5, 0.7, 1.1);
        int[] out = new int[3];
        double[] scores = new double[3];
        for (long k = 0; k < 10_000; k++) {
            long hash = HashRing.hashKey(k);
            int positives = PICK.pickTop(hash, EIGHT, 8, w, 3, out, scores);
            assertThat(positives).isEqualTo(3);
            assertThat(out).doesNotHaveDuplicates();
            assertThat(out[0]).isEqualTo(PICK.pick(hash, EIGHT, 8, w));
            assertThat(scores).isSorted();
            for (int i = 0; i < 3; i++) {
                assertThat(scores[i]).isEqualTo(PICK.score(hash, out[i], w[out[i]]));
            }
            // nobody outside the top 3 scores lower than the third
            for (int node : EIGHT) {
                if (node != out[0] && node != out[1] && node != out[2]) {
                    assertThat(PICK.score(hash, node, w[node])).isGreaterThanOrEqualTo(scores[2]);
                }
            }
        }
    }

    @Test
    void pickTopOverAllCandidatesIsAFullRanking() {
        double[] w = weights(1, 2, 0.5, 1, 1, 1.5, 0.7, 1.1);
        int[] out = new int[8];
        double[] scores = new double[8];
        PICK.pickTop(99L, CandidateSet.of(EIGHT), w, 8, out, scores);
        assertThat(out).containsExactlyInAnyOrder(EIGHT);
        assertThat(scores).isSorted();
    }

    @Test
    void pickTopPutsFullNodesLastInCandidateOrderAndCountsOnlyWritableOnes() {
        double[] w = weights(0, 1, 0, 1, 0, 0, 0, 0);
        int[] out = new int[4];
        double[] scores = new double[4];
        int positives = PICK.pickTop(5L, EIGHT, 8, w, 4, out, scores);
        assertThat(positives).isEqualTo(2);
        assertThat(new int[] {out[0], out[1]}).containsExactlyInAnyOrder(1, 3);
        assertThat(new int[] {out[2], out[3]}).containsExactly(0, 2);
        assertThat(scores[2]).isInfinite();
    }

    @Test
    void pickTopCapsRAtTheCandidateCountAndRejectsNonPositiveR() {
        int[] out = new int[5];
        double[] scores = new double[5];
        Arrays.fill(out, -1);
        int positives = PICK.pickTop(5L, new int[] {4, 2}, 2, weights(1, 1, 1, 1, 1), 5, out, scores);
        assertThat(positives).isEqualTo(2);
        assertThat(new int[] {out[0], out[1]}).containsExactlyInAnyOrder(4, 2);
        assertThat(out[2]).isEqualTo(-1);
        assertThatThrownBy(() -> PICK.pickTop(5L, EIGHT, 8, weights(1), 0, out, scores))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("r >= 1");
        assertThatThrownBy(() -> PICK.pickTop(5L, CandidateSet.of(EIGHT), weights(1), 0, out, scores))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("r >= 1");
    }

    @Test
    void effectiveWeightIsWeightFactorTimesFreeRatio() {
        assertThat(WeightedPick.effectiveWeight(1.5, 250, 1000)).isEqualTo(1.125);
        assertThat(WeightedPick.effectiveWeight(2.0, 0, 1000)).isEqualTo(2.0);
        assertThat(WeightedPick.effectiveWeight(1.0, 1000, 1000)).as("full").isZero();
        assertThat(WeightedPick.effectiveWeight(1.0, 1200, 1000)).as("overfull").isZero();
        assertThat(WeightedPick.effectiveWeight(1.0, 0, 0)).as("no capacity").isZero();
    }

    @Property(tries = 200)
    void uniformIsStrictlyBetweenZeroAndOne(@ForAll long keyHash, @ForAll long seed) {
        assertThat(WeightedPick.uniform(keyHash, seed)).isStrictlyBetween(0.0, 1.0);
    }
}
