package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.embedded.EmbeddedKafka;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * What the detector's real-broker tests share: topics under a prefix of their own, settings with a
 * 1 s tick, 4 s window, 2 s grace and 6 s cooldown, the serdes and producers, a skewed write stream
 * whose every event is remembered (so a report's heat can be checked exactly), and the apps started
 * on the way, each closed at the end.
 *
 * <p>Event (and record) times start near now: topics keep records for 7 days by their timestamps, so
 * events from 2023 would be deleted by the broker's retention under the app's feet.
 */
final class DetectorItRig implements AutoCloseable {

    static final long TICK = 1_000;

    final long t0 = System.currentTimeMillis() / 60_000 * 60_000;
    final Topics topics;
    final DetectorSettings settings;
    final SchemaRegistrySerde<SkewReport> reportSerde;
    final SchemaRegistrySerde<SkewAlert> alertSerde;
    /** Every write event produced so far. */
    final List<WriteEvent> produced = new ArrayList<>();
    /** Records produced on both input topics. */
    long inputRecords;

    private final EmbeddedKafka broker;
    private final Path stateDir;
    private final KafkaProducer<String, WriteEvent> writes;
    private final KafkaProducer<String, CapacityEvent> capacities;
    private final List<DetectorApp.Running> running = new ArrayList<>();
    private long clock;

    /**
     * @param name topic prefix ({@code name.}), application id, registry scope and temp-dir name
     * @param inputPartitions partitions of the two input topics
     */
    DetectorItRig(EmbeddedKafka broker, String name, int inputPartitions) throws IOException {
        this.broker = broker;
        this.topics = new Topics(name + ".");
        this.clock = t0;
        broker.createTopics(inputPartitions, topics.nodeWrites(), topics.nodeCapacity());
        broker.createTopics(1, topics.reports(), topics.alerts(), topics.dlq());
        stateDir = Files.createTempDirectory(name);
        Map<String, String> values = new HashMap<>();
        // a stopped or crashed member stays in its group until its session times out: keep that short
        values.put("session.timeout.ms", "6000");
        values.put("heartbeat.interval.ms", "1500");
        values.put(DetectorSettings.BOOTSTRAP_SERVERS, broker.bootstrapServers());
        values.put(DetectorSettings.SCHEMA_REGISTRY_URL, "mock://" + name);
        values.put(DetectorSettings.APPLICATION_ID, name);
        values.put(DetectorSettings.TOPIC_PREFIX, topics.prefix());
        values.put(DetectorSettings.TICK, "1s");
        values.put(DetectorSettings.WINDOW, "4s");
        values.put(DetectorSettings.GRACE, "2s");
        values.put(DetectorSettings.COOLDOWN, "6s");
        // no wall-clock flush: heat waits in the ingest buffers until a tick or a stop hands it on,
        // which is what the crash, restart and rebalance tests put to the test
        values.put(DetectorSettings.FLUSH_INTERVAL, "1h");
        values.put(DetectorSettings.COMMIT_INTERVAL, "300ms");
        settings = DetectorSettings.of(values);
        Map<String, Object> serde = settings.serdeConfig();
        reportSerde = SchemaRegistrySerde.of(SkewReport.class, serde, false);
        alertSerde = SchemaRegistrySerde.of(SkewAlert.class, serde, false);
        writes = broker.producer(new StringSerializer(), SchemaRegistrySerde.of(WriteEvent.class, serde, false).serializer());
        capacities = broker.producer(new StringSerializer(), SchemaRegistrySerde.of(CapacityEvent.class, serde, false).serializer());
    }

    /** Starts an instance on its own state dir under the rig's, with {@code extra} settings on top. */
    DetectorApp.Running start(String stateSubDir, Map<String, String> extra) throws InterruptedException {
        Map<String, String> overrides = new HashMap<>(extra);
        overrides.put(DetectorSettings.STATE_DIR, stateDir.resolve(stateSubDir).toString());
        DetectorApp.Running app = DetectorApp.start(settings.with(overrides));
        running.add(app);
        assertThat(app.awaitRunning(Duration.ofSeconds(60))).as("detector running").isTrue();
        return app;
    }

    /** An orderly stop of one instance. */
    void stop(DetectorApp.Running app) {
        running.remove(app);
        app.close();
    }

    /** A crash of one instance's stage one (see {@link DetectorApp.Running#halt()}). */
    void halt(DetectorApp.Running app) throws InterruptedException {
        running.remove(app);
        app.halt();
    }

    /**
     * Every 100 ms of wall time (and event time), for {@code millis}: one write per node, the last node
     * taking 30×; with {@code variedBytes} the others' sizes vary from step to step, so a lost or
     * doubled event shows in the heat; with {@code capacityReports} every node reports 500/1000 bytes
     * used every 2 s.
     */
    void produceSkew(long millis, String[] nodes, boolean variedBytes, boolean capacityReports) throws InterruptedException {
        String hot = nodes[nodes.length - 1];
        for (long end = clock + millis; clock < end; clock += 100) {
            for (String node : nodes) {
                long bytes = node.equals(hot) ? 3_000 : variedBytes ? 100 + (clock / 100) % 7 : 100;
                WriteEvent e = new WriteEvent("c1", node, node.hashCode() & 255, bytes, 1L, Instant.ofEpochMilli(clock));
                writes.send(new ProducerRecord<>(topics.nodeWrites(), null, clock, node, e));
                produced.add(e);
                inputRecords++;
            }
            if (capacityReports && (clock - t0) % 2_000 == 0) {
                for (String node : nodes) {
                    capacities.send(new ProducerRecord<>(topics.nodeCapacity(), null, clock, node,
                            new CapacityEvent("c1", node, 500L, 1000L, null, List.of(), Instant.ofEpochMilli(clock))));
                    inputRecords++;
                }
            }
            writes.flush();
            capacities.flush();
            Thread.sleep(100);
        }
    }

    /** Bytes of the produced write events with event time in [from, to). */
    long expectedHeat(long from, long to) {
        return produced.stream().filter(e -> e.getEventTime().toEpochMilli() >= from && e.getEventTime().toEpochMilli() < to)
                .mapToLong(WriteEvent::getBytes).sum();
    }

    /** Reports from the beginning until one has a window ending at or after {@code windowEnd}. */
    List<SkewReport> reportsUntil(long windowEnd, Duration timeout) {
        return broker.consumeUntil(topics.reports(), new StringDeserializer(), reportSerde.deserializer(),
                        records -> records.stream().anyMatch(r -> r.value().getWindowEnd().toEpochMilli() >= windowEnd),
                        timeout)
                .stream().map(ConsumerRecord::value).toList();
    }

    /** Alerts from the beginning until {@code done} holds for them. */
    List<SkewAlert> alertsUntil(Predicate<List<SkewAlert>> done, Duration timeout) {
        return broker.consumeUntil(topics.alerts(), new StringDeserializer(), alertSerde.deserializer(),
                        records -> done.test(records.stream().map(ConsumerRecord::value).toList()), timeout)
                .stream().map(ConsumerRecord::value).toList();
    }

    /** One report per tick, in order, none repeated, each holding exactly the heat produced in its window. */
    void assertOnePerTickWithExactHeat(List<SkewReport> reports) {
        for (int i = 1; i < reports.size(); i++) {
            assertThat(reports.get(i).getWindowEnd().toEpochMilli() - reports.get(i - 1).getWindowEnd().toEpochMilli())
                    .isEqualTo(TICK);
        }
        assertThat(reports).allSatisfy(r -> assertThat(r.getTotalWriteBytes())
                .as("heat of window ending %s", r.getWindowEnd())
                .isEqualTo(expectedHeat(r.getWindowStart().toEpochMilli(), r.getWindowEnd().toEpochMilli())));
    }

    @Override
    public void close() throws IOException {
        for (DetectorApp.Running app : List.copyOf(running)) {
            stop(app);
        }
        writes.close();
        capacities.close();
        try (var paths = Files.walk(stateDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
