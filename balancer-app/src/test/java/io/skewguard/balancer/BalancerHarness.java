package io.skewguard.balancer;

import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.runtime.control.ControlRecords;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.auth.NodeSignature;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/** The balancer topology in a {@link TopologyTestDriver}, fed and read in the wire format. */
final class BalancerHarness implements AutoCloseable {

    final BalancerSettings settings;
    final Topics topics;
    private final String scope = "balancer-test-" + UUID.randomUUID();
    private final TopologyTestDriver driver;
    private final SchemaRegistrySerde<SkewReport> reports;
    private final SchemaRegistrySerde<SkewAlert> alerts;
    private final SchemaRegistrySerde<WeightCommand> commands;
    private final SchemaRegistrySerde<NodeWeight> weights;
    private final TestInputTopic<byte[], byte[]> reportsIn;
    private final TestInputTopic<byte[], byte[]> alertsIn;
    private final TestOutputTopic<String, WeightCommand> commandsOut;
    private final TestOutputTopic<String, NodeWeight> weightsOut;
    private final TestOutputTopic<byte[], byte[]> dlqOut;
    private final SchemaRegistrySerde<OperatorControl> controls;
    private final TestInputTopic<byte[], byte[]> controlIn;
    private final TestOutputTopic<String, Proposal> proposalsOut;
    private final TestOutputTopic<String, Decision> decisionsOut;

    BalancerHarness(String clusters) {
        this(Map.of("clusters", clusters));
    }

    /** With {@code overrides} on top of the test's registry and state directory. */
    BalancerHarness(Map<String, String> overrides) {
        this(overrides, true);
    }

