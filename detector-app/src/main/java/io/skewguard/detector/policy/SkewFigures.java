package io.skewguard.detector.policy;

import io.skewguard.core.stats.CoefficientOfVariation;
import io.skewguard.core.stats.Gini;

/**
 * The figures of one report, computed from per-node and per-slot window heat and each node's
 * latest capacity (docs/design.md §6).
 *
 * <ul>
 *   <li><b>heat Gini</b> = Gini of {@code heat[i] / share[i]} over every known node, idle ones
 *       with 0, where {@code share[i] = total[i] / Σ total}. A node without a capacity report yet
 *       is given the mean capacity of the nodes that have one (an equal share when none has), so
 *       a new node's writes count at once, as if it were an average node.
 *   <li><b>capacity CV</b> = population CV of {@code used[i] / total[i]} over the nodes that have
 *       a capacity report (utilisation is unknown for the others).
 *   <li><b>shard capacity CV</b> = population CV of the per-shard used bytes of every reported
 *       shard (0 when no node reports shards).
 *   <li><b>hottest slots</b> = the {@code k} slots with the most heat (heat &gt; 0 only), hottest
 *       first, ties by lower slot.
 * </ul>
 *
 * Cost O(n log n + s log k) for n nodes and s slots.
 *
 * @param hottestSlots slot numbers, hottest first
 * @param hottestBytes their heat, same order
 */
public record SkewFigures(
        double heatGini,
        double capacityCv,
        double shardCapacityCv,
        long totalWriteBytes,
        int[] hottestSlots,
        long[] hottestBytes) {

    /**
     * @param heat window heat per known node
     * @param used used bytes per node (ignored where {@code total} is 0)
     * @param total total bytes per node, 0 when the node has no capacity report
     * @param slotHeat window heat per slot (the first {@code slotCount} entries are read)
     * @param slotCount number of slots in {@code slotHeat}
     * @param shardUsed used bytes of every reported shard
     * @param shardCount number of entries of {@code shardUsed}
     * @param topK how many hottest slots to keep
     */
    public static SkewFigures compute(
            long[] heat, long[] used, long[] total,
            long[] slotHeat, int slotCount,
            double[] shardUsed, int shardCount,
            int topK) {
        int n = heat.length;
        if (used.length != n || total.length != n) {
            throw new IllegalArgumentException("heat, used and total must have one entry per node");
        }
        long totalWrite = 0;
        for (long h : heat) {
            totalWrite += h;
        }

        long capacitySum = 0;
        int reporting = 0;
        for (long t : total) {
            if (t > 0) {
                capacitySum += t;
                reporting++;
            }
        }
        double meanCapacity = reporting == 0 ? 1.0 : (double) capacitySum / reporting;
        double[] ratio = new double[n];
        double[] utilisation = new double[reporting];
        for (int i = 0, u = 0; i < n; i++) {
            double capacity = total[i] > 0 ? total[i] : meanCapacity;
            // heat / share with share = capacity / sum: the common factor 1/sum cancels in a Gini
            ratio[i] = heat[i] / capacity;
            if (total[i] > 0) {
                utilisation[u++] = (double) used[i] / total[i];
            }
        }
        double gini = Gini.of(ratio);
        double cv = CoefficientOfVariation.of(utilisation);
        double shardCv = CoefficientOfVariation.of(
                shardCount == shardUsed.length ? shardUsed : java.util.Arrays.copyOf(shardUsed, shardCount));

        int k = 0;
        int[] topSlots = new int[Math.max(0, topK)];
        long[] topBytes = new long[topSlots.length];
        // insertion into a small sorted array: O(s * k), k = 10
        for (int s = 0; s < slotCount; s++) {
            long h = slotHeat[s];
            if (h <= 0 || (k == topSlots.length && (k == 0 || h <= topBytes[k - 1]))) {
                continue;
            }
            int at = k < topSlots.length ? k++ : k - 1;
            while (at > 0 && topBytes[at - 1] < h) {
                topBytes[at] = topBytes[at - 1];
                topSlots[at] = topSlots[at - 1];
                at--;
            }
            topBytes[at] = h;
            topSlots[at] = s;
        }
        return new SkewFigures(gini, cv, shardCv, totalWrite,
                java.util.Arrays.copyOf(topSlots, k), java.util.Arrays.copyOf(topBytes, k));
    }
}
