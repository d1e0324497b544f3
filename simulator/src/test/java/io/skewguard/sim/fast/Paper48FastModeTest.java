package io.skewguard.sim.fast;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Simulation;
import io.skewguard.sim.run.SimulationMode;
import io.skewguard.sim.scenario.ScenarioLibrary;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The paper's figures (docs/design.md §10) on the shipped {@code paper-48}, six simulated weeks in fast mode: the
 * real detector, balancer and migrator topologies and the real node agents (several minutes of the
 * test run; docs/simulator.md says where they go). Outcomes, not timings.
 */
class Paper48FastModeTest {

    private static PolicySummary skewguard;

    @BeforeAll
    static void run() {
        skewguard = Simulation.run(ScenarioLibrary.load("paper-48"), "skewguard", SimulationMode.FAST, p -> { }).summary();
    }

    @Test
    void baselineCapacityCvIsAtLeastPointThirtyBeforeRepair() {
        assertThat(skewguard.baselineCv()).isGreaterThanOrEqualTo(0.30);
    }

    @Test
    void theAppsEndTheRepairPhaseAtOrBelowThePapersCv() {
        assertThat(skewguard.finalCv()).isLessThanOrEqualTo(0.09);
    }

    @Test
    void bytesMovedStayWithinOnePointTwoTimesTheMinimum() {
        assertThat(skewguard.minimumBytes()).isPositive();
        assertThat(skewguard.bytesMoved()).isPositive().isLessThanOrEqualTo(1.2 * skewguard.minimumBytes());
    }

    @Test
    void everySampledKeyIsStillReadableFromTheNodeStores() {
        assertThat(skewguard.keysWritten()).isEqualTo(20_000);
        assertThat(skewguard.keysUnreadable()).isZero();
    }

    @Test
    void theWeightPhaseLowersTheHeatGini() {
        assertThat(skewguard.giniAfterWeights()).isLessThan(skewguard.giniBeforeWeights());
    }

    @Test
    void nothingWasAbortedRefusedOrDeadLettered() {
        assertThat(skewguard.notes()).anySatisfy(n -> assertThat(n).contains("fast mode").contains(" 0 aborted")
                .contains(" 0 dead letters").contains(" 0 commands refused").contains(" 0 sampled-key writes refused"));
    }
}
