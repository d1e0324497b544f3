package io.skewguard.sim.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioLibrary;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The required figures of the issue on the shipped {@code paper-48} scenario, six simulated weeks,
 * SkewGuard driven through the apps' pure policy classes. The hot-spot figure (heat Gini under 0.25
 * within 40 minutes) is NOT asserted because this model does not meet it: see docs/simulator.md
 * ("What is not met") — the weight factors reach their [0.5, 2.0] floor at a heat Gini near 0.30
 * before the hot spot starts, and that floor is asserted below as the report states it.
 */
class Paper48Test {

    private static PolicySummary skewguard;

    @BeforeAll
    static void run() {
        Scenario paper = ScenarioLibrary.load("paper-48");
        skewguard = Simulation.run(paper, "skewguard", progress -> { }).summary();
    }

    @Test
    void baselineCapacityCvIsAtLeastPointThirtyBeforeRepair() {
        assertThat(skewguard.baselineCv()).isGreaterThanOrEqualTo(0.30);
    }

    @Test
    void skewGuardEndsTheRepairPhaseAtOrBelowThePapersCv() {
        assertThat(skewguard.finalCv()).isLessThanOrEqualTo(0.09);
    }

    @Test
    void bytesMovedStayWithinOnePointTwoTimesTheMinimum() {
        assertThat(skewguard.minimumBytes()).isPositive();
        assertThat(skewguard.bytesMoved()).isPositive().isLessThanOrEqualTo(1.2 * skewguard.minimumBytes());
    }

    @Test
    void everySampledKeyIsStillReadableAtTheEnd() {
        assertThat(skewguard.keysWritten()).isEqualTo(20_000);
        assertThat(skewguard.keysUnreadable()).isZero();
    }

    @Test
    void theWeightPhaseLowersTheHeatGiniAndTheReportNamesItsFloor() {
        assertThat(skewguard.giniAfterWeights()).isLessThan(skewguard.giniBeforeWeights());
        assertThat(skewguard.notes()).anySatisfy(n -> assertThat(n).contains("hit their floor"));
    }
}
