package io.skewguard.detector.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.detector.DetectorSettings;
import io.skewguard.detector.policy.BucketHeat;
import io.skewguard.detector.stream.PartialHeat;
import io.skewguard.detector.stream.StateCodec;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * When an ingest loop commits, with {@code flush-interval} and {@code commit-interval} so long (an
 * hour) that neither falls due in the test: a backlog produced before the loop starts is committed
 * (its heat on the partials topic, its offsets in the group) as soon as it is taken; a trickle
 * produced after it, and a second backlog within the same flush-interval, are not committed until
 * the flush, here the orderly stop.
 */
class IngestLoopCommitIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String[] NODES = {"n1", "n2", "n3", "n4"};
    private static final long T0 = System.currentTimeMillis() - 60_000;

    @Test
    void theEndOfABacklogIsCommittedOnceTakenAndATrickleWaitsForTheFlush() throws Exception {
        Topics topics = new Topics("loopcommit.");
        DetectorSettings settings = DetectorSettings.of(Map.of(
                DetectorSettings.BOOTSTRAP_SERVERS, KAFKA.bootstrapServers(),
                DetectorSettings.SCHEMA_REGISTRY_URL, "mock://loopcommit-it",
                DetectorSettings.APPLICATION_ID, "loopcommit-it",
                DetectorSettings.TOPIC_PREFIX, topics.prefix(),
                DetectorSettings.FLUSH_INTERVAL, "1h",
                DetectorSettings.COMMIT_INTERVAL, "1h"));
        KAFKA.broker().createTopics(3, topics.nodeWrites(), topics.nodeCapacity());
        KAFKA.broker().createTopics(1, topics.dlq(), settings.partialsTopic());

        int backlog = (int) (3 * IngestLoop.BACKLOG);
        long backlogBytes = produce(settings, topics, 0, backlog);

        AtomicReference<Throwable> failure = new AtomicReference<>();
        IngestLoop loop = new IngestLoop(settings, settings.partialsTopic(), "it", 0, failure::set);
        loop.start();
        try {
            awaitTaken(loop, backlog);
            Map<TopicPartition, Long> backlogEnds = endOffsets(topics);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (!committed(settings).equals(backlogEnds) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(committed(settings)).as("offsets committed after the backlog was taken").isEqualTo(backlogEnds);
            assertThat(awaitHeat(settings, backlogBytes)).as("the backlog's heat, committed").isEqualTo(backlogBytes);
            double transactions = loop.metrics().value("transactions-committed-total");

            // a trickle, far below a backlog: taken, and left for the flush
            int trickle = 20;
            long trickleBytes = produce(settings, topics, backlog, trickle);
            awaitTaken(loop, backlog + trickle);
            Thread.sleep(3_000); // thirty polls of the loop
            assertThat(loop.metrics().value("transactions-committed-total")).as("transactions after the trickle")
                    .isEqualTo(transactions);
            assertThat(committed(settings)).as("offsets after the trickle").isEqualTo(backlogEnds);
            assertThat(committedHeat(settings)).as("heat committed after the trickle").isEqualTo(backlogBytes);

            // a second backlog within the same flush-interval: at most one such commit per flush-interval
            long secondBytes = produce(settings, topics, backlog + trickle, backlog);
            awaitTaken(loop, 2L * backlog + trickle);
            Thread.sleep(3_000);
            assertThat(loop.metrics().value("transactions-committed-total")).as("transactions after a second backlog")
                    .isEqualTo(transactions);
            assertThat(committed(settings)).as("offsets after a second backlog").isEqualTo(backlogEnds);

            // the orderly stop commits them, nothing lost
            assertThat(loop.stop(Duration.ofSeconds(30))).as("loop stopped").isTrue();
            assertThat(committed(settings)).as("offsets after the stop").isEqualTo(endOffsets(topics));
            assertThat(awaitHeat(settings, backlogBytes + trickleBytes + secondBytes)).as("heat after the stop")
                    .isEqualTo(backlogBytes + trickleBytes + secondBytes);
            assertThat(loop.metrics().value("dead-letter-total")).as("dead letters").isZero();
            assertThat(failure.get()).as("loop failure").isNull();
        } finally {
            loop.stop(Duration.ofSeconds(30));
        }
    }

    /**
     * Write events {@code from} .. {@code from + count - 1}, one a millisecond of event time from T0,
     * sent all at once by the flush at the end (one batch per partition), so that a running loop finds
     * them all behind at its next poll; returns their bytes.
     */
    private static long produce(DetectorSettings settings, Topics topics, int from, int count) throws Exception {
        long bytes = 0;
        Map<String, Object> atOnce = Map.of(ProducerConfig.LINGER_MS_CONFIG, 60_000, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000,
                ProducerConfig.BATCH_SIZE_CONFIG, 8 << 20, ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        try (var serde = SchemaRegistrySerde.of(WriteEvent.class, settings.serdeConfig(), false);
                KafkaProducer<String, WriteEvent> producer = KAFKA.broker().producer(new StringSerializer(), serde.serializer(), atOnce)) {
            for (int i = from; i < from + count; i++) {
                long t = T0 + i;
                String node = NODES[i % NODES.length];
                long b = 100 + i % 7;
                producer.send(new ProducerRecord<>(topics.nodeWrites(), null, t, node,
                        new WriteEvent("c1", node, i % 64, b, 1L, Instant.ofEpochMilli(t))));
                bytes += b;
            }
            producer.flush();
        }
        return bytes;
    }

    private static void awaitTaken(IngestLoop loop, long records) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (loop.metrics().value("records-ingested-total") < records && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(loop.metrics().value("records-ingested-total")).as("records taken").isEqualTo((double) records);
    }

    /** The end offset of every partition of node-writes with records. */
    private static Map<TopicPartition, Long> endOffsets(Topics topics) {
        Map<TopicPartition, Long> ends = new HashMap<>(KAFKA.broker().endOffsets(topics.nodeWrites()));
        ends.values().removeIf(end -> end == 0);
        return ends;
    }

    /** The ingest group's committed offsets on node-writes. */
    private static Map<TopicPartition, Long> committed(DetectorSettings settings) {
        Map<TopicPartition, Long> offsets = new HashMap<>(KAFKA.broker().committedOffsets(settings.ingestGroupId()));
        offsets.keySet().removeIf(tp -> !tp.topic().equals(settings.topics().nodeWrites()));
        return offsets;
    }

    /**
     * {@link #committedHeat}, read again until it is {@code expected} or 30 s have passed: a transaction
     * is committed when {@code commitTransaction} returns, but the broker writes its markers to the
     * partials topic just after, and only then does the last stable offset a reader sees move past it.
     * Heat that is missing stays missing, and the caller's assertion fails.
     */
    private static long awaitHeat(DetectorSettings settings, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long heat = committedHeat(settings);
        while (heat != expected && System.nanoTime() < deadline) {
            Thread.sleep(200);
            heat = committedHeat(settings);
        }
        return heat;
    }

    /** The write bytes in the committed partials: every committed record of the partials topic, read to its last stable offset. */
    private static long committedHeat(DetectorSettings settings) {
        Map<String, Object> config = new HashMap<>(KAFKA.broker().clientProperties());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        long bytes = 0;
        try (KafkaConsumer<byte[], PartialHeat> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(),
                StateCodec.partialSerde().deserializer())) {
            TopicPartition tp = new TopicPartition(settings.partialsTopic(), 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp); // read_committed: the last stable offset
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], PartialHeat> r : consumer.poll(Duration.ofMillis(200))) {
                    for (BucketHeat b : r.value().buckets()) {
                        for (long n : b.nodeBytes()) {
                            bytes += n;
                        }
                    }
                }
            }
            assertThat(consumer.position(tp)).as("partials read to the last stable offset").isGreaterThanOrEqualTo(end);
        }
        return bytes;
    }
}
