package io.skewguard.migrator;

import static io.skewguard.migrator.MigratorHarness.CLUSTER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.runtime.settings.SettingsException;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.auth.NodeKeys;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With node keys, a status or capacity event speaks only for the node whose key signed it: a forged
 * answer in another node's name is dead-lettered as unauthenticated and changes nothing; each
 * command carries the signature of the node it goes to.
 */
class NodeAuthenticationTest {

    private static final long GB = 1L << 30;
    private static final List<String> NODES = List.of("n1", "n2", "n3", "n4", "n5", "n6");

    @TempDir
    Path dir;

    private MigratorHarness harness;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    private Path keysFile() throws Exception {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < NODES.size(); i++) {
            byte[] key = new byte[32];
            Arrays.fill(key, (byte) (i + 1));
            lines.add(NODES.get(i) + "=" + Base64.getEncoder().encodeToString(key));
        }
        Path file = dir.resolve("node.keys");
        Files.write(file, lines);
        return file;
    }

    private SimulatedAgents skewedCluster() {
        SlotTable table = SlotTable.fromRing(HashRing.of(NODES.stream().map(id -> new Node(id, null, 1.0)).toList(), 150), 2, 16);
        SimulatedAgents agents = new SimulatedAgents(CLUSTER);
        for (String id : NODES) {
            Map<Integer, Long> shards = new HashMap<>();
            List<Integer> held = new ArrayList<>();
            for (int slot = 0; slot < 16; slot++) {
                if (table.candidateIds(slot).contains(id)) {
                    held.add(slot);
                }
            }
            boolean heavy = id.equals("n1") || id.equals("n2");
            held.forEach(slot -> shards.put(slot, heavy ? 800 * GB / held.size() : 30 * GB));
            agents.node(id, 1000 * GB, shards);
        }
        return agents;
    }

    private <T extends SpecificRecord> byte[] bytes(Class<T> type, String topic, T value) {
        return SchemaRegistrySerde.of(type, Map.of("schema.registry.url", harness.registry), false).serializer().serialize(topic, value);
    }

    @Test
    void aForgedStatusInAnotherNodesNameIsDeadLetteredAndChangesNothingWhileTheNodesOwnIsHeard() throws Exception {
        Path keysFile = keysFile();
        NodeKeys keys = NodeKeys.read(keysFile);
        harness = new MigratorHarness(dir.resolve("state"), Map.of("node-keys-file", keysFile.toString()));
        var topics = harness.topics;
        TestInputTopic<byte[], byte[]> rawCapacity = harness.rawCapacity;
        TestInputTopic<byte[], byte[]> rawStatus = harness.driver.createInputTopic(topics.migrationStatus(),
                Serdes.ByteArray().serializer(), Serdes.ByteArray().serializer());
        TestOutputTopic<byte[], byte[]> rawCommands = harness.driver.createOutputTopic(topics.migrationCommands(),
                Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer());
        SimulatedAgents agents = skewedCluster();

        // every node reports its capacity, signed
        long now = harness.tick();
        for (CapacityEvent e : agents.capacityReports(now)) {
            byte[] key = e.getNode().getBytes(StandardCharsets.UTF_8);
            byte[] value = bytes(CapacityEvent.class, topics.nodeCapacity(), e);
            RecordHeaders headers = new RecordHeaders();
            keys.signInto(e.getNode(), headers, topics.nodeCapacity(), key, value);
            rawCapacity.pipeInput(new TestRecord<>(key, value, headers, now));
        }
        harness.sendReport(agents, 6_000_000_000L, new long[16]);
        harness.sendReport(agents, 600_000_000L, new long[16]);
        harness.alerts.pipeInput(CLUSTER, SkewAlert.newBuilder().setAlertId("a1").setCluster(CLUSTER).setKind(AlertKind.CAPACITY)
                .setPreviousState(AlertState.OBSERVING).setState(AlertState.CONFIRMED).setValue(agents.capacityCv())
                .setThreshold(0.25).setSince(Instant.ofEpochMilli(now)).setEventTime(Instant.ofEpochMilli(now)).build(), harness.tick());

        // the repair started from the signed capacity figures; each COPY carries its target's signature
        List<TestRecord<byte[], byte[]>> copies = rawCommands.readRecordsToList();
        assertThat(copies).isNotEmpty();
        var commandSerde = SchemaRegistrySerde.of(MigrationCommand.class, Map.of("schema.registry.url", harness.registry), false);
        for (TestRecord<byte[], byte[]> r : copies) {
            String node = new String(r.key(), StandardCharsets.UTF_8);
            assertThat(keys.problem(node, r.headers(), topics.migrationCommands(), r.key(), r.value())).isEmpty();
        }
        MigrationCommand copy = commandSerde.deserializer().deserialize(topics.migrationCommands(), copies.get(0).value());
        assertThat(copy.getPhase()).isEqualTo(MigrationPhase.COPY);
        String target = copy.getTargetNode();
        String other = NODES.stream().filter(n -> !n.equals(target)).findFirst().orElseThrow();

        // a COPY FAILED in the target's name: unsigned, then signed by another node
        MigrationStatus failed = MigrationStatus.newBuilder().setCluster(CLUSTER).setMigrationId(copy.getMigrationId())
                .setCommandId(copy.getCommandId()).setNode(target).setPhase(MigrationPhase.COPY).setOutcome(StepResult.FAILED)
                .setBytesCopied(0).setMessage("forged").setEventTime(Instant.ofEpochMilli(now)).build();
        byte[] key = copy.getMigrationId().getBytes(StandardCharsets.UTF_8);
        byte[] value = bytes(MigrationStatus.class, topics.migrationStatus(), failed);
        rawStatus.pipeInput(new TestRecord<>(key, value, new RecordHeaders(), harness.tick()));
        RecordHeaders byOther = new RecordHeaders();
        keys.signInto(other, byOther, topics.migrationStatus(), key, value);
        rawStatus.pipeInput(new TestRecord<>(key, value, byOther, harness.tick()));

        assertThat(rawCommands.readRecordsToList()).as("no ABORT after forged answers").isEmpty();
        List<TestRecord<byte[], byte[]>> dead = harness.dlq.readRecordsToList();
        assertThat(dead).hasSize(2).allSatisfy(r -> assertThat(DeadLetter.fromHeaders(r.headers()).reason())
                .startsWith("unauthenticated: ").contains("node '" + target + "'"));
        assertThat(metric("unauthenticated-total")).isEqualTo(2.0);

        // the same answer signed by the target is heard: the batch aborts
        RecordHeaders byTarget = new RecordHeaders();
        keys.signInto(target, byTarget, topics.migrationStatus(), key, value);
        rawStatus.pipeInput(new TestRecord<>(key, value, byTarget, harness.tick()));
        List<MigrationCommand> after = rawCommands.readRecordsToList().stream()
                .map(r -> commandSerde.deserializer().deserialize(topics.migrationCommands(), r.value())).toList();
        assertThat(after).extracting(MigrationCommand::getPhase).contains(MigrationPhase.ABORT);
    }

    @Test
    void anUnsignedCapacityEventIsDeadLetteredWhenKeysAreConfigured() throws Exception {
        harness = new MigratorHarness(dir.resolve("state"), Map.of("node-keys-file", keysFile().toString()));
        harness.sendCapacity(skewedCluster());
        assertThat(harness.dlq.readRecordsToList()).hasSize(NODES.size())
                .allSatisfy(r -> assertThat(DeadLetter.fromHeaders(r.headers()).reason()).startsWith("unauthenticated: no skew.sig header"));
    }

    @Test
    void aBadKeysFileIsAStartUpErrorNamingTheSetting() throws Exception {
        Path bad = dir.resolve("bad.keys");
        Files.writeString(bad, "n1=c2hvcnQ=\n");
        assertThatThrownBy(() -> MigratorSettings.of(Map.of("bootstrap.servers", "x:1", "schema.registry.url", "mock://x",
                "node-keys-file", bad.toString())))
                .isInstanceOf(SettingsException.class).hasMessageStartingWith("node-keys-file: ").hasMessageContaining("line 1");
    }

    private double metric(String name) {
        return harness.driver.metrics().entrySet().stream()
                .filter(e -> e.getKey().group().equals(MigratorMetrics.GROUP) && e.getKey().name().equals(name))
                .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue()).sum();
    }
}
