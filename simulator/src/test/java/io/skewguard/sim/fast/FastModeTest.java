package io.skewguard.sim.fast;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.report.SummaryJson;
import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Simulation;
import io.skewguard.sim.run.SimulationMode;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioLibrary;
import io.skewguard.sim.scenario.ScenarioParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fast mode on a small cluster, in seconds: the detector, balancer and migrator topologies and the
 * node agents repair the same skew the model policies see, every sampled key is still in the node
 * stores, and the same seed gives the same figures.
 */
class FastModeTest {

    private static Scenario scenario;
    private static PolicySummary fast;
    private static PolicySummary none;

    static Scenario smallFast() {
        try (InputStream in = FastModeTest.class.getClassLoader().getResourceAsStream("scenarios/small-fast.properties")) {
            return ScenarioParser.parse("small-fast.properties", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @BeforeAll
    static void run() {
        scenario = smallFast();
        fast = Simulation.run(scenario, "skewguard", SimulationMode.FAST, p -> { }).summary();
        none = Simulation.run(scenario, "none", SimulationMode.FAST, p -> { }).summary();
    }

    @Test
    void theTopologiesAndAgentsMigrateTheCapacitySkewAwayWithinTheMinimumBudget() {
        assertThat(fast.baselineCv()).isEqualTo(none.baselineCv()).isGreaterThan(scenario.skewguard().capacityThreshold());
        assertThat(fast.bytesMoved()).isPositive().isLessThanOrEqualTo(1.2 * fast.minimumBytes());
        assertThat(fast.finalCv()).isLessThan(none.finalCv());
        assertThat(fast.notes()).anySatisfy(n -> assertThat(n).contains("fast mode").contains("0 aborted")
                .contains("0 dead letters").contains("0 commands refused"));
    }

    @Test
    void theBalancerTopologyChangesWeightsThroughTheAgents() {
        assertThat(fast.weightChanges()).isPositive();
        assertThat(none.weightChanges()).isZero();
    }

    @Test
    void everySampledKeyIsReadableFromTheNodeStores() {
        assertThat(fast.keysWritten()).isEqualTo(scenario.probeKeys());
        assertThat(fast.keysUnreadable()).isZero();
    }

    @Test
    void theSameSeedGivesTheSameFigures() {
        PolicySummary again = Simulation.run(scenario, "skewguard", SimulationMode.FAST, p -> { }).summary();
        assertThat(withoutWallTime(again)).isEqualTo(withoutWallTime(fast));
    }

    @Test
    void scenariosWithJoinsAndLossesAreNoLongerRefusedAndTheirLossesWaitForTheMigratorsUpdate() {
        for (String name : List.of("join-and-hotspot", "node-loss", "scale-512")) {
            try (FastSkewGuard policy = new FastSkewGuard(ScenarioLibrary.load(name))) {
                assertThat(policy.followsMembership()).as(name).isTrue();
            }
        }
    }

    private static String withoutWallTime(PolicySummary s) {
        return SummaryJson.render("x", 1, List.of(s)).replaceAll("\"wallSeconds\"\\s*:\\s*[0-9.eE+-]+", "");
    }
}
