package io.skewguard.sim.run;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioParser;
import org.junit.jupiter.api.Test;

/** The simulator's cluster model cannot play a planned drain: it says so instead of running without it. */
class SimulationDrainTest {

    private static final Scenario WITH_DRAIN = ScenarioParser.parse("drain.properties", """
            name = with-drain
            duration = 2h
            step = 1m
            slots = 16
            candidates = 2
            nodes.a.count = 4
            nodes.a.capacity = 1TB
            writes.perDay = 1TB
            event.out.at = 1h
            event.out.type = drain
            event.out.node = a-2
            """);

    @Test
    void aScenarioWithADrainIsRefusedInEitherModeNamingTheEventAndTheDemo() {
        for (SimulationMode mode : SimulationMode.values()) {
            assertThatThrownBy(() -> Simulation.run(WITH_DRAIN, "none", mode, p -> { }))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("scenario 'with-drain' has a drain event ('out', node a-2)")
                    .hasMessageContaining("skewguard demo");
        }
    }
}
