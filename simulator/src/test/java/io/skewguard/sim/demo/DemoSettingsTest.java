package io.skewguard.sim.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.detector.DetectorSettings;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioEvent;
import io.skewguard.sim.scenario.ScenarioParser;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DemoSettingsTest {

    private static DemoSettings settings(String... args) {
        DemoCommand command = new DemoCommand();
        new CommandLine(command).parseArgs(args);
        return command.settings();
    }

    @Test
    void everyDemoScenarioParsesAndYieldsValidAppSettings() {
        assertThat(DemoCommand.shipped()).containsExactly("demo", "demo-quick", "membership", "membership-quick");
        for (String name : DemoCommand.shipped()) {
            DemoSettings s = settings("--scenario", name);
            Path dir = Path.of("/tmp/x");
            DetectorSettings detector = s.detectorSettings("127.0.0.1:1", dir);
            assertThat(detector.tick().toMillis()).isEqualTo(s.stepMillis());
            assertThat(detector.window().toMillis()).as("window under the cooldown").isLessThan(detector.cooldown().toMillis());
            MigratorSettings migrator = s.migratorSettings("127.0.0.1:1", dir);
            assertThat(migrator.slotCount()).isEqualTo(s.scenario().slots());
            assertThat(migrator.candidates()).isEqualTo(s.scenario().candidates());
            assertThat(migrator.maintenanceFactor()).isEqualTo(s.scenario().skewguard().maintenanceFactor());
        }
    }

    @Test
    void theDefaultDemoTakesAboutThreeMinutesOfWallTime() {
        DemoSettings s = settings();
        assertThat(s.scenario().name()).isEqualTo("demo");
        assertThat(s.plannedWall().toSeconds()).isBetween(170L, 190L);
        assertThat(s.embeddedBroker()).isTrue();
        assertThat(s.topicPrefix()).isEqualTo("skew.");
        assertThat(s.registryUrl()).startsWith("mock://");
    }

    @Test
    void anExistingBrokerGetsTopicsOfItsOwnUnlessAPrefixIsGiven() {
        DemoSettings s = settings("--bootstrap-servers", "127.0.0.1:9092");
        assertThat(s.embeddedBroker()).isFalse();
        assertThat(s.topicPrefix()).startsWith("skewguard-demo-").endsWith(".");
        assertThat(settings("--bootstrap-servers", "127.0.0.1:9092", "--topic-prefix", "x.").topicPrefix()).isEqualTo("x.");
    }

    @Test
    void scenariosTheDemoCannotPlayAreRefusedWithAReason() {
        Scenario withEvent = ScenarioParser.parse("t", """
                name = t
                duration = 1h
                step = 1m
                candidates = 2
                nodes.a.count = 4
                nodes.a.capacity = 1TB
                writes.perDay = 1TB
                event.x.at = 10m
                event.x.type = loss
                event.x.node = a-1
                """);
        assertThatThrownBy(() -> new DemoSettings(withEvent, 60, 10, 10, null, null, "skew.", "r", false))
                .hasMessageContaining("events").hasMessageContaining("not loss events").hasMessageContaining("event 'x'");
        Scenario tooFewNodes = ScenarioParser.parse("t", """
                name = t
                duration = 1h
                candidates = 4
                nodes.a.count = 4
                nodes.a.capacity = 1TB
                writes.perDay = 1TB
                """);
        assertThatThrownBy(() -> new DemoSettings(tooFewNodes, 60, 10, 10, null, null, "skew.", "r", false))
                .hasMessageContaining("no target");
    }

    @Test
    void theMembershipScenariosJoinANodeAndDrainAnother() {
        for (String name : new String[] {"membership", "membership-quick"}) {
            DemoSettings s = settings("--scenario", name);
            assertThat(s.changesMembership()).isTrue();
            assertThat(s.scenario().events()).hasSize(2);
            assertThat(s.scenario().events().get(0)).isInstanceOfSatisfying(ScenarioEvent.Join.class,
                    j -> assertThat(j.node().id()).isEqualTo("n11"));
            assertThat(s.scenario().events().get(1)).isInstanceOfSatisfying(ScenarioEvent.Drain.class,
                    d -> assertThat(d.node()).isEqualTo("n3"));
        }
        assertThat(settings("--scenario", "membership").plannedWall().toSeconds()).isBetween(170L, 190L);
        assertThat(settings("--scenario", "demo").changesMembership()).isFalse();
    }

    @Test
    void drainsThatLeaveTooFewNodesForTheCandidateSetsAreRefused() {
        Scenario drainsTooMany = ScenarioParser.parse("t", """
                name = t
                duration = 1h
                candidates = 3
                nodes.a.count = 4
                nodes.a.capacity = 1TB
                writes.perDay = 1TB
                event.x.at = 10m
                event.x.type = drain
                event.x.node = a-1
                """);
        assertThatThrownBy(() -> new DemoSettings(drainsTooMany, 60, 10, 10, null, null, "skew.", "r", false))
                .hasMessageContaining("candidate sets of 3 on 3 nodes (after the drains)");
    }
}
