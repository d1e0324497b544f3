package io.skewguard.migrator;

import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.apache.avro.specific.SpecificRecord;

/**
 * A {@link TopologyTestDriver} around {@link MigratorTopology#build}, with typed topics, an agent
 * loop, and a restart that restores the stores from the changelog records the first driver wrote
 * (what Kafka Streams does on a real restart; the test driver itself wipes its state directory on
 * close).
 */
final class MigratorHarness implements AutoCloseable {

    static final String CLUSTER = "c1";

    final MigratorSettings settings;
    final Topics topics;
    final String registry;
    final Path stateDir;
    TopologyTestDriver driver;
    TestInputTopic<String, SkewAlert> alerts;
    TestInputTopic<String, SkewReport> reports;
    TestInputTopic<String, CapacityEvent> capacity;
    TestInputTopic<String, MigrationStatus> status;
    TestInputTopic<byte[], byte[]> rawCapacity;
    TestOutputTopic<String, MigrationCommand> commands;
    TestOutputTopic<String, SlotAssignment> slotTable;
    TestOutputTopic<String, MigrationStatus> statusOut;
    TestOutputTopic<byte[], byte[]> dlq;
    TestInputTopic<String, io.skewguard.schemas.NodeMembership> membershipIn;
    TestOutputTopic<String, io.skewguard.schemas.NodeMembership> membershipOut;
    final List<io.skewguard.schemas.NodeMembership> allMembership = new ArrayList<>();
    final List<MigrationCommand> allCommands = new ArrayList<>();
    final List<SlotAssignment> allRows = new ArrayList<>();
    final List<MigrationStatus> repairStatus = new ArrayList<>();
    TestInputTopic<byte[], byte[]> controlIn;
    TestOutputTopic<String, io.skewguard.schemas.Proposal> proposalsOut;
    TestOutputTopic<String, io.skewguard.schemas.Decision> decisionsOut;
    final List<io.skewguard.schemas.Proposal> allProposals = new ArrayList<>();
    final List<io.skewguard.schemas.Decision> allDecisions = new ArrayList<>();
    long clock = 1_000_000;

    MigratorHarness(Path stateDir, Map<String, String> overrides) {
        this.registry = "mock://migrator-" + UUID.randomUUID();
        this.stateDir = stateDir;
        Map<String, String> values = new HashMap<>(Map.of(
                "bootstrap.servers", "test:9092",
                "schema.registry.url", registry,
                "state.dir", stateDir.toString(),
                "slot-count", "16",
                "candidates", "2"));
        values.putAll(overrides);
        this.settings = MigratorSettings.of(values);
        this.topics = settings.topics();
        open();
    }

    private <T extends SpecificRecord> Serde<T> serde(Class<T> type) {
        return SchemaRegistrySerde.of(type, Map.of("schema.registry.url", registry), false);
    }

    private void open() {
        // in-memory stores: the test driver would flush RocksDB after every record (the app itself runs on RocksDB)
        driver = new TopologyTestDriver(MigratorTopology.build(settings, org.apache.kafka.streams.state.Stores::inMemoryKeyValueStore),
                MigratorTopology.streamsConfig(settings),
                Instant.ofEpochMilli(clock));
        alerts = driver.createInputTopic(topics.alerts(), Serdes.String().serializer(), serde(SkewAlert.class).serializer());
        reports = driver.createInputTopic(topics.reports(), Serdes.String().serializer(), serde(SkewReport.class).serializer());
        capacity = driver.createInputTopic(topics.nodeCapacity(), Serdes.String().serializer(), serde(CapacityEvent.class).serializer());
        status = driver.createInputTopic(topics.migrationStatus(), Serdes.String().serializer(), serde(MigrationStatus.class).serializer());
        rawCapacity = driver.createInputTopic(topics.nodeCapacity(), Serdes.ByteArray().serializer(), Serdes.ByteArray().serializer());
        commands = driver.createOutputTopic(topics.migrationCommands(), Serdes.String().deserializer(),
                serde(MigrationCommand.class).deserializer());
        slotTable = driver.createOutputTopic(topics.slotTable(), Serdes.String().deserializer(), serde(SlotAssignment.class).deserializer());
        statusOut = driver.createOutputTopic(topics.migrationStatus(), Serdes.String().deserializer(),
                serde(MigrationStatus.class).deserializer());
        dlq = driver.createOutputTopic(topics.dlq(), Serdes.ByteArray().deserializer(), Serdes.ByteArray().deserializer());
        membershipIn = driver.createInputTopic(topics.membership(), Serdes.String().serializer(),
                serde(io.skewguard.schemas.NodeMembership.class).serializer());
        membershipOut = driver.createOutputTopic(topics.membership(), Serdes.String().deserializer(),
                serde(io.skewguard.schemas.NodeMembership.class).deserializer());
        controlIn = driver.createInputTopic(topics.control(), Serdes.ByteArray().serializer(), Serdes.ByteArray().serializer());
        proposalsOut = driver.createOutputTopic(topics.proposals(), Serdes.String().deserializer(),
                serde(io.skewguard.schemas.Proposal.class).deserializer());
        decisionsOut = driver.createOutputTopic(topics.decisions(), Serdes.String().deserializer(),
                serde(io.skewguard.schemas.Decision.class).deserializer());
    }

