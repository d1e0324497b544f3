package io.skewguard.sim.fast;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Simulation;
import io.skewguard.sim.run.SimulationMode;
import io.skewguard.sim.scenario.ScenarioLibrary;
import org.junit.jupiter.api.Test;

/**
 * The shipped scenarios with joins and losses in fast mode, through the real topologies and agents:
 * the required figures. Outcomes, not timings.
 */
class MembershipScenariosFastModeTest {

    private static PolicySummary fast(String scenario) {
        return Simulation.run(ScenarioLibrary.load(scenario), "skewguard", SimulationMode.FAST, p -> { }).summary();
    }

    @Test
    void joinAndHotspotEndsItsRepairAtCvPointTenWithTheJoinedNodesWithinTenPercentOfTheMean() {
        PolicySummary s = fast("join-and-hotspot");
        assertThat(s.finalCv()).isLessThanOrEqualTo(0.10);
        assertThat(s.joinedUtilisationSpread()).as("joined nodes' |u − mean| / mean").isLessThanOrEqualTo(0.10);
        assertThat(s.keysUnreadable()).isZero();
    }

    @Test
    void nodeLossKeepsEveryKeyReadableAndNoWriteGoesToTheLostNodeAfterItsUpdate() {
        PolicySummary s = fast("node-loss");
        assertThat(s.recoveryBytes()).isPositive();
        assertThat(s.writesToLostAfterUpdate()).isZero();
        assertThat(s.keysUnreadable()).isZero();
        assertThat(s.notes()).anySatisfy(n -> assertThat(n).contains("membership").contains("n7").contains("LOST"));
    }
}
