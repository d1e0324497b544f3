package io.skewguard.sim.demo;

import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the loop from the outside, the way a dashboard would: reads the detector's reports and
 * alerts, the balancer's weight commands, the agents' migration answers, the migrator's slot table
 * and the membership topic (plain consumer, every partition from the beginning, {@code read_committed})
 * and keeps what the progress line, the final table, the report and the key check need. Nothing here
 * feeds back into the loop.
 */
final class LoopObserver implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LoopObserver.class);

    /** One detector report, as plotted. */
    record ReportPoint(long windowEnd, double heatGini, double capacityCv, AlertState heat, AlertState capacity) {}

    /**
     * One record of the membership topic, as seen: the simulated time at which the observer read it
     * (the writer's own clock may be the wall clock), who wrote it and why.
     */
    record MembershipChange(long simulatedMillis, String node, MembershipState state, String source, String reason,
                            Long routingEpoch) {}

    /** What the observer has seen so far; a copy, safe to keep. */
    record View(
            ReportPoint latest,
            long weightCommands,
            int weightRounds,
            int copying,
            int switching,
            int cleaningUp,
            int copied,
            int committed,
            int cleaned,
            int aborted,
            long bytesMoved,
            long routingEpoch,
            String repairMessage,
            long deadLetters) {}

    private final String cluster;
    private final Topics topics;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final SchemaRegistrySerde<SkewReport> reports;
    private final SchemaRegistrySerde<SkewAlert> alerts;
    private final SchemaRegistrySerde<WeightCommand> weights;
    private final SchemaRegistrySerde<MigrationStatus> statuses;
    private final SchemaRegistrySerde<SlotAssignment> slots;
    private final SchemaRegistrySerde<NodeMembership> members;
    private final LongSupplier simulatedElapsed;
    private final Thread thread;
    private final Map<TopicPartition, Long> positions = new ConcurrentHashMap<>();
    private volatile boolean running = true;
    private volatile Throwable failure;

    // guarded by this
    private final List<ReportPoint> series = new ArrayList<>();
    private final List<SkewAlert> alertLog = new ArrayList<>();
    private final List<WeightCommand> commands = new ArrayList<>();
    private final Set<Long> epochs = new HashSet<>();
    private final Map<String, String> copyTarget = new HashMap<>();
    private final Map<String, Long> copyBytes = new HashMap<>();
    private final Set<String> copied = new TreeSet<>();
    private final Set<String> committed = new TreeSet<>();
    private final Set<String> cleaned = new TreeSet<>();
    private final Set<String> aborted = new TreeSet<>();
    private final Map<Integer, SlotAssignment> table = new HashMap<>();
    private final List<String> spreadChanges = new java.util.ArrayList<>();
    private final List<MembershipChange> membership = new ArrayList<>();
    private long routingEpoch;
    private String repairMessage;
    private volatile long deadLetters;

    /**
     * @param simulatedElapsed the simulated time elapsed since the start of the run, to date what is
     *     read from the membership topic
     */
    LoopObserver(String cluster, Topics topics, Map<String, String> clientKeys, String bootstrapServers,
                 Map<String, Object> serdeConfig, String clientId, LongSupplier simulatedElapsed) {
        this.cluster = cluster;
        this.simulatedElapsed = simulatedElapsed;
        this.topics = topics;
        Map<String, Object> config = new HashMap<>(clientKeys);
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        this.consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.reports = SchemaRegistrySerde.of(SkewReport.class, serdeConfig, false);
        this.alerts = SchemaRegistrySerde.of(SkewAlert.class, serdeConfig, false);
        this.weights = SchemaRegistrySerde.of(WeightCommand.class, serdeConfig, false);
        this.statuses = SchemaRegistrySerde.of(MigrationStatus.class, serdeConfig, false);
        this.slots = SchemaRegistrySerde.of(SlotAssignment.class, serdeConfig, false);
        this.members = SchemaRegistrySerde.of(NodeMembership.class, serdeConfig, false);
        this.thread = new Thread(this::follow, "skewguard-demo-observer");
        this.thread.setDaemon(true);
    }

    LoopObserver start() {
        thread.start();
        return this;
    }

    private List<String> followed() {
        return List.of(topics.reports(), topics.alerts(), topics.weightCommands(), topics.migrationStatus(), topics.slotTable(),
                topics.membership(), topics.dlq());
    }

    private void follow() {
        try {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : followed()) {
                for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                    partitions.add(new TopicPartition(topic, info.partition()));
                }
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            while (running) {
                var records = consumer.poll(Duration.ofMillis(100));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    if (r.topic().equals(topics.dlq())) {
                        deadLetters++;
                    } else if (r.value() != null) {
                        apply(r);
                    }
                }
                for (TopicPartition tp : partitions) {
                    positions.put(tp, consumer.position(tp));
                }
            }
        } catch (WakeupException e) {
            if (running) {
                failure = e;
            }
        } catch (RuntimeException e) {
            failure = e;
            LOG.error("the demo's observer stopped", e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private synchronized void apply(ConsumerRecord<byte[], byte[]> r) {
        String topic = r.topic();
        if (topic.equals(topics.reports())) {
            SkewReport report = reports.deserializer().deserialize(topic, r.headers(), r.value());
            if (cluster.equals(report.getCluster())) {
                series.add(new ReportPoint(report.getWindowEnd().toEpochMilli(), report.getHeatGini(), report.getCapacityCv(),
                        report.getHeatState(), report.getCapacityState()));
            }
        } else if (topic.equals(topics.alerts())) {
            SkewAlert alert = alerts.deserializer().deserialize(topic, r.headers(), r.value());
            if (cluster.equals(alert.getCluster())) {
                alertLog.add(alert);
            }
        } else if (topic.equals(topics.weightCommands())) {
            WeightCommand c = weights.deserializer().deserialize(topic, r.headers(), r.value());
            if (cluster.equals(c.getCluster())) {
                commands.add(c);
                epochs.add(c.getEpoch());
            }
        } else if (topic.equals(topics.migrationStatus())) {
            MigrationStatus s = statuses.deserializer().deserialize(topic, r.headers(), r.value());
            if (cluster.equals(s.getCluster())) {
                onStatus(s);
            }
        } else if (topic.equals(topics.slotTable())) {
            SlotAssignment row = slots.deserializer().deserialize(topic, r.headers(), r.value());
            if (cluster.equals(row.getCluster())) {
                SlotAssignment known = table.get(row.getSlot());
                if (known == null || known.getRoutingEpoch() <= row.getRoutingEpoch()) {
                    table.put(row.getSlot(), row);
                    if (row.getSpreadReason() != null && (known == null || !row.getSpreadReason().equals(known.getSpreadReason()))) {
                        spreadChanges.add(DemoReport.clock(simulatedElapsed.getAsLong()) + " " + row.getSpreadReason());
                    }
                }
                routingEpoch = Math.max(routingEpoch, row.getRoutingEpoch());
            }
        } else if (topic.equals(topics.membership())) {
            NodeMembership m = members.deserializer().deserialize(topic, r.headers(), r.value());
            if (cluster.equals(m.getCluster())) {
                membership.add(new MembershipChange(simulatedElapsed.getAsLong(), m.getNode(), m.getState(), m.getSource(),
                        m.getReason(), m.getRoutingEpoch()));
            }
        }
    }

    private void onStatus(MigrationStatus s) {
        String id = s.getMigrationId();
        if (s.getNode().equals("migrator")) {
            repairMessage = s.getMessage();
            return;
        }
        if (s.getOutcome() != StepResult.DONE) {
            return;
        }
        MigrationPhase phase = s.getPhase();
        switch (phase) {
            case COPY -> {
                copyTarget.put(id, s.getNode());
                copyBytes.put(id, s.getBytesCopied());
                copied.add(id);
            }
            case COMMIT -> {
                if (s.getNode().equals(copyTarget.get(id))) {
                    committed.add(id);
                }
            }
            case CLEANUP -> cleaned.add(id);
            case ABORT -> aborted.add(id);
            case PREPARE -> { }
        }
    }

    /** The figures so far. */
    synchronized View view() {
        long moved = 0;
        for (String id : committed) {
            moved += copyBytes.getOrDefault(id, 0L);
        }
        int copying = 0;
        for (SlotAssignment row : table.values()) {
            if (row.getInFlightTarget() != null && !copied.contains(row.getMigrationId()) && !aborted.contains(row.getMigrationId())) {
                copying++;
            }
        }
        int switching = 0;
        for (String id : copied) {
            if (!committed.contains(id) && !aborted.contains(id)) {
                switching++;
            }
        }
        int cleaningUp = 0;
        for (String id : committed) {
            if (!cleaned.contains(id)) {
                cleaningUp++;
            }
        }
        return new View(series.isEmpty() ? null : series.get(series.size() - 1), commands.size(), epochs.size(),
                copying, switching, cleaningUp, copied.size(), committed.size(), cleaned.size(), aborted.size(), moved,
                routingEpoch, repairMessage, deadLetters);
    }

    synchronized List<ReportPoint> reports() {
        return List.copyOf(series);
    }

    synchronized List<SkewAlert> alerts() {
        return List.copyOf(alertLog);
    }

    synchronized List<WeightCommand> weightCommands() {
        return List.copyOf(commands);
    }

    /** The latest slot-table row of every slot the migrator published (empty before its first plan). */
    synchronized Map<Integer, SlotAssignment> slotTable() {
        return Map.copyOf(table);
    }

    /** Every membership record read so far, in the order read. */
    /** Every change of a slot's spread the slot table showed, in the order read: "t+00:21 spread over 4 more nodes: slot 3 …". */
    synchronized List<String> spreadChanges() {
        return List.copyOf(spreadChanges);
    }

    synchronized List<MembershipChange> membership() {
        return List.copyOf(membership);
    }

    /** The latest membership state of every node that has a record. */
    synchronized Map<String, MembershipChange> members() {
        Map<String, MembershipChange> latest = new HashMap<>();
        membership.forEach(c -> latest.put(c.node(), c));
        return latest;
    }

    /** Migrations copied but neither cleaned up nor aborted yet. */
    synchronized int inFlight() {
        int n = 0;
        for (String id : copied) {
            if (!cleaned.contains(id) && !aborted.contains(id)) {
                n++;
            }
        }
        for (SlotAssignment row : table.values()) {
            if (row.getInFlightTarget() != null && !copied.contains(row.getMigrationId())) {
                n++;
            }
        }
        return n;
    }

    /**
     * Waits until this observer has read everything committed to its topics so far, at most
     * {@code timeout}; false if it did not get there.
     */
    boolean awaitCaughtUp(Admin admin, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        try {
            for (var d : admin.describeTopics(followed()).allTopicNames().get().values()) {
                d.partitions().forEach(p -> latest.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
            }
            var ends = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all().get();
            while (System.nanoTime() < deadline) {
                boolean done = true;
                for (var e : ends.entrySet()) {
                    if (positions.getOrDefault(e.getKey(), -1L) < e.getValue().offset()) {
                        done = false;
                        break;
                    }
                }
                if (done) {
                    return true;
                }
                Thread.sleep(50);
            }
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("cannot read the end offsets of the loop's topics", e.getCause());
        }
    }

    /** Why the observer stopped on its own, or null. */
    Throwable failure() {
        return failure;
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        reports.close();
        alerts.close();
        weights.close();
        statuses.close();
        slots.close();
        members.close();
    }

    /** The alert state of {@code kind} after the log so far. */
    static AlertState stateOf(List<SkewAlert> log, AlertKind kind) {
        AlertState state = AlertState.NORMAL;
        for (SkewAlert a : log) {
            if (a.getKind() == kind) {
                state = a.getState();
            }
        }
        return state;
    }
}
