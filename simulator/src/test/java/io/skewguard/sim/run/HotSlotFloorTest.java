package io.skewguard.sim.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.model.Cluster;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioLibrary;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shipped {@code hot-slot-floor} scenario: paper-48 with a few slots carrying most writes. The
 * weakness it exists to show — weight factors in [0.5, 2.0] cannot spread a slot whose writes alone
 * overload its candidate set — must stay visible: the alert fires, the weight phase stops at its floor
 * above the repair target, the report says so, and the hot spot is never repaired.
 */
class HotSlotFloorTest {

    private static Scenario scenario;
    private static PolicySummary skewguard;

    @BeforeAll
    static void run() {
        scenario = ScenarioLibrary.load("hot-slot-floor");
        skewguard = Simulation.run(scenario, "skewguard", progress -> { }).summary();
    }

    @Test
    void theHottestSlotTakesMoreThanMOverNOfTheWrites() {
        Cluster cluster = new Cluster(scenario);
        double fairShareOfACandidateSet = (double) scenario.candidates() / scenario.nodes().size();
        assertThat(cluster.share(cluster.hottestSlot())).isGreaterThan(fairShareOfACandidateSet);
    }

    @Test
    void theHeatAlertFiresAndTheWeightPhaseStopsAtItsFloorAboveTheRepairTarget() {
        assertThat(skewguard.giniBeforeWeights()).isGreaterThan(scenario.skewguard().heatThreshold());
        assertThat(skewguard.giniAfterWeights()).isNotNull()
                .isLessThan(skewguard.giniBeforeWeights())
                .isGreaterThan(scenario.skewguard().repairTarget());
    }

    @Test
    void theReportStatesTheFloor() {
        assertThat(skewguard.notes()).anySatisfy(n -> assertThat(n).contains("hit their floor").contains("weights alone can do no more"));
    }

    @Test
    void theHotSpotIsNeverBackUnderPointTwentyFive() {
        assertThat(skewguard.hotspotGiniPeak()).isGreaterThan(Simulation.HOTSPOT_RECOVERED);
        assertThat(skewguard.hotspotRecoveryMinutes()).isNull();
    }

    @Test
    void everySampledKeyIsStillReadableAtTheEnd() {
        assertThat(skewguard.keysUnreadable()).isZero();
    }
}
