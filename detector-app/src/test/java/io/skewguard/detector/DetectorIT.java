package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The detector against a real broker, exactly-once: Confluent-wire events in, reports, a
 * CONFIRMED alert and dead letters out; a restart mid-stream neither repeats a transition nor
 * loses window heat. Short settings (tick 1 s, window 4 s, grace 2 s, cooldown 6 s) keep it to
 * about 20 s; event time is a synthetic clock that runs with the producer.
 */
class DetectorIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    // event (and record) times near now: topics keep records for 7 days by their timestamps, so
    // events from 2023 would be deleted by the broker's retention check under the app's feet
    private static final long T0 = System.currentTimeMillis() / 60_000 * 60_000;
    private static final long TICK = 1_000;
    private static final long COOLDOWN = 6_000;
    private static final String[] NODES = {"n1", "n2", "n3", "n4"};

    private final Topics topics = new Topics("it.");
    private final List<WriteEvent> produced = new ArrayList<>();
    private DetectorSettings settings;
    private Path stateDir;
    private SchemaRegistrySerde<WriteEvent> writeSerde;
    private SchemaRegistrySerde<CapacityEvent> capacitySerde;
    private SchemaRegistrySerde<SkewReport> reportSerde;
    private SchemaRegistrySerde<SkewAlert> alertSerde;
    private KafkaProducer<String, WriteEvent> writes;
    private KafkaProducer<String, CapacityEvent> capacities;
    private DetectorApp.Running app;
    private long clock = T0;

    @BeforeEach
    void setUp() throws Exception {
        KAFKA.broker().createTopics(3, topics.nodeWrites(), topics.nodeCapacity());
        KAFKA.broker().createTopics(1, topics.reports(), topics.alerts(), topics.dlq());
        stateDir = Files.createTempDirectory("detector-it");
        java.util.Properties file = new java.util.Properties();
        // a Kafka Streams member does not leave its group on close: keep the wait for it short
        file.setProperty("session.timeout.ms", "6000");
        file.setProperty("heartbeat.interval.ms", "1500");
        settings = DetectorSettings.load(file, Map.of(), Map.of(
                DetectorSettings.BOOTSTRAP_SERVERS, KAFKA.bootstrapServers(),
                DetectorSettings.SCHEMA_REGISTRY_URL, "mock://detector-it",
                DetectorSettings.APPLICATION_ID, "detector-it",
                DetectorSettings.TOPIC_PREFIX, topics.prefix(),
                DetectorSettings.TICK, "1s",
                DetectorSettings.WINDOW, "4s",
                DetectorSettings.GRACE, "2s",
                DetectorSettings.COOLDOWN, "6s",
                // no wall-clock flush: the heat of the current tick is in the ingest buffers when the
                // app stops, so the restart proves that closing hands it on
                DetectorSettings.FLUSH_INTERVAL, "1h",
                DetectorSettings.COMMIT_INTERVAL, "300ms"));
        Map<String, Object> serde = settings.serdeConfig();
        writeSerde = SchemaRegistrySerde.of(WriteEvent.class, serde, false);
        capacitySerde = SchemaRegistrySerde.of(CapacityEvent.class, serde, false);
        reportSerde = SchemaRegistrySerde.of(SkewReport.class, serde, false);
        alertSerde = SchemaRegistrySerde.of(SkewAlert.class, serde, false);
        writes = KAFKA.broker().producer(new StringSerializer(), writeSerde.serializer());
        capacities = KAFKA.broker().producer(new StringSerializer(), capacitySerde.serializer());
    }

    @AfterEach
    void tearDown() throws Exception {
        if (app != null) {
            app.close();
        }
        writes.close();
        capacities.close();
        try (var paths = Files.walk(stateDir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private void startApp(String stateSubDir) throws InterruptedException {
        app = DetectorApp.start(settings.with(Map.of(DetectorSettings.STATE_DIR, stateDir.resolve(stateSubDir).toString())));
        assertThat(app.awaitRunning(Duration.ofSeconds(30))).as("detector running").isTrue();
    }

    /** Every 100 ms of wall time (and event time): one write per node, n4 taking 30×. */
    private void produceSkew(long millis) throws InterruptedException {
        for (long end = clock + millis; clock < end; clock += 100) {
            for (String node : NODES) {
                long bytes = node.equals("n4") ? 3_000 : 100;
                WriteEvent e = new WriteEvent("c1", node, node.hashCode() & 255, bytes, 1L, Instant.ofEpochMilli(clock));
                writes.send(new ProducerRecord<>(topics.nodeWrites(), null, clock, node, e));
                produced.add(e);
            }
            if ((clock - T0) % 2_000 == 0) {
                for (String node : NODES) {
                    capacities.send(new ProducerRecord<>(topics.nodeCapacity(), null, clock, node,
                            new CapacityEvent("c1", node, 500L, 1000L, null, List.of(), Instant.ofEpochMilli(clock))));
                }
            }
            writes.flush();
            capacities.flush();
            Thread.sleep(100);
        }
    }

    private List<SkewAlert> alertsUntil(java.util.function.Predicate<List<SkewAlert>> done) {
        return KAFKA.broker().consumeUntil(topics.alerts(), new StringDeserializer(), alertSerde.deserializer(),
                        records -> done.test(records.stream().map(ConsumerRecord::value).toList()), Duration.ofSeconds(60))
                .stream().map(ConsumerRecord::value).toList();
    }

    private long expectedHeat(long from, long to) {
        return produced.stream().filter(e -> e.getEventTime().toEpochMilli() >= from && e.getEventTime().toEpochMilli() < to)
                .mapToLong(WriteEvent::getBytes).sum();
    }

    @Test
    void skewIsReportedAndConfirmedAcrossARestartWithoutRepeatingOrLosingAnything() throws Exception {
        startApp("first");
        produceSkew(6_000);
        alertsUntil(a -> a.stream().anyMatch(x -> x.getState() == AlertState.OBSERVING));

        // a bad record on the way: it must reach the DLQ with its original bytes
        try (KafkaProducer<byte[], byte[]> raw = KAFKA.broker().producer(new ByteArraySerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(topics.nodeWrites(), "n1".getBytes(StandardCharsets.UTF_8),
                    "garbage".getBytes(StandardCharsets.UTF_8))).get();
        }

        app.close(); // orderly stop mid-stream, before the cooldown has passed
        startApp("second"); // an empty state dir: the stores come back from their changelogs
        produceSkew(10_000);

        List<SkewAlert> alerts = alertsUntil(a -> a.stream().anyMatch(x -> x.getState() == AlertState.CONFIRMED));
        List<SkewAlert> heat = alerts.stream().filter(a -> a.getKind() == AlertKind.HEAT).toList();
        assertThat(heat).extracting(SkewAlert::getState).containsExactly(AlertState.OBSERVING, AlertState.CONFIRMED);
        long since = heat.get(0).getEventTime().toEpochMilli();
        assertThat(heat.get(1).getEventTime().toEpochMilli()).isEqualTo(since + COOLDOWN);
        assertThat(heat.get(1).getSince().toEpochMilli()).isEqualTo(since);

        long lastTick = heat.get(1).getEventTime().toEpochMilli();
        List<SkewReport> reports = KAFKA.broker().consumeUntil(topics.reports(), new StringDeserializer(),
                        reportSerde.deserializer(),
                        records -> records.stream().anyMatch(r -> r.value().getWindowEnd().toEpochMilli() >= lastTick),
                        Duration.ofSeconds(60))
                .stream().map(ConsumerRecord::value).toList();
        // one report per tick, in order, none repeated
        for (int i = 1; i < reports.size(); i++) {
            assertThat(reports.get(i).getWindowEnd().toEpochMilli() - reports.get(i - 1).getWindowEnd().toEpochMilli())
                    .isEqualTo(TICK);
        }
        // every report holds exactly the heat produced in its window, across the restart too
        assertThat(reports).allSatisfy(r -> assertThat(r.getTotalWriteBytes())
                .as("heat of window ending %s", r.getWindowEnd())
                .isEqualTo(expectedHeat(r.getWindowStart().toEpochMilli(), r.getWindowEnd().toEpochMilli())));
        assertThat(reports).allSatisfy(r -> assertThat(r.getCluster()).isEqualTo("c1"));
        assertThat(reports.get(reports.size() - 1).getHeatGini()).isGreaterThan(0.4);

        List<ConsumerRecord<byte[], byte[]>> dead = KAFKA.broker().consumeUntil(topics.dlq(),
                new ByteArrayDeserializer(), new ByteArrayDeserializer(), 1, Duration.ofSeconds(30));
        assertThat(dead).hasSize(1);
        assertThat(new String(dead.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("garbage");
        DeadLetter letter = DeadLetter.fromHeaders(dead.get(0).headers());
        assertThat(letter.sourceTopic()).isEqualTo(topics.nodeWrites());
        assertThat(letter.reason()).startsWith("undecodable");
    }
}
