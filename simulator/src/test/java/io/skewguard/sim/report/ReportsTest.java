package io.skewguard.sim.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.skewguard.sim.run.PolicyRun;
import io.skewguard.sim.run.Simulation;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioLibrary;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ReportsTest {

    private static Scenario scenario;
    private static List<PolicyRun> runs;

    @BeforeAll
    static void run() {
        scenario = ScenarioLibrary.load("node-loss").withPolicies(List.of("none", "ceph"));
        runs = List.of(Simulation.run(scenario, "none", p -> { }), Simulation.run(scenario, "ceph", p -> { }));
    }

    @Test
    void summaryJsonHasTheStableKeysPerPolicy() throws Exception {
        JsonNode root = new ObjectMapper().readTree(SummaryJson.render(scenario.name(), scenario.seed(),
                runs.stream().map(PolicyRun::summary).toList()));
        assertThat(root.get("scenario").asText()).isEqualTo("node-loss");
        for (String policy : List.of("none", "ceph")) {
            JsonNode p = root.get("policies").get(policy);
            for (String key : List.of("baselineCv", "finalCv", "finalGap", "giniBeforeWeights", "giniAfterWeights",
                    "bytesMoved", "minimumBytes", "hotspotRecoveryMinutes", "wallSeconds")) {
                assertThat(p.has(key)).as(policy + "." + key).isTrue();
            }
            assertThat(p.get("baselineCv").asDouble()).isPositive();
        }
    }

    @Test
    void consoleTableIsAlignedAndCarriesThePapersColumn() {
        String table = ConsoleTable.render(scenario.name(), scenario.seed(), runs.stream().map(PolicyRun::summary).toList());
        String[] lines = table.split("\n");
        assertThat(lines[1]).startsWith("figure").contains("paper").contains("none").contains("ceph");
        int width = lines[1].length();
        for (int i = 3; i < lines.length && !lines[i].startsWith("note:"); i++) {
            assertThat(lines[i]).as(lines[i]).hasSize(width);
        }
        assertThat(table).contains("0.37").contains("baseline capacity CV");
    }

    @Test
    void htmlReportIsSelfContainedWithChartsAndThresholds() {
        String html = HtmlReport.render(scenario, runs);
        assertThat(html).contains("<svg").contains("heat Gini").contains("capacity CV").contains("alert 0.25")
                .contains("repair start").contains("Bytes moved");
        assertThat(html.replace("http://www.w3.org/2000/svg", "")).doesNotContain("http://").doesNotContain("https://")
                .doesNotContain("<script");
    }
}
