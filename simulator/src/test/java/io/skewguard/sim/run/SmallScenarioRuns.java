package io.skewguard.sim.run;

import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The test scenario {@code small} (src/test/resources/scenarios/small.properties). */
final class SmallScenarioRuns {

    private SmallScenarioRuns() {}

    static Scenario small() {
        try (InputStream in = SmallScenarioRuns.class.getClassLoader().getResourceAsStream("scenarios/small.properties")) {
            return ScenarioParser.parse("small.properties", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static PolicyRun run(Scenario scenario, String policy) {
        return Simulation.run(scenario, policy, progress -> { });
    }
}
