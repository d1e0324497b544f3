package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.runtime.settings.SettingsException;
import java.io.IOException;
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

class DetectorSettingsTest {

    @TempDir
    Path dir;

    private static DetectorSettings resolve(Map<String, String> file, Map<String, String> env, Map<String, String> flags) {
        return DetectorSettings.from(DetectorSettings.MODEL.resolve(file, "detector.properties", env, flags));
    }

    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new DetectorApp());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private Path file(String content) throws IOException {
        Path f = dir.resolve("detector.properties");
        Files.writeString(f, content);
        return f;
    }

    @Test
    void defaultsAreTheDesignDefaults() {
        DetectorSettings s = DetectorSettings.defaultSettings();
        assertThat(s.window()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.tick()).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.grace()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.cooldown()).isEqualTo(Duration.ofMinutes(5));
        assertThat(s.heatThreshold()).isEqualTo(0.40);
        assertThat(s.capacityThreshold()).isEqualTo(0.25);
        assertThat(s.hysteresis()).isEqualTo(0.10);
        assertThat(s.topSlots()).isEqualTo(10);
        assertThat(s.applicationId()).isEqualTo("skewguard-detector");
        assertThat(s.processingGuarantee()).isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
        assertThat(s.purgeInterval()).isEqualTo(Duration.ofSeconds(30));
        assertThat(s.ingestThreads()).as("one ingest loop").isEqualTo(1);
        assertThat(s.ingestTakeThread()).as("the loop takes on a thread of its own").isTrue();
        assertThat(s.topics().nodeWrites()).isEqualTo("skew.node-writes");
        assertThat(s.streamsProperties())
                .containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "1000")
                .containsEntry(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, "exactly_once_v2")
                .containsEntry(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "1")
                .containsEntry(StreamsConfig.APPLICATION_ID_CONFIG, "skewguard-detector")
                .doesNotContainKey(StreamsConfig.STATE_DIR_CONFIG); // empty: Kafka Streams' own default
    }

    @Test
    void theFileIsOverriddenByTheEnvironmentWhichIsOverriddenByFlags() {
        Map<String, String> file = Map.of("window", "120s", "tick", "20s", "cooldown", "10m", "bootstrap.servers", "file:9092");
        Map<String, String> env = Map.of("SKEWGUARD_DETECTOR_TICK", "30s", "SKEWGUARD_DETECTOR_COOLDOWN", "7m",
                "SKEWGUARD_DETECTOR_SECURITY_PROTOCOL", "SSL", "PATH", "/usr/bin");
        DetectorSettings s = resolve(file, env, Map.of("cooldown", "2m"));

        assertThat(s.window()).isEqualTo(Duration.ofSeconds(120)); // file
        assertThat(s.tick()).isEqualTo(Duration.ofSeconds(30)); // environment over file
        assertThat(s.cooldown()).isEqualTo(Duration.ofMinutes(2)); // flag over environment
        assertThat(s.settings().origin("cooldown")).isEqualTo("flag --cooldown");
        assertThat(s.bootstrapServers()).isEqualTo("file:9092");
        assertThat(s.streamsProperties()).containsEntry("security.protocol", "SSL").containsEntry("bootstrap.servers", "file:9092");
    }

    @Test
    void aKafkaKeyInTheFileReachesEveryClientButASerdeKeyOnlyTheSerdes() {
        DetectorSettings s = resolve(Map.of("security.protocol", "SASL_SSL", "basic.auth.credentials.source", "USER_INFO",
                "schema.registry.url", "http://registry:8081"), Map.of(), Map.of());

        assertThat(s.ingestConsumerProperties("c")).containsEntry("security.protocol", "SASL_SSL");
        assertThat(s.ingestProducerProperties("t")).containsEntry("security.protocol", "SASL_SSL");
        assertThat(s.adminProperties()).containsEntry("security.protocol", "SASL_SSL");
        assertThat(s.streamsProperties()).containsEntry("security.protocol", "SASL_SSL");
        for (Properties client : new Properties[] {s.ingestConsumerProperties("c"), s.ingestProducerProperties("t"),
                s.adminProperties(), s.streamsProperties()}) {
            assertThat(client).doesNotContainKeys("basic.auth.credentials.source", "schema.registry.url");
        }
        assertThat(s.serdeConfig()).containsEntry("basic.auth.credentials.source", "USER_INFO")
                .containsEntry("schema.registry.url", "http://registry:8081")
                .doesNotContainKey("security.protocol");
    }

    @Test
    void theIngestClientsGetTheDetectorsGuaranteesAndTheirOwnIdentity() {
        DetectorSettings s = DetectorSettings.defaultSettings().with(Map.of("consumer.max.poll.records", "500"));
        assertThat(s.ingestConsumerProperties("loop-0"))
                .containsEntry("isolation.level", "read_committed")
                .containsEntry("enable.auto.commit", "false")
                .containsEntry("group.id", "skewguard-detector-ingest")
                .containsEntry("client.id", "loop-0")
                .containsEntry("max.poll.records", "500")
                .containsEntry("fetch.max.wait.ms", "100");
        assertThat(DetectorSettings.defaultSettings().with(Map.of("consumer.fetch.max.wait.ms", "500"))
                .ingestConsumerProperties("loop-0"))
                .as("a fetch.max.wait.ms given is kept")
                .containsEntry("fetch.max.wait.ms", "500");
        assertThat(s.ingestProducerProperties("tx-0"))
                .containsEntry("enable.idempotence", "true")
                .containsEntry("acks", "all")
                .containsEntry("transactional.id", "tx-0");
    }

    @Test
    void readUncommittedIsRefusedWithTheReason() {
        assertThatThrownBy(() -> resolve(Map.of("isolation.level", "read_uncommitted"), Map.of(), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("isolation.level=read_uncommitted")
                .hasMessageContaining("file detector.properties")
                .hasMessageContaining("must not read partials or events of aborted transactions");
    }

    @Test
    void commitIntervalMsIsRefusedNamingTheSettingToUse() {
        assertThatThrownBy(() -> resolve(Map.of("commit.interval.ms", "100"), Map.of(), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("commit.interval.ms")
                .hasMessageContaining("set commit-interval instead");
    }

    @Test
    void anUnknownEnvironmentVariableWithTheDetectorsPrefixIsRefused() {
        assertThatThrownBy(() -> resolve(Map.of(), Map.of("SKEWGUARD_DETECTOR_FOO", "1"), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("SKEWGUARD_DETECTOR_FOO names no detector setting");
    }

    @Test
    void processingGuaranteeIsExactlyOnceV2OrAtLeastOnce() {
        assertThat(resolve(Map.of(), Map.of(), Map.of("processing-guarantee", "at_least_once")).streamsProperties())
                .containsEntry(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, "at_least_once");
        assertThatThrownBy(() -> resolve(Map.of(), Map.of(), Map.of("processing-guarantee", "exactly_once")))
                .hasMessageContaining("one of exactly_once_v2, at_least_once");
        assertThatThrownBy(() -> resolve(Map.of("processing.guarantee", "at_least_once"), Map.of(), Map.of()))
                .hasMessageContaining("set processing-guarantee instead");
    }

    @Test
    void threadsSetNumStreamThreads() {
        assertThat(resolve(Map.of("threads", "3"), Map.of(), Map.of()).streamsProperties())
                .containsEntry(StreamsConfig.NUM_STREAM_THREADS_CONFIG, "3");
    }

    @Test
    void embeddersGiveTheSettingsByTheirNamesAndKafkaKeysAsInAFile() {
        DetectorSettings s = DetectorSettings.of(Map.of(
                "bootstrap.servers", "broker:9092", "schema.registry.url", "mock://x", "application.id", "app",
                "state.dir", "/tmp/state", "commit-interval", "200ms", "tick", "1s", "window", "3s",
                "session.timeout.ms", "6000"));
        assertThat(s.bootstrapServers()).isEqualTo("broker:9092");
        assertThat(s.schemaRegistryUrl()).isEqualTo("mock://x");
        assertThat(s.stateDir()).isEqualTo("/tmp/state");
        assertThat(s.streamsProperties()).containsEntry("application.id", "app").containsEntry("session.timeout.ms", "6000")
                .containsEntry("commit.interval.ms", "200").containsEntry("state.dir", "/tmp/state");
        assertThat(s.with(Map.of(DetectorSettings.STATE_DIR, "/tmp/other")).stateDir()).isEqualTo("/tmp/other");
        assertThat(s.with(Map.of("purge-interval", "0")).purgeInterval()).isZero();
    }

    @Test
    void embeddersHaveTheCommandLinesOneSyntaxNoFlagNamesAndNoBareMilliseconds() {
        assertThatThrownBy(() -> DetectorSettings.of(Map.of("state-dir", "/tmp/state")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("unknown setting 'state-dir'").hasMessageContaining("did you mean 'state.dir'?");
        assertThatThrownBy(() -> DetectorSettings.of(Map.of("commit-interval", "200")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("commit-interval: '200' has no unit");
        assertThatThrownBy(() -> DetectorSettings.defaultSettings().with(Map.of("bootstrap-servers", "broker:9092")))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("unknown setting 'bootstrap-servers'");
    }

    @Test
    void windowGeometryAndRangesAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> resolve(Map.of(), Map.of(), Map.of("window", "65s")))
                .isInstanceOf(SettingsException.class)
                .hasMessage("window: 1m5s (from flag --window) must be a multiple of tick 10s (from default)");
        assertThatThrownBy(() -> resolve(Map.of(), Map.of(), Map.of("hysteresis", "1.5")))
                .hasMessageContaining("hysteresis").hasMessageContaining("below 1");
        assertThatThrownBy(() -> resolve(Map.of(), Map.of(), Map.of("purge-interval", "-1s")))
                .hasMessageContaining("purge-interval");
    }

    @Test
    void printConfigHidesSecrets() throws IOException {
        Path f = file("""
                sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="hunter2";
                basic.auth.user.info=registry-user:registry-secret
                window=2m
                """);
        Run r = run("--config", f.toString(), "--print-config");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("sasl.jaas.config", "basic.auth.user.info", "[hidden]")
                .contains("window").contains("2m").contains("file " + f)
                .doesNotContain("hunter2").doesNotContain("registry-secret").doesNotContain("registry-user");
    }

    @Test
    void aBadDurationEndsTheCommandWithExitCode2AndOneLine() {
        Run r = run("--window", "soon");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n")
                .startsWith("detector: window: 'soon' is not a duration").endsWith("(from flag --window)");
    }

    @Test
    void aBadWindowGeometryEndsTheCommandWithExitCode2AndOneLine() {
        Run r = run("--tick", "7s");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("detector: window: 1m (from default) must be a multiple of tick 7s (from flag --tick)");
    }

    @Test
    void aSkewPrefixedFileKeyIsRefused() throws IOException {
        Run r = run("--config", file("skew.window=60s\n").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("unknown setting 'skew.window'");
    }

    @Test
    void helpListsEverySettingWithItsDefault() {
        Run r = run("--help");
        assertThat(r.out()).contains("--bootstrap-servers", "--schema-registry-url", "--application-id", "--state-dir",
                "--commit-interval", "--threads", "--processing-guarantee", "--window", "Default: 60s", "Default: 5m",
                "SKEWGUARD_DETECTOR_", "--config", "--set", "--print-config", "replay");
    }
}
