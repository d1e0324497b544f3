package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.SettingsException;
import io.skewguard.runtime.settings.SettingsOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class MigratorAppTest {

    private static final String JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required "
            + "username=\"migrator\" password=\"broker-s3cret\";";

    @TempDir
    Path dir;

    /** What one run of the command printed, and its exit code. */
    private record Run(int exitCode, String out, String err) {
    }

    private static Run run(Map<String, String> env, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new MigratorApp(env));
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        cli.setUsageHelpWidth(200);
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private Path file(String text) throws Exception {
        Path f = dir.resolve("migrator.properties");
        Files.writeString(f, text);
        return f;
    }

    @Test
    void defaultsAreThoseOfTheDesign() {
        MigratorSettings s = MigratorSettings.of(Map.of());

        assertThat(s.targetCv()).isEqualTo(0.10);
        assertThat(s.slotCount()).isEqualTo(256);
        assertThat(s.candidates()).isEqualTo(8);
        assertThat(s.vnodesPerUnit()).isEqualTo(150);
        assertThat(s.maxBytesPerSec()).isEqualTo(100L * 1024 * 1024);
        assertThat(s.peakHalfLife()).isEqualTo(Duration.ofHours(48));
        assertThat(s.copyStallTimeout()).isEqualTo(Duration.ofMinutes(10));
        assertThat(s.prepareTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.abortTimeout()).isEqualTo(Duration.ofMinutes(2));
        assertThat(s.maintenanceHold()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.commitInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.topics().slotTable()).isEqualTo("skew.slot-table");
        Properties streams = MigratorTopology.streamsConfig(s);
        assertThat(streams.getProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG)).isEqualTo("exactly_once_v2");
        assertThat(streams.getProperty(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).isEqualTo("1000");
        assertThat(streams.getProperty(StreamsConfig.APPLICATION_ID_CONFIG)).isEqualTo("skewguard-migrator");
        assertThat(streams.getProperty(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG)).isEqualTo("0");
    }

    @Test
    void everyDurationDefaultIsWrittenInTheOneSyntax() {
        for (Setting s : MigratorSettings.MODEL.settings()) {
            assertThat(s.defaultValue()).as(s.name()).doesNotStartWith("PT");
        }
    }

    @Test
    void aKafkaKeyInTheFileReachesTheStreamsPropertiesAndTheSerdesGetTheRegistryCredentials() throws Exception {
        Path config = file("bootstrap.servers=kafka-1:9093\nsecurity.protocol=SASL_SSL\nsasl.mechanism=SCRAM-SHA-512\n"
                + "consumer.max.poll.records=50\nbasic.auth.credentials.source=USER_INFO\nbasic.auth.user.info=reg:pw\n"
                + "schema.registry.ssl.truststore.location=/etc/registry.jks\n");
        MigratorApp app = new MigratorApp(Map.of());
        new CommandLine(app).parseArgs("--config", config.toString());

        MigratorSettings settings = MigratorSettings.from(SettingsOptions.read(app.spec, MigratorSettings.MODEL, Map.of()));

        Properties streams = MigratorTopology.streamsConfig(settings);
        assertThat(streams.getProperty("security.protocol")).isEqualTo("SASL_SSL");
        assertThat(streams.getProperty("sasl.mechanism")).isEqualTo("SCRAM-SHA-512");
        assertThat(streams.getProperty("consumer.max.poll.records")).isEqualTo("50");
        assertThat(streams.getProperty("bootstrap.servers")).isEqualTo("kafka-1:9093");
        assertThat(streams).doesNotContainKey("basic.auth.user.info");
        assertThat(settings.serdeConfig()).containsEntry("basic.auth.user.info", "reg:pw")
                .containsEntry("schema.registry.ssl.truststore.location", "/etc/registry.jks")
                .doesNotContainKey("security.protocol");
    }

    @Test
    void atLeastOnceIsRefusedWithTheReason() throws Exception {
        Run run = run(Map.of(), "--config", file("processing.guarantee=at_least_once\n").toString());

        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().lines()).singleElement().asString()
                .startsWith("migrator: processing.guarantee=at_least_once (file ")
                .contains("sets processing.guarantee=exactly_once_v2")
                .contains("commit in one transaction");
    }

    @Test
    void bootstrapServersIsTheSettingSoTheLaterLayerWinsVisibly() throws Exception {
        Path config = file("bootstrap.servers=from-file:9092\n");

        Run fromFile = run(Map.of(), "--config", config.toString(), "--print-config");
        Run fromEnv = run(Map.of("SKEWGUARD_MIGRATOR_BOOTSTRAP_SERVERS", "from-env:9092"),
                "--config", config.toString(), "--print-config");
        Run fromFlag = run(Map.of("SKEWGUARD_MIGRATOR_BOOTSTRAP_SERVERS", "from-env:9092"),
                "--config", config.toString(), "--bootstrap-servers", "from-flag:9092", "--print-config");

        assertThat(fromFile.out()).containsPattern("bootstrap\\.servers += from-file:9092  \\(file .*migrator\\.properties\\)");
        assertThat(fromEnv.out()).containsPattern(
                "bootstrap\\.servers += from-env:9092  \\(environment SKEWGUARD_MIGRATOR_BOOTSTRAP_SERVERS\\)");
        assertThat(fromFlag.out()).containsPattern("bootstrap\\.servers += from-flag:9092  \\(flag --bootstrap-servers\\)");
        for (Run r : List.of(fromFile, fromEnv, fromFlag)) {
            assertThat(r.exitCode()).isZero();
            assertThat(r.out().lines().filter(l -> l.startsWith("bootstrap.servers"))).as("one bootstrap.servers line").hasSize(1);
        }
    }

    @Test
    void durationsTakeTheOneSyntax() {
        assertThat(MigratorSettings.of(Map.of("tick-interval", "1s")).tickInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(MigratorSettings.of(Map.of("tick-interval", "500ms")).tickInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(MigratorSettings.of(Map.of("tick-interval", "PT1S")).tickInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(MigratorSettings.of(Map.of("prepare-timeout", "1m30s")).prepareTimeout()).isEqualTo(Duration.ofSeconds(90));
        assertThatThrownBy(() -> MigratorSettings.of(Map.of("tick-interval", "1000")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("tick-interval: '1000' has no unit")
                .hasMessageContaining("500ms, 30s, 5m");
    }

    @Test
    void aBadValueEndsTheCommandWithExitCode2AndOneLine() {
        Run floor = run(Map.of(), "--budget-floor", "0");
        Run env = run(Map.of("SKEWGUARD_MIGRATOR_PREPARE_TIMEOUT", "soon"));
        Run typo = run(Map.of(), "--set", "max-paralel=2");
        Run acrossSettings = run(Map.of(), "--low-load", "0.8", "--high-load", "0.6");

        assertThat(floor.exitCode()).isEqualTo(2);
        assertThat(floor.err().lines()).containsExactly("migrator: budget-floor: 0 is not allowed; it must be greater than 0 "
                + "(the budget is never zero) and at most 1 (from flag --budget-floor)");
        assertThat(env.exitCode()).isEqualTo(2);
        assertThat(env.err().lines()).singleElement().asString()
                .startsWith("migrator: prepare-timeout: 'soon' is not a duration")
                .endsWith("(from environment SKEWGUARD_MIGRATOR_PREPARE_TIMEOUT)");
        assertThat(typo.exitCode()).isEqualTo(2);
        assertThat(typo.err().lines()).singleElement().asString().contains("unknown setting 'max-paralel'")
                .contains("did you mean 'max-parallel'?");
        assertThat(acrossSettings.exitCode()).isEqualTo(2);
        assertThat(acrossSettings.err().lines()).singleElement().asString().startsWith("migrator: ").contains("lowLoad < highLoad");
    }

    @Test
    void printConfigHidesSecrets() {
        Run run = run(Map.of("SKEWGUARD_MIGRATOR_SASL_JAAS_CONFIG", JAAS),
                "--set", "basic.auth.user.info=reg:registry-s3cret",
                "--set", "ssl.keystore.password=keystore-s3cret", "--print-config");

        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("sasl.jaas.config", "basic.auth.user.info", "ssl.keystore.password", "[hidden]")
                .doesNotContain("s3cret");
    }

    @Test
    void theStartUpLineHidesSecrets() {
        MigratorSettings settings = MigratorSettings.of(Map.of("sasl.jaas.config", JAAS, "basic.auth.user.info", "reg:registry-s3cret"));

        // MigratorApp logs "starting migrator with " + settings
        assertThat(settings.toString()).startsWith("migrator settings {").contains("sasl.jaas.config=[hidden]")
                .doesNotContain("s3cret");
    }

    @Test
    void helpListsEverySettingAsAFlagWithItsDefault() {
        Run run = run(Map.of(), "--help");

        assertThat(run.exitCode()).isZero();
        for (Setting s : MigratorSettings.MODEL.settings()) {
            assertThat(run.out()).contains(s.flag());
        }
        assertThat(run.out()).contains("Default: 0.1.", "Default: 30s", "Default: 48h", "--config", "--set", "--print-config");
    }

    @Test
    void layersAreFileThenEnvironmentThenFlags() throws Exception {
        Path config = file("max-parallel=2\ntarget-cv=0.05\nprepare-timeout=1m\n");
        Run run = run(Map.of("SKEWGUARD_MIGRATOR_MAX_PARALLEL", "3", "SKEWGUARD_MIGRATOR_TARGET_CV", "0.07"),
                "--config", config.toString(), "--max-parallel", "5", "--print-config");

        assertThat(run.out()).containsPattern("max-parallel += 5  \\(flag --max-parallel\\)")
                .containsPattern("target-cv += 0\\.07  \\(environment SKEWGUARD_MIGRATOR_TARGET_CV\\)")
                .containsPattern("prepare-timeout += 1m  \\(file .*\\)")
                .containsPattern("retry-interval += 30s  \\(default\\)");
    }

    @Test
    void embeddersGiveTheSettingsByTheirNamesAndDurationsWithAUnit() {
        MigratorSettings s = MigratorSettings.of(Map.of(
                "bootstrap.servers", "broker:9092", "schema.registry.url", "mock://x", "application.id", "sim-migrator",
                "state.dir", "/tmp/sim", "commit-interval", "200ms", "tick-interval", "250ms", "prepare-timeout", "20s",
                "max-parallel", "2"));

        assertThat(s.bootstrapServers()).isEqualTo("broker:9092");
        assertThat(s.schemaRegistryUrl()).isEqualTo("mock://x");
        assertThat(s.applicationId()).isEqualTo("sim-migrator");
        assertThat(s.stateDir()).isEqualTo("/tmp/sim");
        assertThat(s.commitInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(s.tickInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(s.prepareTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(s.maxParallel()).isEqualTo(2);
        assertThat(MigratorTopology.streamsConfig(s).getProperty("commit.interval.ms")).isEqualTo("200");
    }

    @Test
    void embeddersHaveTheCommandLinesOneSyntaxNoFormerNamesAndNoBareMilliseconds() {
        assertThatThrownBy(() -> MigratorSettings.of(Map.of("state-dir", "/tmp/sim")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("unknown setting 'state-dir'").hasMessageContaining("did you mean 'state.dir'?");
        assertThatThrownBy(() -> MigratorSettings.of(Map.of("tick-interval", "250")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("tick-interval: '250' has no unit");
        assertThatThrownBy(() -> MigratorSettings.of(Map.of("max-paralel", "2"))).hasMessageContaining("unknown setting 'max-paralel'");
    }
}
