package io.skewguard.sim.fast;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Simulation;
import io.skewguard.sim.run.SimulationMode;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Fast mode on the small cluster of {@link FastModeTest} with a node joining and with a node lost, in
 * seconds: the migrator's topology follows membership from the capacity reports alone (a node that
 * starts reporting is taken as joined and filled; a node silent for {@code node-expiry} is replaced in
 * every candidate set by one slot-table update), and the writers, stores and agents follow its slot
 * table.
 */
class FastModeMembershipTest {

    private static Scenario smallFastWith(String name, String extra) {
        return smallFastWith(name, extra, Map.of());
    }

    /** small-fast named {@code name}, each line of {@code replaced}'s keys replaced by its value, {@code extra} added. */
    private static Scenario smallFastWith(String name, String extra, Map<String, String> replaced) {
        try (InputStream in = FastModeMembershipTest.class.getClassLoader().getResourceAsStream("scenarios/small-fast.properties")) {
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("name = small-fast", "name = " + name);
            for (Map.Entry<String, String> line : replaced.entrySet()) {
                if (!text.contains(line.getKey())) {
                    throw new IllegalStateException("small-fast.properties has no line '" + line.getKey() + "'");
                }
                text = text.replace(line.getKey(), line.getValue());
            }
            return ScenarioParser.parse(name + ".properties", text + "\n" + extra + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static PolicySummary fast(Scenario scenario) {
        return Simulation.run(scenario, "skewguard", SimulationMode.FAST, p -> { }).summary();
    }

    /**
     * The repair a join starts runs until the capacity CV is at or below the planner's target; the
     * joined node, the emptiest, ends at the level the planner raised the emptiest nodes to, and the
     * cold shards it took draw few writes afterwards. With small-fast's target 0.10 and its budget
     * (4 copies, 500 MB/s) that left it 16 % under the mean utilisation at CV 0.088; so this cluster
     * aims at 0.02 with the budget to get there before the hot spot (8 copies, 2 GB/s).
     */
    @Test
    void aNodeJoiningBeforeRepairIsFilledToNearTheMeanUtilisation() {
        Scenario scenario = smallFastWith("small-fast-join", String.join("\n",
                "event.j.at = 6h", "event.j.type = join", "event.j.node = a-13", "event.j.capacity = 10TB", "event.j.rack = rack-1",
                "skewguard.migrationTargetCv = 0.02"), Map.of("skewguard.maxParallel = 4", "skewguard.maxParallel = 8",
                "skewguard.maxBytesPerSec = 500MB", "skewguard.maxBytesPerSec = 2GB"));
        PolicySummary fast = fast(scenario);
        PolicySummary none = Simulation.run(scenario, "none", SimulationMode.FAST, p -> { }).summary();

        assertThat(none.joinedUtilisationSpread()).as("without repair the new node stays empty").isCloseTo(1.0,
                org.assertj.core.api.Assertions.within(1e-9));
        assertThat(fast.joinedUtilisationSpread()).as("joined node's |u − mean| / mean").isLessThanOrEqualTo(0.10);
        assertThat(fast.finalCv()).isLessThanOrEqualTo(scenario.skewguard().migrationTargetCv() + 0.02)
                .isLessThan(none.finalCv());
        assertThat(fast.keysUnreadable()).isZero();
        assertThat(fast.notes()).anySatisfy(n -> assertThat(n).contains("fast mode").contains("0 dead letters")
                .contains("0 commands refused"));
    }

    @Test
    void aNodeLostDuringRepairIsReplacedByTheMigratorAndEveryKeyStaysReadable() {
        Scenario scenario = smallFastWith("small-fast-loss", String.join("\n",
                "event.l.at = 1d", "event.l.type = loss", "event.l.node = a-3"));
        PolicySummary fast = fast(scenario);

        assertThat(fast.recoveryBytes()).as("the lost node's shards rebuilt on the replacements").isPositive();
        assertThat(fast.writesReroutedFromLost()).as("writes for it before the update went elsewhere, counted").isPositive();
        assertThat(fast.writesToLostAfterUpdate()).as("no write routed to it after the update").isZero();
        assertThat(fast.keysUnreadable()).isZero();
        assertThat(fast.notes()).anySatisfy(n -> assertThat(n).contains("membership").contains("a-3").contains("LOST"));
        assertThat(fast.notes()).anySatisfy(n -> assertThat(n).contains("0 dead letters").contains("0 commands refused"));
    }
}
