package io.skewguard.detector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class SkewFiguresTest {

    private static SkewFigures figures(long[] heat, long[] used, long[] total) {
        return SkewFigures.compute(heat, used, total, new long[0], 0, new double[0], 0, 10);
    }

    @Test
    void equalCapacitiesGiveTheGiniOfRawHeat() {
        // Gini of 0, 0, 0, 100 = 2*(4*100)/(4*100) - 5/4 = 0.75
        SkewFigures f = figures(new long[] {0, 0, 0, 100}, new long[4], new long[] {10, 10, 10, 10});
        assertThat(f.heatGini()).isCloseTo(0.75, within(1e-12));
        assertThat(f.totalWriteBytes()).isEqualTo(100);
    }

    @Test
    void heatProportionalToCapacityIsPerfectlyBalanced() {
        SkewFigures f = figures(new long[] {100, 200, 400}, new long[3], new long[] {1000, 2000, 4000});
        assertThat(f.heatGini()).isCloseTo(0.0, within(1e-12));
    }

    @Test
    void nodeWithoutCapacityReportCountsAsAnAverageNode() {
        // capacities 1000 and 3000, unknown one gets the mean 2000: ratios 0.1, 0.1, 0.1
        SkewFigures f = figures(new long[] {100, 300, 200}, new long[] {1, 1, 0}, new long[] {1000, 3000, 0});
        assertThat(f.heatGini()).isCloseTo(0.0, within(1e-12));
    }

    @Test
    void capacityCvIgnoresNodesWithoutReport() {
        // utilisations 0.2 and 0.6: mean 0.4, sd 0.2, CV 0.5
        SkewFigures f = figures(new long[3], new long[] {200, 600, 0}, new long[] {1000, 1000, 0});
        assertThat(f.capacityCv()).isCloseTo(0.5, within(1e-12));
    }

    @Test
    void hottestSlotsAreTheTopKHottestFirstTiesByLowerSlot() {
        long[] slots = {5, 0, 9, 9, 1, 7, 3};
        SkewFigures f = SkewFigures.compute(new long[0], new long[0], new long[0], slots, slots.length,
                new double[0], 0, 3);
        assertThat(f.hottestSlots()).containsExactly(2, 3, 5);
        assertThat(f.hottestBytes()).containsExactly(9, 9, 7);
    }

    @Test
    void coldSlotsAreNotListedAsHot() {
        long[] slots = {0, 4, 0};
        SkewFigures f = SkewFigures.compute(new long[0], new long[0], new long[0], slots, 3, new double[0], 0, 10);
        assertThat(f.hottestSlots()).containsExactly(1);
    }

    @Test
    void shardCvIsThePopulationCvOfShardBytes() {
        SkewFigures f = SkewFigures.compute(new long[0], new long[0], new long[0], new long[0], 0,
                new double[] {1, 3, 99}, 2, 10);
        assertThat(f.shardCapacityCv()).isCloseTo(0.5, within(1e-12));
    }
}
