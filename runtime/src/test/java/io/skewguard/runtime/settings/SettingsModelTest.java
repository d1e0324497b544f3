package io.skewguard.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class SettingsModelTest {

    static final SettingsModel MODEL = SettingsModel.builder("sample")
            .description("A sample app.")
            .add(CommonSettings.bootstrapServers(), CommonSettings.schemaRegistryUrl(), CommonSettings.applicationId("sample-app"),
                    CommonSettings.commitInterval(), CommonSettings.clusters())
            .add(Setting.duration("window", "60s", "Window length.").validatedBy(Validator.positive()),
                    Setting.number("heat-threshold", 0.4, "Heat alert threshold.").validatedBy(Validator.between(0, 1)),
                    Setting.integer("threads", 1, "Stream threads.").validatedBy(Validator.atLeast(1))
                            .mapsTo("num.stream.threads", String::valueOf))
            .fixes("processing.guarantee", "exactly_once_v2", "its output is exactly-once")
            .fixes("isolation.level", "read_committed", "it must not read aborted transactions")
            .build();

    @Test
    void defaultsAreTypedAndComeFromTheDeclaration() {
        Settings s = MODEL.defaults();
        assertThat(s.duration("window")).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.number("heat-threshold")).isEqualTo(0.4);
        assertThat(s.list("clusters")).isEmpty();
        assertThat(s.origin("window")).isEqualTo("default");
    }

    @Test
    void laterLayersWinFileThenEnvironmentThenFlags() {
        Settings s = MODEL.resolve(
                Map.of("window", "30s", "heat-threshold", "0.3", "threads", "2"), "app.properties",
                Map.of("SKEWGUARD_SAMPLE_WINDOW", "20s", "SKEWGUARD_SAMPLE_HEAT_THRESHOLD", "0.2", "OTHER_VAR", "x"),
                Map.of("window", "10s"));
        assertThat(s.duration("window")).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.origin("window")).isEqualTo("flag --window");
        assertThat(s.number("heat-threshold")).isEqualTo(0.2);
        assertThat(s.origin("heat-threshold")).isEqualTo("environment SKEWGUARD_SAMPLE_HEAT_THRESHOLD");
        assertThat(s.integer("threads")).isEqualTo(2);
        assertThat(s.origin("threads")).isEqualTo("file app.properties");
    }

    @Test
    void kafkaKeysReachOnlyTheClientsThatKnowThem() {
        Settings s = MODEL.resolve(Map.of(
                        "security.protocol", "SASL_SSL",
                        "sasl.mechanism", "SCRAM-SHA-256",
                        "max.poll.records", "100",
                        "linger.ms", "20",
                        "producer.batch.size", "65536",
                        "basic.auth.user.info", "u:p"), null,
                Map.of("SKEWGUARD_SAMPLE_SASL_JAAS_CONFIG", "x required;"), Map.of("bootstrap.servers", "b:9093"));
        Properties consumer = s.clientProperties(ClientType.CONSUMER);
        assertThat(consumer).containsEntry("security.protocol", "SASL_SSL").containsEntry("sasl.jaas.config", "x required;")
                .containsEntry("max.poll.records", "100").containsEntry("bootstrap.servers", "b:9093")
                .containsEntry("isolation.level", "read_committed")
                .doesNotContainKeys("linger.ms", "basic.auth.user.info", "schema.registry.url", "processing.guarantee");
        Properties producer = s.clientProperties(ClientType.PRODUCER);
        assertThat(producer).containsEntry("linger.ms", "20").containsEntry("batch.size", "65536")
                .doesNotContainKeys("max.poll.records", "isolation.level", "basic.auth.user.info");
        Properties admin = s.clientProperties(ClientType.ADMIN);
        assertThat(admin).containsEntry("security.protocol", "SASL_SSL").doesNotContainKeys("linger.ms", "max.poll.records");
        Properties streams = s.clientProperties(ClientType.STREAMS);
        assertThat(streams).containsEntry("application.id", "sample-app").containsEntry("commit.interval.ms", "1000")
                .containsEntry("num.stream.threads", "1").containsEntry("processing.guarantee", "exactly_once_v2")
                .containsEntry("producer.batch.size", "65536").containsEntry("security.protocol", "SASL_SSL")
                .doesNotContainKeys("basic.auth.user.info", "schema.registry.url");
        assertThat(s.serdeConfig()).containsEntry("schema.registry.url", "http://localhost:8081")
                .containsEntry("basic.auth.user.info", "u:p").doesNotContainKey("security.protocol");
    }

    @Test
    void aFixedKeyWithAnotherValueIsRefusedSayingWhy() {
        assertThatThrownBy(() -> MODEL.resolve(Map.of("processing.guarantee", "at_least_once"), "a.properties", Map.of(), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessageContaining("processing.guarantee=at_least_once").hasMessageContaining("file a.properties")
                .hasMessageContaining("exactly-once");
        assertThatThrownBy(() -> MODEL.resolve(Map.of(), null, Map.of(), Map.of("consumer.isolation.level", "read_uncommitted")))
                .isInstanceOf(SettingsException.class).hasMessageContaining("aborted transactions");
        // the same value is fine
        assertThat(MODEL.resolve(Map.of("isolation.level", "READ_COMMITTED"), null, Map.of(), Map.of())).isNotNull();
    }

    @Test
    void aKafkaKeyASettingStandsForIsRefusedNamingTheSetting() {
        assertThatThrownBy(() -> MODEL.resolve(Map.of("commit.interval.ms", "100"), "a.properties", Map.of(), Map.of()))
                .isInstanceOf(SettingsException.class).hasMessageContaining("set commit-interval instead");
        assertThatThrownBy(() -> MODEL.resolve(Map.of("num.stream.threads", "4"), null, Map.of(), Map.of()))
                .hasMessageContaining("set threads instead");
    }

    @Test
    void unknownKeysAndVariablesAreRefusedWithASuggestion() {
        assertThatThrownBy(() -> MODEL.resolve(Map.of("windw", "10s"), "a.properties", Map.of(), Map.of()))
                .isInstanceOf(SettingsException.class).hasMessageContaining("unknown setting 'windw'")
                .hasMessageContaining("did you mean 'window'");
        assertThatThrownBy(() -> MODEL.resolve(Map.of(), null, Map.of("SKEWGUARD_SAMPLE_FOO", "1"), Map.of()))
                .isInstanceOf(SettingsException.class).hasMessageContaining("SKEWGUARD_SAMPLE_FOO");
    }

    @Test
    void badValuesNameTheKeyTheValueTheOriginAndWhatIsAllowed() {
        assertThatThrownBy(() -> MODEL.resolve(Map.of(), null, Map.of("SKEWGUARD_SAMPLE_WINDOW", "1000"), Map.of()))
                .isInstanceOf(SettingsException.class)
                .hasMessageStartingWith("window: '1000' has no unit")
                .hasMessageContaining("environment SKEWGUARD_SAMPLE_WINDOW");
        assertThatThrownBy(() -> MODEL.resolve(Map.of(), null, Map.of(), Map.of("heat-threshold", "1.5")))
                .hasMessage("heat-threshold: 1.5 is not allowed; it must be from 0 to 1 (from flag --heat-threshold)");
        assertThatThrownBy(() -> MODEL.resolve(Map.of(), null, Map.of(), Map.of("threads", "two")))
                .hasMessageContaining("threads: 'two' is not a whole number");
    }

    @Test
    void secretsNeverShowInDescribeOrToString() {
        Settings s = MODEL.resolve(Map.of(
                "sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\"hunter2\";",
                "ssl.truststore.password", "hunter2", "basic.auth.user.info", "reg:hunter2",
                "schema.registry.url", "https://reg:hunter2@registry:8081"), "a.properties", Map.of(), Map.of());
        assertThat(s.describe()).doesNotContain("hunter2").contains("sasl.jaas.config").contains("[hidden]")
                .contains("https://***@registry:8081").contains("(file a.properties)");
        assertThat(s.toString()).doesNotContain("hunter2");
        // the clients still get the real values
        assertThat(s.clientProperties(ClientType.CONSUMER).getProperty("ssl.truststore.password")).isEqualTo("hunter2");
    }

    @Test
    void describeShowsEveryValueWithItsOriginAndTheFixedKeys() {
        String d = MODEL.resolve(Map.of(), null, Map.of(), Map.of("window", "5m")).describe();
        assertThat(d).containsPattern("window\\s+= 5m  \\(flag --window\\)")
                .containsPattern("heat-threshold\\s+= 0.4  \\(default\\)")
                .contains("processing.guarantee").contains("fixed by the sample");
    }

    @Test
    void withOverridesKeepsEverythingElse() {
        Settings s = MODEL.resolve(Map.of("security.protocol", "SSL"), null, Map.of(), Map.of("window", "5m"));
        Settings t = s.with(Map.of("heat-threshold", "0.5"));
        assertThat(t.duration("window")).isEqualTo(Duration.ofMinutes(5));
        assertThat(t.number("heat-threshold")).isEqualTo(0.5);
        assertThat(t.kafkaKeys()).containsEntry("security.protocol", "SSL");
    }

    @Test
    void aRequiredSettingLeftOutIsNamedWithEveryWayToGiveIt() {
        SettingsModel m = SettingsModel.builder("agent")
                .add(new Setting("cluster", SettingType.STRING, null, "The cluster id.", Validator.notBlank(), null, null)).build();
        assertThatThrownBy(m::defaults).hasMessageContaining("cluster is required")
                .hasMessageContaining("--cluster").hasMessageContaining("SKEWGUARD_AGENT_CLUSTER");
        assertThat(m.with(Map.of("cluster", "c1")).string("cluster")).isEqualTo("c1");
    }

    @Test
    void aDefaultThatBreaksItsOwnRuleIsCaughtAtDeclaration() {
        assertThatThrownBy(() -> Setting.integer("n", 0, "N.").validatedBy(Validator.atLeast(1)))
                .hasMessageContaining("default of n");
    }

    @Test
    void listsAreTrimmedAndEmptyItemsDropped() {
        assertThat(MODEL.with(Map.of("clusters", " a, b ,,c ")).list("clusters")).isEqualTo(List.of("a", "b", "c"));
    }
}
