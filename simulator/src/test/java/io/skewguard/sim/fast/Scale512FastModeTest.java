package io.skewguard.sim.fast;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Simulation;
import io.skewguard.sim.run.SimulationMode;
import io.skewguard.sim.scenario.ScenarioLibrary;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * {@code scale-512} in fast mode (512 node agents, 4096 slots, a join of 8 nodes and a loss, 14 days):
 * the required final capacity CV through the real topologies and agents. Outcomes, not timings.
 *
 * <p>Its first simulated day of repair alone takes tens of minutes of CPU (the migrator plans
 * 512 nodes × 4096 slots after every switch), so it runs with {@code -Dskewguard.sim.full=true}
 * only; docs/simulator.md says what it measured and why the required CV is not reached.
 */
@EnabledIfSystemProperty(named = "skewguard.sim.full", matches = "true")
class Scale512FastModeTest {

    @Test
    void scale512EndsItsRepairPhaseAtCvPointZeroNineWithEveryKeyReadable() {
        PolicySummary s = Simulation.run(ScenarioLibrary.load("scale-512"), "skewguard", SimulationMode.FAST, p -> { }).summary();
        assertThat(s.finalCv()).isLessThanOrEqualTo(0.09);
        assertThat(s.writesToLostAfterUpdate()).isZero();
        assertThat(s.keysUnreadable()).isZero();
    }
}
