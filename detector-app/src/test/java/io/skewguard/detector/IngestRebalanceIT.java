package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
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
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Input partitions move between ingest loops mid-stream: a second instance joins the first (two
 * ingest loops) and later leaves. Each loop hands on and commits what it buffered before giving
 * partitions up, so every report still holds exactly the heat produced in its window. (The wall
 * clock flush is off, so between tick changes the current tick's heat is only in the buffers.)
 */
class IngestRebalanceIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final long T0 = System.currentTimeMillis() / 60_000 * 60_000;
    private static final long TICK = 1_000;
    private static final String[] NODES = {"n1", "n2", "n3", "n4", "n5", "n6"};

    private final Topics topics = new Topics("rebalance.");
    private final List<WriteEvent> produced = new ArrayList<>();
    private DetectorSettings settings;
    private Path stateDir;
    private SchemaRegistrySerde<WriteEvent> writeSerde;
    private SchemaRegistrySerde<SkewReport> reportSerde;
    private KafkaProducer<String, WriteEvent> writes;
    private final List<DetectorApp.Running> apps = new ArrayList<>();
    private long clock = T0;

    @BeforeEach
    void setUp() throws Exception {
        KAFKA.broker().createTopics(4, topics.nodeWrites(), topics.nodeCapacity());
        KAFKA.broker().createTopics(1, topics.reports(), topics.alerts(), topics.dlq());
        stateDir = Files.createTempDirectory("ingest-rebalance-it");
        java.util.Properties file = new java.util.Properties();
        file.setProperty("session.timeout.ms", "6000");
        file.setProperty("heartbeat.interval.ms", "1500");
        settings = DetectorSettings.load(file, Map.of(), Map.of(
                DetectorSettings.BOOTSTRAP_SERVERS, KAFKA.bootstrapServers(),
                DetectorSettings.SCHEMA_REGISTRY_URL, "mock://ingest-rebalance-it",
                DetectorSettings.APPLICATION_ID, "ingest-rebalance-it",
                DetectorSettings.TOPIC_PREFIX, topics.prefix(),
                DetectorSettings.TICK, "1s",
                DetectorSettings.WINDOW, "4s",
                DetectorSettings.GRACE, "2s",
                DetectorSettings.COOLDOWN, "6s",
                DetectorSettings.FLUSH_INTERVAL, "1h",
                DetectorSettings.COMMIT_INTERVAL, "300ms"));
        writeSerde = SchemaRegistrySerde.of(WriteEvent.class, settings.serdeConfig(), false);
        reportSerde = SchemaRegistrySerde.of(SkewReport.class, settings.serdeConfig(), false);
        writes = KAFKA.broker().producer(new StringSerializer(), writeSerde.serializer());
    }

    @AfterEach
    void tearDown() throws Exception {
        for (DetectorApp.Running app : apps) {
            app.close();
        }
        writes.close();
        try (var paths = Files.walk(stateDir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private DetectorApp.Running startApp(String stateSubDir, int ingestThreads) throws InterruptedException {
        DetectorApp.Running app = DetectorApp.start(settings.with(Map.of(
                DetectorSettings.STATE_DIR, stateDir.resolve(stateSubDir).toString(),
                DetectorSettings.INGEST_THREADS, Integer.toString(ingestThreads))));
        apps.add(app);
        assertThat(app.awaitRunning(Duration.ofSeconds(60))).as("detector running").isTrue();
        return app;
    }

    /** Every 100 ms of wall time (and event time): one write per node, n6 taking 30×. */
    private void produceSkew(long millis) throws InterruptedException {
        for (long end = clock + millis; clock < end; clock += 100) {
            for (String node : NODES) {
                long bytes = node.equals("n6") ? 3_000 : 100 + (clock / 100) % 7;
                WriteEvent e = new WriteEvent("c1", node, node.hashCode() & 255, bytes, 1L, Instant.ofEpochMilli(clock));
                writes.send(new ProducerRecord<>(topics.nodeWrites(), null, clock, node, e));
                produced.add(e);
            }
            writes.flush();
            Thread.sleep(100);
        }
    }

    private long expectedHeat(long from, long to) {
        return produced.stream().filter(e -> e.getEventTime().toEpochMilli() >= from && e.getEventTime().toEpochMilli() < to)
                .mapToLong(WriteEvent::getBytes).sum();
    }

    @Test
    void partitionsMovingBetweenIngestLoopsLoseAndDoubleNothing() throws Exception {
        startApp("first", 2);
        produceSkew(4_000);
        DetectorApp.Running second = startApp("second", 1); // the group now spreads 8 partitions over 3 loops
        produceSkew(4_000);
        second.close(); // its loop commits and leaves: its partitions go back to the first instance's loops
        apps.remove(second);
        produceSkew(5_000);

        long last = T0 + 10_000;
        List<SkewReport> reports = KAFKA.broker().consumeUntil(topics.reports(), new StringDeserializer(),
                        reportSerde.deserializer(),
                        records -> records.stream().anyMatch(r -> r.value().getWindowEnd().toEpochMilli() >= last),
                        Duration.ofSeconds(90))
                .stream().map(ConsumerRecord::value).toList();
        assertThat(reports.get(0).getWindowEnd().toEpochMilli()).isEqualTo(T0 + TICK);
        for (int i = 1; i < reports.size(); i++) {
            assertThat(reports.get(i).getWindowEnd().toEpochMilli() - reports.get(i - 1).getWindowEnd().toEpochMilli())
                    .isEqualTo(TICK);
        }
        assertThat(reports).allSatisfy(r -> assertThat(r.getTotalWriteBytes())
                .as("heat of window ending %s", r.getWindowEnd())
                .isEqualTo(expectedHeat(r.getWindowStart().toEpochMilli(), r.getWindowEnd().toEpochMilli())));
    }
}
