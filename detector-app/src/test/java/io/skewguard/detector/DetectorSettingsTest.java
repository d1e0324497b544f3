package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class DetectorSettingsTest {

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
        assertThat(s.processingGuarantee()).isEqualTo(StreamsConfig.EXACTLY_ONCE_V2);
        assertThat(s.streamsProperties()).containsEntry(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "1000");
        assertThat(s.topics().nodeWrites()).isEqualTo("skew.node-writes");
        assertThat(s.purgeInterval()).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void purgeIntervalZeroDisablesAndNegativeIsRefused() {
        assertThat(DetectorSettings.load(new Properties(), Map.of("SKEWGUARD_DETECTOR_PURGE_INTERVAL", "0"), Map.of())
                .purgeInterval()).isZero();
        assertThat(DetectorSettings.defaultSettings().with(Map.of(DetectorSettings.PURGE_INTERVAL, "5s")).asMap())
                .containsEntry(DetectorSettings.PURGE_INTERVAL, "5000ms");
        assertThatThrownBy(() -> DetectorSettings.load(new Properties(), Map.of(), Map.of("purge-interval", "-1s")))
                .hasMessageContaining("purge interval");
    }

    @Test
    void fileThenEnvironmentThenFlagsTakePrecedence() {
        Properties file = new Properties();
        file.setProperty("skew.window", "120s");
        file.setProperty("skew.tick", "20s");
        file.setProperty("skew.cooldown", "10m");
        file.setProperty("bootstrap.servers", "file:9092");
        file.setProperty("linger.ms", "20");
        Map<String, String> env = Map.of(
                "SKEWGUARD_DETECTOR_TICK", "30s",
                "SKEWGUARD_DETECTOR_COOLDOWN", "7m",
                "SKEWGUARD_DETECTOR_KAFKA_SECURITY_PROTOCOL", "SSL",
                "PATH", "/usr/bin");
        Map<String, String> flags = Map.of("cooldown", "2m");

        DetectorSettings s = DetectorSettings.load(file, env, flags);
        assertThat(s.window()).isEqualTo(Duration.ofSeconds(120)); // file
        assertThat(s.tick()).isEqualTo(Duration.ofSeconds(30)); // env over file
        assertThat(s.cooldown()).isEqualTo(Duration.ofMinutes(2)); // flag over env
        assertThat(s.bootstrapServers()).isEqualTo("file:9092");
        assertThat(s.streamsProperties())
                .containsEntry("linger.ms", "20")
                .containsEntry("security.protocol", "SSL")
                .containsEntry(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "file:9092");
        assertThat(s.serdeConfig()).containsEntry("schema.registry.url", "http://localhost:8081");
    }

    @Test
    void aKafkaKeyInTheFileDoesNotBeatAFlag() {
        Properties file = new Properties();
        file.setProperty("bootstrap.servers", "file:9092");
        DetectorSettings s = DetectorSettings.load(file, Map.of(), Map.of("bootstrap-servers", "flag:9092"));
        assertThat(s.streamsProperties()).containsEntry(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "flag:9092");
    }

    @Test
    void durationsAcceptUnitsIsoAndMillis() {
        assertThat(DetectorSettings.duration("x", "500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DetectorSettings.duration("x", "1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(DetectorSettings.duration("x", "5m")).isEqualTo(Duration.ofMinutes(5));
        assertThat(DetectorSettings.duration("x", "PT1M")).isEqualTo(Duration.ofMinutes(1));
        assertThat(DetectorSettings.duration("x", "250")).isEqualTo(Duration.ofMillis(250));
        assertThatThrownBy(() -> DetectorSettings.duration("window", "soon"))
                .hasMessageContaining("window: 'soon' is not a duration");
    }

    @Test
    void badSettingsAreRefusedAtStart() {
        assertThatThrownBy(() -> DetectorSettings.load(new Properties(), Map.of(), Map.of("window", "65s")))
                .hasMessageContaining("multiple of tick");
        assertThatThrownBy(() -> DetectorSettings.load(new Properties(), Map.of("SKEWGUARD_DETECTOR_WINDOWS", "1m"), Map.of()))
                .hasMessageContaining("unknown environment variable SKEWGUARD_DETECTOR_WINDOWS");
        assertThatThrownBy(() -> DetectorSettings.load(new Properties(), Map.of(), Map.of("hysteresis", "1.5")))
                .hasMessageContaining("hysteresis");
    }

    @Test
    void envVariableNamesFollowTheSettingNames() {
        assertThat(DetectorSettings.envVariable("heat-threshold")).isEqualTo("SKEWGUARD_DETECTOR_HEAT_THRESHOLD");
    }
}
