package io.skewguard.sim.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.report.SummaryJson;
import io.skewguard.sim.scenario.Scenario;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeterminismTest {

    private static String summaryWithoutWallTime(Scenario scenario) {
        List<PolicySummary> summaries = new ArrayList<>();
        for (String policy : scenario.policies()) {
            summaries.add(SmallScenarioRuns.run(scenario, policy).summary());
        }
        return SummaryJson.render(scenario.name(), scenario.seed(), summaries)
                .replaceAll("\"wallSeconds\" : [0-9.eE-]+", "\"wallSeconds\" : _");
    }

    @Test
    void sameSeedGivesTheSameSummaryText() {
        Scenario scenario = SmallScenarioRuns.small();
        String first = summaryWithoutWallTime(scenario);
        String second = summaryWithoutWallTime(scenario);
        assertThat(first).contains("\"wallSeconds\" : _").isEqualTo(second);
    }

    @Test
    void anotherSeedGivesOtherNumbers() {
        Scenario scenario = SmallScenarioRuns.small();
        assertThat(summaryWithoutWallTime(scenario.withSeed(6))).isNotEqualTo(summaryWithoutWallTime(scenario));
    }
}