    /** An operator's control record as 'skewguard ctl' writes it; signed with {@code key} when given. */
    void sendControl(io.skewguard.schemas.ControlKind kind, boolean on, Long bytesPerSec, String node, String operator,
            io.skewguard.schemas.auth.NodeSignature key) {
        long now = tick();
        io.skewguard.schemas.OperatorControl c = io.skewguard.schemas.OperatorControl.newBuilder().setCluster(CLUSTER).setControl(kind)
                .setEnabled(on).setBytesPerSec(bytesPerSec).setNode(node).setOperator(operator).setReason("test")
                .setUpdatedAt(Instant.ofEpochMilli(now)).build();
        byte[] recordKey = io.skewguard.runtime.control.ControlRecords.key(CLUSTER, kind, node)
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] value = serde(io.skewguard.schemas.OperatorControl.class).serializer().serialize(topics.control(), c);
        org.apache.kafka.common.header.internals.RecordHeaders headers = new org.apache.kafka.common.header.internals.RecordHeaders();
        if (key != null) {
            key.signInto(headers, topics.control(), recordKey, value);
        }
        controlIn.pipeInput(new TestRecord<>(recordKey, value, headers, Instant.ofEpochMilli(now)));
        drainOutputs();
    }

    void sendControl(io.skewguard.schemas.ControlKind kind, boolean on) {
        sendControl(kind, on, null, null, "alice", null);
    }

    /** Dead letters written so far, as (reason, source topic). */
    List<String> deadLetterReasons() {
        List<String> reasons = new ArrayList<>();
        for (TestRecord<byte[], byte[]> r : dlq.readRecordsToList()) {
            reasons.add(new String(r.headers().lastHeader(io.skewguard.schemas.DeadLetter.REASON).value(),
                    java.nio.charset.StandardCharsets.UTF_8));
        }
        return reasons;
    }

    /** Simulates a crash and restart: a new driver on the same state dir, stores restored from the changelogs. */
    void restart() {
        Map<String, List<KeyValue<String, Object>>> changelogs = new HashMap<>();
        for (String store : List.of(CoordinatorProcessor.REPAIR_STORE, CoordinatorProcessor.CAPACITY_STORE,
                CoordinatorProcessor.REPORT_STORE, CoordinatorProcessor.SLOT_STORE, CoordinatorProcessor.MEMBERSHIP_STORE,
                CoordinatorProcessor.CONTROL_STORE)) {
            Serde<?> valueSerde = switch (store) {
                case CoordinatorProcessor.REPAIR_STORE -> JsonStateSerde.of(io.skewguard.migrator.policy.RepairState.class, "repair state");
                case CoordinatorProcessor.CAPACITY_STORE -> serde(CapacityEvent.class);
                case CoordinatorProcessor.REPORT_STORE -> serde(SkewReport.class);
                case CoordinatorProcessor.MEMBERSHIP_STORE -> JsonStateSerde.of(io.skewguard.migrator.policy.Member.class, "membership record");
                case CoordinatorProcessor.CONTROL_STORE -> serde(io.skewguard.schemas.OperatorControl.class);
                default -> serde(SlotAssignment.class);
            };
            TestOutputTopic<String, ?> changelog = driver.createOutputTopic(settings.applicationId() + "-" + store + "-changelog",
                    Serdes.String().deserializer(), valueSerde.deserializer());
            List<KeyValue<String, Object>> records = new ArrayList<>();
            for (TestRecord<String, ?> r : changelog.readRecordsToList()) {
                records.add(KeyValue.pair(r.key(), r.value()));
            }
            changelogs.put(store, records);
        }
        drainOutputs();
        driver.close();
        open();
        changelogs.forEach((store, records) -> {
            org.apache.kafka.streams.state.KeyValueStore<String, Object> kv = driver.getKeyValueStore(store);
            for (KeyValue<String, Object> r : records) {
                if (r.value == null) {
                    kv.delete(r.key);
                } else {
                    kv.put(r.key, r.value);
                }
            }
        });
    }

    long tick() {
        clock += 1_000;
        return clock;
    }

    void advance(Duration d) {
        clock += d.toMillis();
        driver.advanceWallClockTime(d);
        drainOutputs();
    }

    void sendCapacity(SimulatedAgents agents) {
        long now = tick();
        for (CapacityEvent e : agents.capacityReports(now)) {
            capacity.pipeInput(e.getNode(), e, now);
        }
        drainOutputs();
    }

    void sendReport(SimulatedAgents agents, long totalWriteBytes, long[] slotHeat) {
        long now = tick();
        List<Long> heat = new ArrayList<>();
        for (long h : slotHeat) {
            heat.add(h);
        }
        SkewReport report = SkewReport.newBuilder()
                .setCluster(CLUSTER)
                .setWindowStart(Instant.ofEpochMilli(now - 60_000))
                .setWindowEnd(Instant.ofEpochMilli(now))
                .setHeatGini(0.1)
                .setCapacityCv(agents.capacityCv())
                .setShardCapacityCv(0)
                .setNodeCount(agents.nodes.size())
                .setTotalWriteBytes(totalWriteBytes)
                .setNodes(List.of())
                .setHottestSlots(List.of())
                .setSlotHeat(heat)
                .setHeatState(AlertState.NORMAL)
                .setCapacityState(AlertState.CONFIRMED)
                .build();
        reports.pipeInput(CLUSTER, report, now);
        drainOutputs();
    }

    void sendAlert(AlertState previous, AlertState state, double value) {
        long now = tick();
        alerts.pipeInput(CLUSTER, SkewAlert.newBuilder()
                .setAlertId(CLUSTER + "/CAPACITY/" + state + "/" + now)
                .setCluster(CLUSTER)
                .setKind(AlertKind.CAPACITY)
                .setPreviousState(previous)
                .setState(state)
                .setValue(value)
                .setThreshold(0.25)
                .setSince(Instant.ofEpochMilli(now))
                .setEventTime(Instant.ofEpochMilli(now))
                .build(), now);
        drainOutputs();
    }

    /** Pending commands not yet answered. */
    final List<MigrationCommand> pending = new ArrayList<>();

    void drainOutputs() {
        List<MigrationCommand> fresh = commands.readValuesToList();
        allCommands.addAll(fresh);
        pending.addAll(fresh);
        allRows.addAll(slotTable.readValuesToList());
        allMembership.addAll(membershipOut.readValuesToList());
        allProposals.addAll(proposalsOut.readValuesToList());
        allDecisions.addAll(decisionsOut.readValuesToList());
        for (MigrationStatus s : statusOut.readValuesToList()) {
            if (s.getMigrationId().equals(CLUSTER + "/repair")) {
                repairStatus.add(s);
            }
        }
    }

    /** Answers pending commands as the agents would, until none is left; returns how many were answered. */
    int runAgents(SimulatedAgents agents, int maxSteps) {
        int answered = 0;
        while (!pending.isEmpty() && answered < maxSteps) {
            MigrationCommand c = pending.remove(0);
            answered++;
            long now = tick();
            for (MigrationStatus s : agents.answer(c, now)) {
                status.pipeInput(s.getMigrationId(), s, now);
            }
            if (c.getPhase() == io.skewguard.schemas.MigrationPhase.CLEANUP) {
                sendCapacity(agents);
            }
            drainOutputs();
        }
        return answered;
    }

    /** An operator's membership record ({@code ./skewguard node ...}). */
    void sendOperator(String node, io.skewguard.schemas.MembershipState state) {
        long now = tick();
        membershipIn.pipeInput(CLUSTER + "/" + node, io.skewguard.schemas.NodeMembership.newBuilder()
                .setCluster(CLUSTER).setNode(node).setState(state).setSource("operator")
                .setReason("test").setUpdatedAt(Instant.ofEpochMilli(now)).build(), now);
        drainOutputs();
    }

    /** The latest published row of every slot. */
    Map<Integer, SlotAssignment> latestRows() {
        Map<Integer, SlotAssignment> rows = new HashMap<>();
        for (SlotAssignment r : allRows) {
            rows.put(r.getSlot(), r);
        }
        return rows;
    }

    @Override
    public void close() {
        driver.close();
    }
}
