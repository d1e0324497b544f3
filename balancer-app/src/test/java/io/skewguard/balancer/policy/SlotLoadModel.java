package io.skewguard.balancer.policy;

import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
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
 * <p>Candidate sets come from core's {@link HashRing} (150 points per node, equal ring weight) and
 * {@link SlotTable#fromRing}: the placement the writers really use.
 */
public final class SlotLoadModel {

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
     * @param seed seeds the rank shuffle and the hot slot (the ring depends on the node ids only)
     */
    public static SlotLoadModel of(
            double[] capacity, int slots, int candidatesPerSlot, double zipfExponent, double hotSlotFactor, long seed) {
        String[] ids = new String[capacity.length];
        for (int n = 0; n < ids.length; n++) {
            ids[n] = nodeId(n);
        }
        // the production ring (150 points per node, equal ring weight) and slot table of core
        SlotTable table = SlotTable.fromRing(HashRing.ofIds(ids), candidatesPerSlot, slots);
        int[][] candidates = new int[slots][];
        for (int s = 0; s < slots; s++) {
            CandidateSet set = table.candidates(s);
            candidates[s] = new int[set.size()];
            for (int i = 0; i < set.size(); i++) {
                candidates[s][i] = Integer.parseInt(table.nodes().id(set.node(i)).substring("node-".length()));
            }
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

    /** docs/design.md §6's heat Gini: Gini of per-node heat ÷ capacity share. */
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
}
