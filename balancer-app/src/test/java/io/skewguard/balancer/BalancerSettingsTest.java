package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.balancer.policy.ControllerSettings;
import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.SettingsException;
import io.skewguard.runtime.settings.SettingsOptions;
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

    private static final String JAAS = "org.apache.kafka.common.security.plain.PlainLoginModule required "
            + "username=\"balancer\" password=\"broker-s3cret\";";

    @TempDir
    Path dir;

    /** What one run of the command printed, and its exit code. */
    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new BalancerApp(env));
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        cli.setUsageHelpWidth(200);
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private Path file(String text) throws Exception {
        Path f = dir.resolve("balancer.properties");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void defaultsAreTheDesignDefaults() {
        BalancerSettings settings = BalancerSettings.defaults();

        assertThat(settings.controller()).isEqualTo(ControllerSettings.defaults());
        assertThat(settings.controller().minRoundInterval()).isEqualTo(Duration.ofMinutes(2));
        assertThat(settings.topics().reports()).isEqualTo("skew.reports");
        assertThat(settings.clusters()).isEmpty();
        assertThat(settings.applicationId()).isEqualTo("skewguard-balancer");
        Properties streams = settings.streamsProperties();
        assertThat(streams.getProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)).isEqualTo("exactly_once_v2");
        assertThat(streams.getProperty(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo("1000");
        assertThat(streams.getProperty(StreamsConfig.REPLICATION_FACTOR_CONFIG)).isEqualTo("-1");
        assertThat(streams.getProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG)).isEqualTo("localhost:9092");
    }

    @Test
    void everyDurationDefaultIsWrittenInTheOneSyntax() {
        for (Setting s : BalancerSettings.MODEL.settings()) {
            assertThat(s.defaultValue()).as(s.name()).doesNotStartWith("PT");
        }
    }

    @Test
    void replicationFactorIsStreamsReplicationFactorAndTheKafkaKeyNamesTheSetting() {
        BalancerSettings settings = BalancerSettings.of(Map.of("replication-factor", "3"));

        assertThat(settings.replicationFactor()).isEqualTo(3);
        assertThat(settings.streamsProperties().getProperty("replication.factor")).isEqualTo("3");
        assertThatThrownBy(() -> BalancerSettings.MODEL.with(Map.of("replication.factor", "3")))
                .isInstanceOf(SettingsException.class).hasMessageContaining("set replication-factor instead");
        assertThatThrownBy(() -> BalancerSettings.MODEL.with(Map.of("replication-factor", "0")))
                .hasMessageContaining("-1 (the broker's default) or at least 1");
    }

    @Test
    void aKafkaKeyInTheFileReachesTheStreamsPropertiesAndTheSerdesGetTheRegistryCredentials() throws Exception {
        Path config = file("bootstrap.servers=kafka-1:9093\nsecurity.protocol=SASL_SSL\nsasl.mechanism=PLAIN\n"
                + "num.stream.threads=2\nbasic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=reg:pw\n");
        BalancerApp app = new BalancerApp(Map.of());
        new CommandLine(app).parseArgs("--config", config.toString());

        BalancerSettings settings = BalancerSettings.from(
                SettingsOptions.read(app.spec, BalancerSettings.MODEL, Map.of()));

        Properties streams = settings.streamsProperties();
        assertThat(streams.getProperty("security.protocol")).isEqualTo("SASL_SSL");
        assertThat(streams.getProperty("sasl.mechanism")).isEqualTo("PLAIN");
        assertThat(streams.getProperty("num.stream.threads")).isEqualTo("2");
        assertThat(streams.getProperty("bootstrap.servers")).isEqualTo("kafka-1:9093");
        assertThat(streams).doesNotContainKey("basic.auth.user.info");
        assertThat(settings.serdeConfig()).containsEntry("basic.auth.user.info", "reg:pw")
                .containsEntry("schema.registry.url", "http://localhost:8081")
                .doesNotContainKey("security.protocol");
    }

    @Test
    void atLeastOnceIsRefusedWithTheReason() {
        Run run = run(Map.of(), "--set", "processing.guarantee=at_least_once");

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().lines()).singleElement().asString()
                .startsWith("balancer: processing.guarantee=at_least_once (flag --set processing.guarantee)")
                .contains("sets processing.guarantee=exactly_once_v2")
                .contains("commit in one transaction");
    }

    @Test
    void bootstrapServersIsTheSettingSoTheLaterLayerWinsVisibly() throws Exception {
        Path config = file("bootstrap.servers=from-file:9092\n");

        Run fromEnv = run(Map.of("SKEWGUARD_BALANCER_BOOTSTRAP_SERVERS", "from-env:9092"),
                "--config", config.toString(), "--print-config");
        Run fromFlag = run(Map.of("SKEWGUARD_BALANCER_BOOTSTRAP_SERVERS", "from-env:9092"),
                "--config", config.toString(), "--bootstrap-servers", "from-flag:9092", "--print-config");
        Run fromSet = run(Map.of(), "--config", config.toString(), "--set", "bootstrap.servers=from-set:9092", "--print-config");

        assertThat(fromEnv.out()).containsPattern(
                "bootstrap\\.servers += from-env:9092  \\(environment SKEWGUARD_BALANCER_BOOTSTRAP_SERVERS\\)");
        assertThat(fromFlag.out()).containsPattern("bootstrap\\.servers += from-flag:9092  \\(flag --bootstrap-servers\\)");
        // --set KEY=VALUE of a setting counts as its flag
        assertThat(fromSet.out()).containsPattern("bootstrap\\.servers += from-set:9092  \\(flag --bootstrap-servers\\)");
        for (Run r : java.util.List.of(fromEnv, fromFlag, fromSet)) {
            assertThat(r.exitCode()).isZero();
            assertThat(r.out().lines().filter(l -> l.startsWith("bootstrap.servers"))).as("one bootstrap.servers line").hasSize(1);
        }
    }

    @Test
    void durationsTakeTheOneSyntax() {
        for (String text : new String[] {"1s", "500ms", "PT1S", "1m30s"}) {
            assertThat(BalancerSettings.of(Map.of("round-interval", text)).controller().minRoundInterval())
                    .as(text).isEqualTo(switch (text) {
                        case "500ms" -> Duration.ofMillis(500);
                        case "1m30s" -> Duration.ofSeconds(90);
                        default -> Duration.ofSeconds(1);
                    });
        }
        assertThatThrownBy(() -> BalancerSettings.MODEL.with(Map.of("round-interval", "1000")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("round-interval: '1000' has no unit")
                .hasMessageContaining("500ms, 30s, 5m");
    }

    @Test
    void aBadValueEndsTheCommandWithExitCode2AndOneLine() {
        Run gain = run(Map.of(), "--gain", "0.9");
        Run env = run(Map.of("SKEWGUARD_BALANCER_DEADBAND", "wide"));
        Run typo = run(Map.of(), "--set", "dead-band=0.1");
        Run unit = run(Map.of(), "--round-interval", "1000");

        assertThat(gain.exitCode()).isEqualTo(2);
        assertThat(gain.err().lines()).containsExactly(
                "balancer: gain: 0.9 is not allowed; it must be greater than 0 and at most 0.5 (from flag --gain)");
        assertThat(env.exitCode()).isEqualTo(2);
        assertThat(env.err().lines()).singleElement().asString()
                .isEqualTo("balancer: deadband: 'wide' is not a number (from environment SKEWGUARD_BALANCER_DEADBAND)");
        assertThat(typo.exitCode()).isEqualTo(2);
        assertThat(typo.err().lines()).singleElement().asString().contains("unknown setting 'dead-band'")
                .contains("did you mean 'deadband'?");
        assertThat(unit.exitCode()).isEqualTo(2);
        assertThat(unit.err().lines()).singleElement().asString().startsWith("balancer: round-interval: '1000' has no unit");
    }

    @Test
    void printConfigHidesSecrets() {
        Run run = run(Map.of("SKEWGUARD_BALANCER_SASL_JAAS_CONFIG", JAAS),
                "--set", "basic.auth.user.info=reg:registry-s3cret",
                "--schema-registry-url", "https://user:url-s3cret@registry:8081", "--print-config");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("sasl.jaas.config", "basic.auth.user.info", "[hidden]", "https://***@registry:8081")
                .doesNotContain("s3cret");
    }

    @Test
    void theStartUpLineHidesSecrets() {
        BalancerSettings settings = BalancerSettings.of(Map.of(
                "sasl.jaas.config", JAAS, "ssl.truststore.password", "trust-s3cret",
                "basic.auth.user.info", "reg:registry-s3cret"));

        // BalancerApp logs "starting balancer with " + settings
        assertThat(settings.toString()).startsWith("balancer settings {").contains("sasl.jaas.config=[hidden]")
                .doesNotContain("s3cret");
    }

    @Test
    void helpListsEverySettingWithItsDefault() {
        Run run = run(Map.of(), "--help");

        assertThat(run.exitCode()).isZero();
        for (Setting s : BalancerSettings.MODEL.settings()) {
            assertThat(run.out()).contains(s.flag());
        }
        assertThat(run.out()).contains("--config", "--set", "--print-config", "Default: 2m", "Default: localhost:9092",
                "SKEWGUARD_BALANCER_");
    }

    @Test
    void layersAreFileThenEnvironmentThenFlags() throws Exception {
        Path config = file("repair-target=0.25\ndeadband=0.08\nclusters=a,b\n");
        Run run = run(Map.of("SKEWGUARD_BALANCER_DEADBAND", "0.07"),
                "--config", config.toString(), "--max-step", "0.04", "--print-config");

        assertThat(run.out()).containsPattern("repair-target += 0\\.25  \\(file .*balancer\\.properties\\)")
                .containsPattern("deadband += 0\\.07  \\(environment SKEWGUARD_BALANCER_DEADBAND\\)")
                .containsPattern("max-step += 0\\.04  \\(flag --max-step\\)")
                .containsPattern("gain += 0\\.5  \\(default\\)")
                .containsPattern("clusters += a,b");
    }

    @Test
    void embeddersGiveTheSettingsByTheirNamesAndKafkaKeysAsInAFile() {
        BalancerSettings settings = BalancerSettings.of(Map.of(
                "bootstrap.servers", "broker:9092", "schema.registry.url", "mock://x", "application.id", "sim-balancer",
                "state.dir", "/tmp/sim", "round-interval", "1500ms", "commit-interval", "200ms", "deadband", "0.10",
                "num.stream.threads", "2"));

        assertThat(settings.bootstrapServers()).isEqualTo("broker:9092");
        assertThat(settings.schemaRegistryUrl()).isEqualTo("mock://x");
        assertThat(settings.stateDir()).isEqualTo("/tmp/sim");
        assertThat(settings.controller().deadband()).isEqualTo(0.10);
        assertThat(settings.controller().minRoundInterval()).isEqualTo(Duration.ofMillis(1500));
        Properties streams = settings.streamsProperties();
        assertThat(streams.getProperty("num.stream.threads")).isEqualTo("2");
        assertThat(streams.getProperty("application.id")).isEqualTo("sim-balancer");
        assertThat(streams.getProperty("commit.interval.ms")).isEqualTo("200");
        assertThat(settings.settings().kafkaKeys()).containsEntry("num.stream.threads", "2");
    }

    @Test
    void embeddersHaveTheCommandLinesOneSyntaxNoFormerNamesNoStreamsPrefixNoBareMilliseconds() {
        assertThatThrownBy(() -> BalancerSettings.of(Map.of("bootstrap-servers", "broker:9092")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("unknown setting 'bootstrap-servers'").hasMessageContaining("did you mean 'bootstrap.servers'?");
        assertThatThrownBy(() -> BalancerSettings.of(Map.of("streams.num.stream.threads", "2")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("unknown setting 'streams.num.stream.threads'");
        assertThatThrownBy(() -> BalancerSettings.of(Map.of("round-interval", "1500")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("round-interval: '1500' has no unit");
    }
}
