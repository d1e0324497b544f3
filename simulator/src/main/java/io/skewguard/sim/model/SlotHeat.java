package io.skewguard.sim.model;

import io.skewguard.sim.scenario.HeatSpec;
import java.util.SplittableRandom;

/**
 * The write share of every slot (summing to 1), from a {@link HeatSpec}: the heat generator.
 * Uniform, Zipf over a seeded ranking of the slots, or a hot prefix (a seeded set of slots taking a
 * fixed share). O(S) to build.
 */
public final class SlotHeat {

    private SlotHeat() {}

    /** Shares of {@code slots} slots under {@code spec}, with the slot ranking drawn from {@code random}. */
    public static double[] shares(HeatSpec spec, int slots, SplittableRandom random) {
        double[] share = new double[slots];
        int[] order = permutation(slots, random);
        if (spec instanceof HeatSpec.Uniform) {
            java.util.Arrays.fill(share, 1.0 / slots);
        } else if (spec instanceof HeatSpec.Zipf zipf) {
            double sum = 0;
            for (int k = 0; k < slots; k++) {
                double w = 1.0 / Math.pow(k + 1, zipf.exponent());
                share[order[k]] = w;
                sum += w;
            }
            for (int s = 0; s < slots; s++) {
                share[s] /= sum;
            }
        } else if (spec instanceof HeatSpec.HotPrefix hot) {
            int hotSlots = Math.max(1, Math.min(slots - 1, (int) Math.round(hot.slotFraction() * slots)));
            for (int k = 0; k < slots; k++) {
                share[order[k]] = k < hotSlots ? hot.heatShare() / hotSlots : (1 - hot.heatShare()) / (slots - hotSlots);
            }
        }
        return share;
    }

    private static int[] permutation(int n, SplittableRandom random) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }
}
