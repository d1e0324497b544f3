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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stage one crashes mid-stream — its ingest loop drops its buffer and abandons its consumer and
 * producer without any flush or commit — and a new instance takes over: every heat byte produced
 * is counted exactly once in the reports, the heat the crashed loop had read but not committed
 * included.
 *
 * <p>The wall-clock flush is off (1 h), so between tick changes the current tick's heat exists
 * only in the ingest buffer. The old stage one (a Kafka Streams processor) committed its input
 * offsets every commit interval independently of that buffer: such a crash lost the buffered heat
 * and the windows covering it came out short. Here the offsets are committed only in the
 * transaction that hands the heat on, so the new instance reads that input again.
 */
class IngestCrashIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    // event (and record) times near now: the broker's time retention would delete old ones
    private static final long T0 = System.currentTimeMillis() / 60_000 * 60_000;
    private static final long TICK = 1_000;
    private static final String[] NODES = {"n1", "n2", "n3", "n4"};

    private final Topics topics = new Topics("crash.");
    private final List<WriteEvent> produced = new ArrayList<>();
    private long inputRecords;
    private DetectorSettings settings;
    private Path stateDir;
    private SchemaRegistrySerde<WriteEvent> writeSerde;
    private SchemaRegistrySerde<CapacityEvent> capacitySerde;
    private SchemaRegistrySerde<SkewReport> reportSerde;
    private KafkaProducer<String, WriteEvent> writes;
    private KafkaProducer<String, CapacityEvent> capacities;
    private DetectorApp.Running app;
    private long clock = T0;

    @BeforeEach
    void setUp() throws Exception {
        KAFKA.broker().createTopics(3, topics.nodeWrites(), topics.nodeCapacity());
        KAFKA.broker().createTopics(1, topics.reports(), topics.alerts(), topics.dlq());
        stateDir = Files.createTempDirectory("ingest-crash-it");
        java.util.Properties file = new java.util.Properties();
        // the crashed consumer stays in its group until its session times out: keep that short
        file.setProperty("session.timeout.ms", "6000");
        file.setProperty("heartbeat.interval.ms", "1500");
        settings = DetectorSettings.load(file, Map.of(), Map.of(
                DetectorSettings.BOOTSTRAP_SERVERS, KAFKA.bootstrapServers(),
                DetectorSettings.SCHEMA_REGISTRY_URL, "mock://ingest-crash-it",
                DetectorSettings.APPLICATION_ID, "ingest-crash-it",
                DetectorSettings.TOPIC_PREFIX, topics.prefix(),
                DetectorSettings.TICK, "1s",
                DetectorSettings.WINDOW, "4s",
                DetectorSettings.GRACE, "2s",
                DetectorSettings.COOLDOWN, "6s",
                DetectorSettings.FLUSH_INTERVAL, "1h",
                DetectorSettings.COMMIT_INTERVAL, "300ms"));
        Map<String, Object> serde = settings.serdeConfig();
        writeSerde = SchemaRegistrySerde.of(WriteEvent.class, serde, false);
        capacitySerde = SchemaRegistrySerde.of(CapacityEvent.class, serde, false);
        reportSerde = SchemaRegistrySerde.of(SkewReport.class, serde, false);
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
        assertThat(app.awaitRunning(Duration.ofSeconds(60))).as("detector running").isTrue();
    }

    /** Every 100 ms of wall time (and event time): one write per node, n4 taking 30×; capacities every 2 s. */
    private void produceSkew(long millis) throws InterruptedException {
        for (long end = clock + millis; clock < end; clock += 100) {
            for (String node : NODES) {
                long bytes = node.equals("n4") ? 3_000 : 100 + (clock / 100) % 7; // varied, so a lost or doubled event shows
                WriteEvent e = new WriteEvent("c1", node, node.hashCode() & 255, bytes, 1L, Instant.ofEpochMilli(clock));
                writes.send(new ProducerRecord<>(topics.nodeWrites(), null, clock, node, e));
                produced.add(e);
                inputRecords++;
            }
            if ((clock - T0) % 2_000 == 0) {
                for (String node : NODES) {
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

    private long expectedHeat(long from, long to) {
        return produced.stream().filter(e -> e.getEventTime().toEpochMilli() >= from && e.getEventTime().toEpochMilli() < to)
                .mapToLong(WriteEvent::getBytes).sum();
    }

    /** Input records (both topics) not yet covered by the ingest group's committed offsets. */
    private long uncommittedInput() throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            request.put(new TopicPartition(topics.nodeWrites(), p), OffsetSpec.latest());
            request.put(new TopicPartition(topics.nodeCapacity(), p), OffsetSpec.latest());
        }
        var admin = KAFKA.broker().adminClient();
        var ends = admin.listOffsets(request).all().get();
        Map<TopicPartition, OffsetAndMetadata> committed =
                admin.listConsumerGroupOffsets(settings.ingestGroupId()).partitionsToOffsetAndMetadata().get();
        long behind = 0;
        for (var e : ends.entrySet()) {
            OffsetAndMetadata c = committed.get(e.getKey());
            behind += e.getValue().offset() - (c == null ? 0 : c.offset());
        }
        return behind;
    }

    @Test
    void heatReadButNotCommittedWhenStageOneCrashesIsCountedOnceByTheNextInstance() throws Exception {
        startApp("first");
        produceSkew(5_300);
        // the crashed loop has read every input record ...
        while (app.ingestMetric("records-ingested-total") < inputRecords) {
            Thread.sleep(20);
        }
        // ... but has not committed all of it: that heat is only in its buffer when it crashes
        long atRisk = uncommittedInput();
        assertThat(atRisk).as("input read but not committed at the crash").isPositive();

        app.halt(); // crash of stage one: no flush, no commit, clients abandoned
        startApp("second"); // a new instance (new transactional.id, empty state dir)
        produceSkew(9_000); // event time to T0+14.3 s: ticks up to T0+11 s surely fire (stream time >= tick + grace)

        long last = T0 + 11_000;
        List<SkewReport> reports = KAFKA.broker().consumeUntil(topics.reports(), new StringDeserializer(),
                        reportSerde.deserializer(),
                        records -> records.stream().anyMatch(r -> r.value().getWindowEnd().toEpochMilli() >= last),
                        Duration.ofSeconds(90))
                .stream().map(ConsumerRecord::value).toList();
        assertThat(reports).isNotEmpty();
        assertThat(reports.get(0).getWindowEnd().toEpochMilli()).isEqualTo(T0 + TICK);
        // one report per tick, in order, none repeated
        for (int i = 1; i < reports.size(); i++) {
            assertThat(reports.get(i).getWindowEnd().toEpochMilli() - reports.get(i - 1).getWindowEnd().toEpochMilli())
                    .isEqualTo(TICK);
        }
        // every report holds exactly the heat produced in its window: nothing lost, nothing twice
        assertThat(reports).allSatisfy(r -> assertThat(r.getTotalWriteBytes())
                .as("heat of window ending %s", r.getWindowEnd())
                .isEqualTo(expectedHeat(r.getWindowStart().toEpochMilli(), r.getWindowEnd().toEpochMilli())));
        long total = reports.stream().filter(r -> (r.getWindowEnd().toEpochMilli() - T0) % 4_000 == 3_000)
                .filter(r -> r.getWindowEnd().toEpochMilli() <= last)
                .mapToLong(SkewReport::getTotalWriteBytes).sum();
        assertThat(total).as("heat of the disjoint windows ending T0+3s, +7s, +11s (the crash was at ≈ T0+5.3s)")
                .isEqualTo(expectedHeat(T0, last));
    }
}
