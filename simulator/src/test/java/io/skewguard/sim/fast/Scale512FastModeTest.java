package io.skewguard.sim.fast;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Simulation;
import io.skewguard.sim.run.SimulationMode;
import io.skewguard.sim.scenario.ScenarioLibrary;
import org.junit.jupiter.api.Test;

/**
 * {@code scale-512} in fast mode (512 node agents, 4096 slots, a join of 8 nodes and a loss, 14 days):
 * the required final capacity CV through the real topologies and agents. The longest test of the
 * module. Outcomes, not timings.
 */
class Scale512FastModeTest {

    @Test
    void scale512EndsItsRepairPhaseAtCvPointZeroNineWithEveryKeyReadable() {
        PolicySummary s = Simulation.run(ScenarioLibrary.load("scale-512"), "skewguard", SimulationMode.FAST, p -> { }).summary();
        assertThat(s.finalCv()).isLessThanOrEqualTo(0.09);
        assertThat(s.writesToLostAfterUpdate()).isZero();
        assertThat(s.keysUnreadable()).isZero();
    }
}
