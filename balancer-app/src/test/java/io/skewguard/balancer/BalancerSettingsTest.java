package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.balancer.policy.ControllerSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class BalancerSettingsTest {

    @Test
    void defaultsAreTheDesignDefaults() {
        BalancerSettings settings = BalancerSettings.defaults();

        assertThat(settings.controller()).isEqualTo(ControllerSettings.defaults());
        assertThat(settings.controller().minWeight()).isEqualTo(0.5);
        assertThat(settings.controller().maxWeight()).isEqualTo(2.0);
        assertThat(settings.controller().maxStep()).isEqualTo(0.05);
        assertThat(settings.controller().deadband()).isEqualTo(0.05);
        assertThat(settings.controller().repairTarget()).isEqualTo(0.20);
        assertThat(settings.controller().minRoundInterval()).isEqualTo(Duration.ofMinutes(2));
        assertThat(settings.controller().decay()).isZero();
        assertThat(settings.topics().reports()).isEqualTo("skew.reports");
        assertThat(settings.clusters()).isEmpty();
        Properties streams = settings.streamsProperties();
        assertThat(streams.getProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)).isEqualTo("exactly_once_v2");
        assertThat(streams.getProperty(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo("1000");
    }

    @Test
    void flagsOverrideEnvironmentWhichOverridesTheFile() {
        Properties file = new Properties();
        file.setProperty("deadband", "0.10");
        file.setProperty("repair-target", "0.25");
        file.setProperty("gain", "0.4");
        file.setProperty("streams.num.stream.threads", "2");
        Map<String, String> env = Map.of(
                "SKEWGUARD_BALANCER_REPAIR_TARGET", "0.22", "SKEWGUARD_BALANCER_GAIN", "0.3");
        Map<String, String> flags = Map.of("gain", "0.2", "round-interval", "90s");

        BalancerSettings settings = BalancerSettings.resolve(file, env, flags);

        assertThat(settings.controller().deadband()).isEqualTo(0.10);
        assertThat(settings.controller().repairTarget()).isEqualTo(0.22);
        assertThat(settings.controller().gain()).isEqualTo(0.2);
        assertThat(settings.controller().minRoundInterval()).isEqualTo(Duration.ofSeconds(90));
        assertThat(settings.streamsProperties().getProperty("num.stream.threads")).isEqualTo("2");
    }

    @Test
    void malformedValueNamesKeyAndSource() {
        assertThatThrownBy(() -> BalancerSettings.resolve(
                        new Properties(), Map.of("SKEWGUARD_BALANCER_DEADBAND", "wide"), Map.of()))
                .hasMessageContaining("deadband from environment variable SKEWGUARD_BALANCER_DEADBAND")
                .hasMessageContaining("'wide'");
        Properties typo = new Properties();
        typo.setProperty("dead-band", "0.1");
        assertThatThrownBy(() -> BalancerSettings.resolve(typo, Map.of(), Map.of()))
                .hasMessageContaining("unknown setting 'dead-band'");
        assertThatThrownBy(() -> BalancerSettings.resolve(new Properties(), Map.of(), Map.of("gain", "0.9")))
                .hasMessageContaining("gain must be in (0, 0.5]");
    }

    @Test
    void helpListsEveryFlagWithItsDefault() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new BalancerApp(Map.of()));
        cli.setOut(new PrintWriter(out));
        cli.setUsageHelpWidth(200); // one line per flag, so each default sits next to its flag

        assertThat(cli.execute("--help")).isZero();

        String help = out.toString();
        for (Map.Entry<String, String> setting : BalancerSettings.DEFAULTS.entrySet()) {
            assertThat(help).contains("--" + setting.getKey());
        }
        assertThat(help).contains("--bootstrap-servers", "--schema-registry-url", "--config")
                .contains("Default: 0.05").contains("Default: 0.2").contains("Default: 2m")
                .contains("Default: localhost:9092");
    }

    @Test
    void appResolvesFileThenEnvironmentThenOnlyTheFlagsGiven(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("balancer.properties");
        Files.writeString(config, "repair-target=0.25\ndeadband=0.08\nclusters=a,b\n");
        BalancerApp app = new BalancerApp(Map.of("SKEWGUARD_BALANCER_DEADBAND", "0.07"));
        new CommandLine(app).parseArgs("--config", config.toString(), "--max-step", "0.04");

        BalancerSettings settings = app.settings();

        assertThat(settings.controller().repairTarget()).isEqualTo(0.25);
        assertThat(settings.controller().deadband()).isEqualTo(0.07);
        assertThat(settings.controller().maxStep()).isEqualTo(0.04);
        assertThat(settings.clusters()).containsExactly("a", "b");
        assertThat(settings.controller().gain()).as("untouched default").isEqualTo(0.5);
    }
}