    /** As {@link #BalancerHarness(Map)}, the stores changelogged or not. */
    BalancerHarness(Map<String, String> overrides, boolean changelogs) {
        Map<String, String> values = new java.util.HashMap<>(Map.of(
                "schema.registry.url", "mock://" + scope,
                "state.dir", "target/balancer-state/" + scope,
                // the tests' event times lie in 1970 while the driver's clock is now: no report is too old here
                BalancerSettings.MAX_EVENT_AGE, "36500d"));
        values.putAll(overrides);
        settings = BalancerSettings.of(values);
        topics = settings.topics();
        // in-memory stores: the test driver would flush RocksDB after every record (the app itself runs on RocksDB)
        driver = new TopologyTestDriver(BalancerTopology.build(settings, new io.skewguard.balancer.policy.WeightController(settings.controller()),
                org.apache.kafka.streams.state.Stores::inMemoryKeyValueStore, changelogs), settings.streamsProperties());
        Map<String, Object> serde = settings.serdeConfig();
        reports = SchemaRegistrySerde.of(SkewReport.class, serde, false);
        alerts = SchemaRegistrySerde.of(SkewAlert.class, serde, false);
        commands = SchemaRegistrySerde.of(WeightCommand.class, serde, false);
        weights = SchemaRegistrySerde.of(NodeWeight.class, serde, false);
        ByteArraySerializer bytes = new ByteArraySerializer();
        reportsIn = driver.createInputTopic(topics.reports(), bytes, bytes);
        alertsIn = driver.createInputTopic(topics.alerts(), bytes, bytes);
        commandsOut = driver.createOutputTopic(topics.weightCommands(), new StringDeserializer(), commands.deserializer());
        weightsOut = driver.createOutputTopic(topics.nodeWeights(), new StringDeserializer(), weights.deserializer());
        dlqOut = driver.createOutputTopic(topics.dlq(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        controls = SchemaRegistrySerde.of(OperatorControl.class, serde, false);
        controlIn = driver.createInputTopic(topics.control(), bytes, bytes);
        proposalsOut = driver.createOutputTopic(topics.proposals(), new StringDeserializer(),
                SchemaRegistrySerde.of(Proposal.class, serde, false).deserializer());
        decisionsOut = driver.createOutputTopic(topics.decisions(), new StringDeserializer(),
                SchemaRegistrySerde.of(Decision.class, serde, false).deserializer());
    }

    /** An operator's control record as 'skewguard ctl' writes it, under its key; signed with {@code key} if given. */
    void control(ControlKind kind, boolean on, Long bytesPerSec, String node, String operator, NodeSignature key) {
        OperatorControl c = OperatorControl.newBuilder().setCluster("c1").setControl(kind).setEnabled(on).setBytesPerSec(bytesPerSec)
                .setNode(node).setOperator(operator).setUpdatedAt(Instant.EPOCH).build();
        byte[] recordKey = ControlRecords.key("c1", kind, node).getBytes(StandardCharsets.UTF_8);
        byte[] value = controls.serializer().serialize(topics.control(), c);
        org.apache.kafka.common.header.internals.RecordHeaders headers = new org.apache.kafka.common.header.internals.RecordHeaders();
        if (key != null) {
            key.signInto(headers, topics.control(), recordKey, value);
        }
        controlIn.pipeInput(new TestRecord<>(recordKey, value, headers, Instant.EPOCH));
    }

    void control(ControlKind kind, boolean on) {
        control(kind, on, null, null, "alice", null);
    }

    List<TestRecord<String, Proposal>> proposals() {
        return proposalsOut.readRecordsToList();
    }

    List<TestRecord<String, Decision>> decisions() {
        return decisionsOut.readRecordsToList();
    }

    static SkewReport report(LoadSnapshot snapshot) {
        List<NodeFigures> nodes = new ArrayList<>();
        for (NodeLoad load : snapshot.nodes()) {
            long total = (long) load.capacity();
            nodes.add(NodeFigures.newBuilder()
                    .setNode(load.node())
                    .setHeatBytes((long) load.heat())
                    .setUsedBytes(total / 2)
                    .setTotalBytes(total)
                    .setUtilisation(total == 0 ? 0 : 0.5)
                    .build());
        }
        long heat = nodes.stream().mapToLong(NodeFigures::getHeatBytes).sum();
        return SkewReport.newBuilder()
                .setCluster(snapshot.cluster())
                .setWindowStart(Instant.ofEpochMilli(snapshot.time() - 60_000))
                .setWindowEnd(Instant.ofEpochMilli(snapshot.time()))
                .setHeatGini(snapshot.heatGini())
                .setCapacityCv(0)
                .setShardCapacityCv(0)
                .setNodeCount(nodes.size())
                .setTotalWriteBytes(heat)
                .setNodes(nodes)
                .setHottestSlots(List.of())
                .setHeatState(AlertState.NORMAL)
                .setCapacityState(AlertState.NORMAL)
                .build();
    }

    void send(SkewReport report) {
        sendReport(report.getCluster(), reports.serializer().serialize(topics.reports(), report),
                report.getWindowEnd().toEpochMilli());
    }

    void send(LoadSnapshot snapshot) {
        send(report(snapshot));
    }

    void sendReport(String key, byte[] value, long time) {
        reportsIn.pipeInput(new TestRecord<>(key == null ? null : key.getBytes(StandardCharsets.UTF_8), value,
                Instant.ofEpochMilli(time)));
    }

    void alert(String cluster, AlertKind kind, AlertState previous, AlertState state, long since, long time) {
        SkewAlert alert = SkewAlert.newBuilder()
                .setAlertId(cluster + "/" + kind + "/" + state + "/" + time)
                .setCluster(cluster)
                .setKind(kind)
                .setPreviousState(previous)
                .setState(state)
                .setValue(0.45)
                .setThreshold(0.40)
                .setSince(Instant.ofEpochMilli(since))
                .setEventTime(Instant.ofEpochMilli(time))
                .build();
        alertsIn.pipeInput(new TestRecord<>(cluster.getBytes(StandardCharsets.UTF_8),
                alerts.serializer().serialize(topics.alerts(), alert), Instant.ofEpochMilli(time)));
    }

    byte[] serializeForTest(SkewReport report) {
        return reports.serializer().serialize(topics.reports(), report);
    }

    void sendAlertBytes(String key, byte[] value, long time) {
        alertsIn.pipeInput(new TestRecord<>(key.getBytes(StandardCharsets.UTF_8), value, Instant.ofEpochMilli(time)));
    }

    /** Every topic the topology has written to so far. */
    java.util.Set<String> producedTopicNames() {
        return driver.producedTopicNames();
    }

    List<TestRecord<String, WeightCommand>> commands() {
        return commandsOut.readRecordsToList();
    }

    List<TestRecord<String, NodeWeight>> weights() {
        return weightsOut.readRecordsToList();
    }

    List<TestRecord<byte[], byte[]>> deadLetters() {
        return dlqOut.readRecordsToList();
    }

    /** Number of entries in the state store {@code name}. */
    int storeSize(String name) {
        int n = 0;
        try (var it = driver.getKeyValueStore(name).all()) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    <V> V stored(String store, String key) {
        return driver.<String, V>getKeyValueStore(store).get(key);
    }

    @Override
    public void close() {
        driver.close();
        MockSchemaRegistry.drop(scope);
    }
}
