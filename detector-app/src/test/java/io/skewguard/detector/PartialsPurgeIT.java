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
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The partials topic is created with infinite retention, and the records stage two has committed
 * are deleted from it while the detector runs ({@code purge-interval} 300 ms here): its log-start
 * offset advances on every partition that has records, never past stage two's committed offset,
 * and every report still holds exactly the heat produced in its window.
 */
class PartialsPurgeIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final long T0 = System.currentTimeMillis() / 60_000 * 60_000;
    private static final long TICK = 1_000;
    private static final int PARTITIONS = 3;
    // several clusters, so that the partials (keyed by cluster) reach more than one partition
    private static final String[] CLUSTERS = {"c1", "c2", "c3", "c4", "c5", "c6"};
    private static final String[] NODES = {"n1", "n2", "n3"};

    private final Topics topics = new Topics("purge.");
    private final List<WriteEvent> produced = new ArrayList<>();
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
        KAFKA.broker().createTopics(PARTITIONS, topics.nodeWrites(), topics.nodeCapacity());
        KAFKA.broker().createTopics(1, topics.reports(), topics.alerts(), topics.dlq());
        stateDir = Files.createTempDirectory("partials-purge-it");
        Map<String, String> values = new HashMap<>();
        values.put(DetectorSettings.BOOTSTRAP_SERVERS, KAFKA.bootstrapServers());
        values.put(DetectorSettings.SCHEMA_REGISTRY_URL, "mock://partials-purge-it");
        values.put(DetectorSettings.APPLICATION_ID, "partials-purge-it");
        values.put(DetectorSettings.TOPIC_PREFIX, topics.prefix());
        values.put(DetectorSettings.TICK, "1s");
        values.put(DetectorSettings.WINDOW, "3s");
        values.put(DetectorSettings.GRACE, "1s");
        values.put(DetectorSettings.FLUSH_INTERVAL, "200ms");
        values.put(DetectorSettings.COMMIT_INTERVAL, "200ms");
        values.put(DetectorSettings.PURGE_INTERVAL, "300ms");
        values.put(DetectorSettings.STATE_DIR, stateDir.toString());
        settings = DetectorSettings.of(values);
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

    /** Every 100 ms of wall time (and event time): one write per cluster and node, capacities every second. */
    private void produce(long millis) throws InterruptedException {
        for (long end = clock + millis; clock < end; clock += 100) {
            for (String cluster : CLUSTERS) {
                for (String node : NODES) {
                    long bytes = 100 + (clock / 100 + node.hashCode() + cluster.hashCode()) % 13;
                    WriteEvent e = new WriteEvent(cluster, node, node.hashCode() & 255, bytes, 1L, Instant.ofEpochMilli(clock));
                    writes.send(new ProducerRecord<>(topics.nodeWrites(), null, clock, cluster + "/" + node, e));
                    produced.add(e);
                    if ((clock - T0) % 1_000 == 0) {
                        capacities.send(new ProducerRecord<>(topics.nodeCapacity(), null, clock, cluster + "/" + node,
                                new CapacityEvent(cluster, node, 500L, 1000L, null, List.of(), Instant.ofEpochMilli(clock))));
                    }
                }
            }
            writes.flush();
            capacities.flush();
            Thread.sleep(100);
        }
    }

    private long expectedHeat(String cluster, long from, long to) {
        return produced.stream().filter(e -> e.getCluster().equals(cluster))
                .filter(e -> e.getEventTime().toEpochMilli() >= from && e.getEventTime().toEpochMilli() < to)
                .mapToLong(WriteEvent::getBytes).sum();
    }

    private Map<TopicPartition, Long> offsets(OffsetSpec spec) throws Exception {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            request.put(new TopicPartition(settings.partialsTopic(), p), spec);
        }
        Map<TopicPartition, Long> result = new HashMap<>();
        KAFKA.broker().adminClient().listOffsets(request).all().get().forEach((tp, info) -> result.put(tp, info.offset()));
        return result;
    }

    private Map<TopicPartition, Long> committedByStageTwo() {
        Map<TopicPartition, Long> result = new HashMap<>(KAFKA.broker().committedOffsets(settings.applicationId()));
        result.keySet().removeIf(tp -> !tp.topic().equals(settings.partialsTopic()));
        return result;
    }

    /** True once every partition of the partials topic that has records has had some deleted. */
    private boolean purgedEveryNonEmptyPartition() throws Exception {
        Map<TopicPartition, Long> start = offsets(OffsetSpec.earliest());
        Map<TopicPartition, Long> end = offsets(OffsetSpec.latest());
        return end.entrySet().stream().allMatch(e -> e.getValue() == 0 || start.get(e.getKey()) > 0);
    }

    @Test
    void committedPartialsAreDeletedAndReportsStayExact() throws Exception {
        app = DetectorApp.start(settings);
        assertThat(app.awaitRunning(Duration.ofSeconds(60))).as("detector running").isTrue();

        Admin admin = KAFKA.broker().adminClient();
        ConfigResource partials = new ConfigResource(ConfigResource.Type.TOPIC, settings.partialsTopic());
        Config config = admin.describeConfigs(List.of(partials)).all().get().get(partials);
        assertThat(config.get(TopicConfig.RETENTION_MS_CONFIG).value()).isEqualTo("-1");
        assertThat(config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value()).isEqualTo(TopicConfig.CLEANUP_POLICY_DELETE);

        produce(6_500); // event time to T0+6.4 s: ticks up to T0+5 s surely fire (stream time >= tick + grace)
        long last = T0 + 5_000;
        List<SkewReport> reports = KAFKA.broker().consumeUntil(topics.reports(), new StringDeserializer(),
                        reportSerde.deserializer(),
                        records -> CLUSTERS.length == records.stream().filter(r -> r.value().getWindowEnd().toEpochMilli() >= last)
                                .map(r -> r.value().getCluster()).distinct().count(),
                        Duration.ofSeconds(90))
                .stream().map(ConsumerRecord::value).toList();

        // the purger runs every 300 ms: wait (at most 60 s) until it has deleted records on every non-empty partition
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!purgedEveryNonEmptyPartition() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        // log start first, then the committed offsets: these only grow, so the comparison is safe
        Map<TopicPartition, Long> logStart = offsets(OffsetSpec.earliest());
        Map<TopicPartition, Long> logEnd = offsets(OffsetSpec.latest());
        Map<TopicPartition, Long> committed = committedByStageTwo();
        assertThat(logEnd.values().stream().filter(end -> end > 0).count())
                .as("partials topic partitions with records").isGreaterThan(1);
        for (TopicPartition tp : logStart.keySet()) {
            if (logEnd.get(tp) > 0) {
                assertThat(logStart.get(tp)).as("log-start offset of %s", tp).isPositive();
            }
            assertThat(logStart.get(tp)).as("log-start offset of %s vs stage two's committed offset", tp)
                    .isLessThanOrEqualTo(committed.getOrDefault(tp, 0L));
        }

        // and nothing stage two needed was deleted: one report per tick and cluster, each exact
        for (String cluster : CLUSTERS) {
            List<SkewReport> own = reports.stream().filter(r -> r.getCluster().equals(cluster)).toList();
            assertThat(own).as("reports of %s", cluster).isNotEmpty();
            assertThat(own.get(0).getWindowEnd().toEpochMilli()).isEqualTo(T0 + TICK);
            for (int i = 1; i < own.size(); i++) {
                assertThat(own.get(i).getWindowEnd().toEpochMilli() - own.get(i - 1).getWindowEnd().toEpochMilli())
                        .isEqualTo(TICK);
            }
            assertThat(own).allSatisfy(r -> assertThat(r.getTotalWriteBytes())
                    .as("heat of %s in the window ending %s", cluster, r.getWindowEnd())
                    .isEqualTo(expectedHeat(cluster, r.getWindowStart().toEpochMilli(), r.getWindowEnd().toEpochMilli())));
        }

        app.close();
        assertThat(Thread.getAllStackTraces().keySet()).as("threads after close()")
                .noneMatch(t -> t.getName().equals("detector-partials-purger") && t.isAlive());
    }
}
