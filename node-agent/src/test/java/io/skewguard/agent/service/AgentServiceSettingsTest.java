package io.skewguard.agent.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.agent.AgentSettings;
import io.skewguard.runtime.settings.SettingsException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentServiceSettingsTest {

    private static Map<String, String> minimal() {
        Map<String, String> m = new HashMap<>();
        m.put("cluster", "eu-1");
        m.put("nodes", "n1, n2");
        m.put("data-dir", "/var/lib/agent");
        return m;
    }

    private static AgentServiceSettings of(Map<String, String> values) {
        return AgentServiceSettings.from(AgentServiceSettings.MODEL.with(values));
    }

    @Test
    void eachNodeKeepsItsStoreAndStateFileInItsOwnDirectoryUnderDataDir() {
        AgentServiceSettings s = of(minimal());
        assertThat(s.nodes()).containsExactly("n1", "n2");
        assertThat(s.store()).isEqualTo(AgentServiceSettings.StoreKind.ROCKSDB);
        assertThat(s.storeDir("n2")).isEqualTo(Path.of("/var/lib/agent/n2/store"));
        assertThat(s.stateFile("n2")).isEqualTo(Path.of("/var/lib/agent/n2/agent.state"));
        AgentSettings agent = s.agentSettings("n2");
        assertThat(agent.stateFile()).isEqualTo(s.stateFile("n2"));
        assertThat(agent.node()).isEqualTo("n2");
        assertThat(agent.kafka()).containsEntry("bootstrap.servers", "localhost:9092")
                .containsEntry("schema.registry.url", "http://localhost:8081")
                .containsEntry("isolation.level", "read_committed").containsEntry("enable.auto.commit", "false");
        assertThat(s.ringNodes()).containsExactly("n1", "n2");
        assertThat(s.writeLoad()).isZero();
        assertThat(s.loadJournal()).as("no write journal unless one is named").isNull();
    }

    @Test
    void theLoadJournalIsTheFileNamed() {
        Map<String, String> m = minimal();
        m.put("load-journal", "/var/lib/agent/load.journal");
        assertThat(of(m).loadJournal()).isEqualTo(Path.of("/var/lib/agent/load.journal"));
    }

    @Test
    void clusterNodesAndDataDirAreRequired() {
        for (String key : new String[] {"cluster", "nodes", "data-dir"}) {
            Map<String, String> m = minimal();
            m.remove(key);
            assertThatThrownBy(() -> of(m)).isInstanceOf(SettingsException.class).hasMessageStartingWith(key + " is required");
        }
    }

    @Test
    void badNodeListsAndStoresAreRefusedNamingTheSetting() {
        Map<String, String> twice = minimal();
        twice.put("nodes", "n1,n1");
        assertThatThrownBy(() -> of(twice)).hasMessageStartingWith("nodes: n1,n1 is not allowed");
        Map<String, String> path = minimal();
        path.put("nodes", "n1,../n2");
        assertThatThrownBy(() -> of(path)).isInstanceOf(SettingsException.class).hasMessageContaining("'../n2'");
        Map<String, String> store = minimal();
        store.put("store", "disk");
        assertThatThrownBy(() -> of(store)).hasMessageContaining("one of rocksdb, memory");
        Map<String, String> slots = minimal();
        slots.put("slot-count", "100");
        assertThatThrownBy(() -> of(slots)).hasMessageContaining("a power of two");
    }

    @Test
    void copiesFollowTheWriteLatencyByDefaultWithinFivePercentAndNoSlowerThanTwoPercentOfTheirRate() {
        AgentServiceSettings s = of(minimal());
        assertThat(s.copyPacer().tolerance()).isEqualTo(0.05);
        assertThat(s.copyPacer().minPace()).isEqualTo(0.02);
        Map<String, String> tuned = minimal();
        tuned.put("copy-latency-tolerance", "0.2");
        tuned.put("copy-min-pace", "0.1");
        assertThat(of(tuned).copyPacer().tolerance()).isEqualTo(0.2);
        assertThat(of(tuned).copyPacer().minPace()).isEqualTo(0.1);
        Map<String, String> off = minimal();
        off.put("copy-latency-pacing", "false");
        assertThat(of(off).copyPacer()).isNull();
    }

    @Test
    void aPaceThatCouldStopACopyIsRefusedNamingTheSetting() {
        Map<String, String> zero = minimal();
        zero.put("copy-min-pace", "0");
        assertThatThrownBy(() -> of(zero)).isInstanceOf(SettingsException.class).hasMessageContaining("copy-min-pace")
                .hasMessageContaining("(0, 1]");
        Map<String, String> negative = minimal();
        negative.put("copy-latency-tolerance", "-0.1");
        assertThatThrownBy(() -> of(negative)).isInstanceOf(SettingsException.class)
                .hasMessageContaining("copy-latency-tolerance");
    }

    @Test
    void aKafkaKeyTheAgentFixesCannotBeGivenAnotherValue() {
        Map<String, String> m = minimal();
        m.put("isolation.level", "read_uncommitted");
        assertThatThrownBy(() -> of(m)).isInstanceOf(SettingsException.class)
                .hasMessageContaining("uncommitted rows must not route writes");
    }

    private static final String KEY = java.util.Base64.getEncoder().encodeToString(new byte[32]);

    @Test
    void theSafetySettingsHaveSaneDefaultsAndNoKeyMeansNothingIsSigned() {
        AgentServiceSettings s = of(minimal());
        assertThat(s.epochs().maxJump()).isEqualTo(1_000_000);
        assertThat(s.keepFinished()).isEqualTo(java.time.Duration.ofDays(8));
        assertThat(s.keys().configured()).isFalse();
        assertThat(s.agentSettings("n1").keepFinished()).isEqualTo(java.time.Duration.ofDays(8));
    }

    @Test
    void oneNodeKeyIsForAOneNodeProcessAndIsNeverPrinted() {
        Map<String, String> one = minimal();
        one.put("nodes", "n1");
        one.put("node-key", KEY);
        AgentServiceSettings s = of(one);
        assertThat(s.agentSettings("n1").keys().signer("n1")).isPresent();
        assertThat(s.reporterSettings("n1").keys().signer("n1")).isPresent();
        assertThat(s.settings().toString()).doesNotContain(KEY);

        Map<String, String> two = minimal();
        two.put("node-key", KEY);
        assertThatThrownBy(() -> of(two)).isInstanceOf(SettingsException.class)
                .hasMessageStartingWith("node-key: ").hasMessageContaining("node-keys-file");
        one.put("node-key", "c2hvcnQ=");
        assertThatThrownBy(() -> of(one)).isInstanceOf(SettingsException.class).hasMessageContaining("at least 32 bytes");
    }

    @Test
    void aKeysFileMustHoldAKeyForEveryHostedNode(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path file = dir.resolve("keys");
        java.nio.file.Files.writeString(file, "n1=" + KEY + "\n");
        Map<String, String> m = minimal();
        m.put("node-keys-file", file.toString());
        assertThatThrownBy(() -> of(m)).isInstanceOf(SettingsException.class)
                .hasMessageStartingWith("node-keys-file: ").hasMessageContaining("no key for hosted node n2");
        java.nio.file.Files.writeString(file, "n1=" + KEY + "\nn2=" + KEY + "\n");
        assertThat(of(m).agentSettings("n2").keys().signer("n2")).isPresent();
    }
}
