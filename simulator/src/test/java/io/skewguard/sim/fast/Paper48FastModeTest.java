package io.skewguard.sim.fast;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Simulation;
import io.skewguard.sim.run.SimulationMode;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioLibrary;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The paper's figures (docs/design.md §10) on the shipped {@code paper-48} in fast mode: the real
 * detector, balancer and migrator topologies and the real node agents. Outcomes, not timings.
 *
 * <p>The whole test run takes the scenario up to day {@value #SHORT_DAYS}: the two weeks without
 * repair, then the weight phase and the repair phase, which ends by day 18. The six weeks (the hot
 * spot of day 28 and the two weeks after it: several minutes of CPU) run with
 * {@code -Dskewguard.sim.full=true}; docs/simulator.md gives that command and its figures.
 */
class Paper48FastModeTest {

    /** Days of the scenario in the test run; the full run takes all 42. */
    static final int SHORT_DAYS = 21;

    private static PolicySummary skewguard;

    @BeforeAll
    static void run() {
        Scenario paper = ScenarioLibrary.load("paper-48");
        Scenario scenario = Boolean.getBoolean("skewguard.sim.full") ? paper : paper.withDuration(Duration.ofDays(SHORT_DAYS).toMillis());
        skewguard = Simulation.run(scenario, "skewguard", SimulationMode.FAST, p -> { }).summary();
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
