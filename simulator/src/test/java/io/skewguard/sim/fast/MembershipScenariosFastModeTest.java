package io.skewguard.sim.fast;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Simulation;
import io.skewguard.sim.run.SimulationMode;
import io.skewguard.sim.scenario.ScenarioLibrary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The shipped scenarios with joins and losses in fast mode, through the real topologies and agents:
 * the required figures. Outcomes, not timings.
 *
 * <p>Each takes minutes of CPU, so they run with {@code -Dskewguard.sim.full=true} only (as the
 * six weeks of {@link Paper48FastModeTest}); in the whole test run {@link FastModeMembershipTest}
 * plays a join and a loss on a small cluster. docs/simulator.md gives the commands and the figures.
 */
@EnabledIfSystemProperty(named = "skewguard.sim.full", matches = "true")
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
        assertThat(s.notes()).anySatisfy(n -> assertThat(n).contains("fast mode").contains(" 0 dead letters")
                .contains(" 0 commands refused"));
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
