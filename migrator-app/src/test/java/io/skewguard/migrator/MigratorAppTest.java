package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MigratorAppTest {

    @TempDir
    Path dir;

    @Test
    void helpListsEverySettingAsAFlagWithItsDefault() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new MigratorApp(Map.of()));
        cli.setOut(new PrintWriter(out));

        int exit = cli.execute("--help");

        assertThat(exit).isZero();
        for (Map.Entry<String, String> setting : MigratorSettings.defaults().entrySet()) {
            assertThat(out.toString()).contains("--" + setting.getKey());
        }
        assertThat(out.toString()).contains("Default: 0.10").contains("Default: PT30S").contains("--config");
    }

    @Test
    void defaultsAreThoseOfTheDesign() {
        MigratorSettings s = MigratorSettings.from(Map.of());

        assertThat(s.targetCv()).isEqualTo(0.10);
        assertThat(s.slotCount()).isEqualTo(256);
        assertThat(s.candidates()).isEqualTo(8);
        assertThat(s.vnodesPerUnit()).isEqualTo(150);
        assertThat(s.commitInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.topics().slotTable()).isEqualTo("skew.slot-table");
    }

    @Test
    void flagsOverrideTheEnvironmentWhichOverridesTheFile() throws Exception {
        Path file = dir.resolve("migrator.properties");
        Files.writeString(file, "max-parallel=2\ntarget-cv=0.05\nprepare-timeout=PT1M\n");
        MigratorApp app = new MigratorApp(Map.of("SKEWGUARD_MIGRATOR_MAX_PARALLEL", "3", "SKEWGUARD_MIGRATOR_TARGET_CV", "0.07"));
        new CommandLine(app).parseArgs("--config", file.toString(), "--max-parallel", "5");

        MigratorSettings s = app.settings();

        assertThat(s.maxParallel()).isEqualTo(5);
        assertThat(s.targetCv()).isEqualTo(0.07);
        assertThat(s.prepareTimeout()).isEqualTo(Duration.ofMinutes(1));
        assertThat(s.retryInterval()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void anUnknownOrMalformedSettingIsRefusedAtStart() {
        assertThatThrownBy(() -> MigratorSettings.from(Map.of("max-paralel", "2"))).hasMessageContaining("unknown migrator setting");
        assertThatThrownBy(() -> MigratorSettings.from(Map.of("prepare-timeout", "soon"))).hasMessageContaining("prepare-timeout");
        assertThatThrownBy(() -> MigratorSettings.from(Map.of("budget-floor", "0"))).hasMessageContaining("never zero");
    }
}
