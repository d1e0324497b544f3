package io.skewguard.sim.fast;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.migrator.MigratorSettings;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioParser;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class FastModeSettingsTest {

    private static Scenario scenario(String extra) {
        return ScenarioParser.parse("tiny.properties", String.join("\n",
                "name = tiny",
                "duration = 1d",
                "nodes.a.count = 3",
                "nodes.a.capacity = 10TB",
                "writes.perDay = 1TB",
                extra,
                ""));
    }

    @Test
    void theMigratorRunsWithTheScenariosPlannerTargetAndMaintenanceFactor() {
        MigratorSettings migrator = FastModeSettings.migrator(
                scenario("skewguard.migrationTargetCv = 0.04\nskewguard.maintenanceFactor = 1.1"), "mock://r", Path.of("/tmp/x"));
        assertThat(migrator.targetCv()).isEqualTo(0.04);
        assertThat(migrator.maintenanceFactor()).isEqualTo(1.1);
    }

    @Test
    void withoutTheKeysTheMigratorKeepsItsOwnDefaults() {
        MigratorSettings defaults = MigratorSettings.from(MigratorSettings.MODEL.defaults());
        MigratorSettings migrator = FastModeSettings.migrator(scenario(""), "mock://r", Path.of("/tmp/x"));
        assertThat(migrator.maintenanceFactor()).isEqualTo(defaults.maintenanceFactor());
    }
}
