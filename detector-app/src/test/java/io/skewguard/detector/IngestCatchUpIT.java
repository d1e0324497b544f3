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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The detector starts on a backlog (a minute of input produced before it runs): the ingest loop
 * fetches its partitions unevenly — the small capacity topic whole in the first fetches — and must
 * still take the records in event-time order, so that no on-time event is dead-lettered as late
 * and every report holds exactly the heat produced in its window. The larger backlog makes the loop
 * fetch faster than it takes, so it pauses and resumes partitions while it catches up.
 */
class IngestCatchUpIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    // a minute of event time that lies in the past, near now (the broker's time retention)
    private static final long T0 = System.currentTimeMillis() / 60_000 * 60_000 - 120_000;
    private static final long SPAN = 60_000;
    private static final String[] NODES = {"n1", "n2", "n3", "n4", "n5", "n6"};

    @Test
    void aBacklogIsTakenInEventTimeOrderSoNothingIsLateAndEveryWindowIsExact() throws Exception {
        catchUp("catchup.", 5, Map.of(), 1); // the default: one loop, with its taker
    }

    @Test
    void oneLoopOnOneThreadTakesThePartitionsInEventTimeOrder() throws Exception {
        catchUp("catchup-one.", 5, Map.of(DetectorSettings.INGEST_TAKE_THREAD, "false"), 1);
    }

    @Test
    void aLoopPerPartitionKeepsPaceWithTheOthersSoEveryWindowIsStillExact() throws Exception {
        // three loops on the three partitions, each on one thread: each may run ahead of the others by
        // half the grace period at most, so stage two counts every heat in its window
        catchUp("catchup-three.", 0, Map.of(DetectorSettings.INGEST_THREADS, "3",
                DetectorSettings.INGEST_TAKE_THREAD, "false"), 3);
    }

    @Test
    void loopsWithTakersKeepPaceToo() throws Exception {
        catchUp("catchup-three-takers.", 5, Map.of(DetectorSettings.INGEST_THREADS, "3"), 3);
    }

    @Test
    void aBacklogFetchedFasterThanItIsTakenPausesPartitionsAndLosesNothing() throws Exception {
        // 120,000 write events, half of them on one node (so one partition holds half the backlog or more),
        // read by one loop whose taker takes while its thread fetches
        double pauses = catchUp("catchup-paused.", 0, Map.of(), 1);
        assertThat(pauses).as("partitions paused while catching up").isPositive();
    }

    /**
     * Produces a minute of input, every {@code step} ms a write event ({@code step} 0: two every
     * millisecond, every other one on node n6), then starts the detector on it and checks that
     * nothing is late and that every window is exact ({@code ingest}: the ingest loops' settings, which
     * start {@code loops} loops). Returns {@code partition-pauses-total}.
     */
    private double catchUp(String prefix, long step, Map<String, String> ingest, int loops) throws Exception {
        Topics topics = new Topics(prefix);
        String id = prefix.replace(".", "") + "-it";
        KAFKA.broker().createTopics(3, topics.nodeWrites(), topics.nodeCapacity());
        KAFKA.broker().createTopics(1, topics.reports(), topics.alerts(), topics.dlq());
        Path stateDir = Files.createTempDirectory(id);
        Map<String, String> given = new HashMap<>(ingest);
        given.putAll(Map.of(
                DetectorSettings.BOOTSTRAP_SERVERS, KAFKA.bootstrapServers(),
                DetectorSettings.SCHEMA_REGISTRY_URL, "mock://" + id,
                DetectorSettings.APPLICATION_ID, id,
                DetectorSettings.TOPIC_PREFIX, topics.prefix(),
                DetectorSettings.TICK, "1s",
                DetectorSettings.WINDOW, "4s",
                DetectorSettings.GRACE, "2s",
                DetectorSettings.COOLDOWN, "6s",
                DetectorSettings.STATE_DIR, stateDir.toString()));
        DetectorSettings settings = DetectorSettings.of(given);
        Map<String, Object> serde = settings.serdeConfig();
        List<WriteEvent> produced = new ArrayList<>();
        long inputRecords = 0;
        try (var writeSerde = SchemaRegistrySerde.of(WriteEvent.class, serde, false);
                var capacitySerde = SchemaRegistrySerde.of(CapacityEvent.class, serde, false);
                KafkaProducer<String, WriteEvent> writes = KAFKA.broker().producer(new StringSerializer(), writeSerde.serializer());
                KafkaProducer<String, CapacityEvent> capacities =
                        KAFKA.broker().producer(new StringSerializer(), capacitySerde.serializer())) {
            long events = step == 0 ? 2 * SPAN : SPAN / step;
            for (long i = 0; i < events; i++) {
                long t = step == 0 ? T0 + i / 2 : T0 + i * step;
                String node = step == 0 && i % 2 == 1 ? "n6" : NODES[(int) (i % NODES.length)];
                long bytes = node.equals("n6") ? 2_000 + t % 13 : 100 + t % 7; // n6 hot; varied sizes
                WriteEvent e = new WriteEvent("c1", node, (int) (t / 5 % 64), bytes, 1L, Instant.ofEpochMilli(t));
                writes.send(new ProducerRecord<>(topics.nodeWrites(), null, t, node, e));
                produced.add(e);
                inputRecords++;
                if ((t - T0) % 1_000 == 0 && (step != 0 || i % 2 == 0)) {
                    for (String n : NODES) {
                        capacities.send(new ProducerRecord<>(topics.nodeCapacity(), null, t, n,
                                new CapacityEvent("c1", n, 500L, 1000L, null, List.of(), Instant.ofEpochMilli(t))));
                        inputRecords++;
                    }
                }
            }
            writes.flush();
            capacities.flush();
        }

        try (var reportSerde = SchemaRegistrySerde.of(SkewReport.class, serde, false);
                DetectorApp.Running app = DetectorApp.start(settings)) {
            assertThat(app.awaitRunning(Duration.ofSeconds(60))).as("detector running").isTrue();
            assertThat(app.ingestLoops()).as("ingest loops").hasSize(loops);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (app.ingestMetric("records-ingested-total") < inputRecords && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(app.ingestMetric("records-ingested-total")).as("input records taken").isEqualTo(inputRecords);
            assertThat(app.ingestMetric("dead-letter-total")).as("events dead-lettered").isZero();

            // stream time ends at T0 + 60 s - 5 ms: the last tick that fires is T0 + 57 s
            long last = T0 + 57_000;
            List<SkewReport> reports = KAFKA.broker().consumeUntil(topics.reports(), new StringDeserializer(),
                            reportSerde.deserializer(),
                            records -> records.stream().anyMatch(r -> r.value().getWindowEnd().toEpochMilli() >= last),
                            Duration.ofSeconds(60))
                    .stream().map(ConsumerRecord::value).toList();
            assertThat(reports).hasSize(57);
            for (int i = 0; i < reports.size(); i++) {
                SkewReport r = reports.get(i);
                long from = r.getWindowStart().toEpochMilli();
                long to = r.getWindowEnd().toEpochMilli();
                assertThat(to).isEqualTo(T0 + (i + 1) * 1_000L);
                long expected = produced.stream().filter(e -> e.getEventTime().toEpochMilli() >= from
                        && e.getEventTime().toEpochMilli() < to).mapToLong(WriteEvent::getBytes).sum();
                assertThat(r.getTotalWriteBytes()).as("heat of window ending %s", r.getWindowEnd()).isEqualTo(expected);
            }
            return app.ingestMetric("partition-pauses-total");
        } finally {
            try (var paths = Files.walk(stateDir)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
