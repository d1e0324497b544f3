package io.skewguard.balancer.policy;

import io.skewguard.core.stats.Gini;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The closed-loop load model: a cluster of nodes on a consistent-hash ring, S slots each with a
 * candidate set of m nodes, and a fixed heat per slot. A slot's writes split over its candidate set in
 * proportion to the candidates' effective weights (weight × free ratio, all free ratios equal here),
 * which is the expected outcome of the writers' weighted rendezvous pick.
 *
 * <p>The ring is this test's own (150 points per node, SplitMix64 of the seed), enough to give the
 * uneven candidate-set membership a real ring gives.
 */
public final class SlotLoadModel {

    static final int POINTS_PER_NODE = 150;

    public final double[] capacity;
    final int[][] candidates;
    final double[] slotHeat;

    private SlotLoadModel(double[] capacity, int[][] candidates, double[] slotHeat) {
        this.capacity = capacity;
        this.candidates = candidates;
        this.slotHeat = slotHeat;
    }

    /**
     * @param capacity capacity per node (any unit)
     * @param slots number of slots S
     * @param candidatesPerSlot candidate set size m
     * @param zipfExponent slot heat ∝ 1 / rank^exponent, ranks shuffled over the slots
     * @param hotSlotFactor the heat of one random slot is multiplied by this (1 = no hot spot)
     * @param seed seeds the ring, the rank shuffle and the hot slot
     */
    public static SlotLoadModel of(
            double[] capacity, int slots, int candidatesPerSlot, double zipfExponent, double hotSlotFactor, long seed) {
        int nodes = capacity.length;
        long[] points = new long[nodes * POINTS_PER_NODE];
        int[] owner = new int[points.length];
        Integer[] order = new Integer[points.length];
        for (int n = 0; n < nodes; n++) {
            for (int v = 0; v < POINTS_PER_NODE; v++) {
                int i = n * POINTS_PER_NODE + v;
                points[i] = mix(seed ^ mix(n * 1_000_003L + v));
                owner[i] = n;
                order[i] = i;
            }
        }
        Arrays.sort(order, (a, b) -> Long.compareUnsigned(points[a], points[b]));
        int[][] candidates = new int[slots][];
        for (int s = 0; s < slots; s++) {
            long slotPoint = mix(~seed ^ mix(s));
            int start = 0;
            while (start < order.length && Long.compareUnsigned(points[order[start]], slotPoint) < 0) {
                start++;
            }
            int[] set = new int[candidatesPerSlot];
            int found = 0;
            for (int k = 0; found < candidatesPerSlot; k++) {
                int node = owner[order[(start + k) % order.length]];
                boolean seen = false;
                for (int j = 0; j < found; j++) {
                    seen |= set[j] == node;
                }
                if (!seen) {
                    set[found++] = node;
                }
            }
            candidates[s] = set;
        }
        SplittableRandom random = new SplittableRandom(seed);
        int[] rank = new int[slots];
        for (int s = 0; s < slots; s++) {
            rank[s] = s + 1;
        }
        for (int s = slots - 1; s > 0; s--) {
            int j = random.nextInt(s + 1);
            int t = rank[s];
            rank[s] = rank[j];
            rank[j] = t;
        }
        double[] heat = new double[slots];
        for (int s = 0; s < slots; s++) {
            heat[s] = 1e9 / Math.pow(rank[s], zipfExponent);
        }
        heat[random.nextInt(slots)] *= hotSlotFactor;
        return new SlotLoadModel(capacity.clone(), candidates, heat);
    }

    public int nodes() {
        return capacity.length;
    }

    public static String nodeId(int index) {
        return String.format("node-%02d", index);
    }

    /** Expected heat per node when writers follow {@code weights}. */
    public double[] heat(double[] weights) {
        double[] heat = new double[nodes()];
        for (int s = 0; s < candidates.length; s++) {
            double sum = 0;
            for (int n : candidates[s]) {
                sum += weights[n];
            }
            for (int n : candidates[s]) {
                heat[n] += slotHeat[s] * weights[n] / sum;
            }
        }
        return heat;
    }

    /** DESIGN.md section 3's heat Gini: Gini of per-node heat ÷ capacity share. */
    public double heatGini(double[] heat) {
        double totalCapacity = Arrays.stream(capacity).sum();
        double[] normalised = new double[heat.length];
        for (int n = 0; n < heat.length; n++) {
            normalised[n] = heat[n] / (capacity[n] / totalCapacity);
        }
        return Gini.of(normalised);
    }

    /** The report the detector would send at {@code time} for writes placed under {@code weights}. */
    public LoadSnapshot snapshot(String cluster, long time, double[] weights) {
        double[] heat = heat(weights);
        List<NodeLoad> loads = new ArrayList<>();
        for (int n = 0; n < nodes(); n++) {
            loads.add(new NodeLoad(nodeId(n), heat[n], capacity[n]));
        }
        return new LoadSnapshot(cluster, time, heatGini(heat), loads);
    }

    /** Load ratio r = heat share ÷ capacity share per node. */
    public double[] loadRatios(double[] weights) {
        double[] heat = heat(weights);
        double totalHeat = Arrays.stream(heat).sum();
        double totalCapacity = Arrays.stream(capacity).sum();
        double[] ratio = new double[heat.length];
        for (int n = 0; n < heat.length; n++) {
            ratio[n] = (heat[n] / totalHeat) / (capacity[n] / totalCapacity);
        }
        return ratio;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
