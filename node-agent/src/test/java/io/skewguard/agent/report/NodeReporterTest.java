package io.skewguard.agent.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** The reporter's promises: every byte recorded is flushed exactly once, in valid events. */
class NodeReporterTest {

    private static final int SLOTS = 64;
    private static final Map<String, Object> REGISTRY = Map.of("schema.registry.url", "mock://node-reporter-test");

    private final AtomicLong clock = new AtomicLong(1_000);
    private final MockProducer<byte[], byte[]> producer =
            new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer());
    private final AtomicReference<CapacitySnapshot> capacity =
            new AtomicReference<>(new CapacitySnapshot(40, 100, "rack-a", Map.of(3, 30L, 1, 10L)));

    private NodeReporter reporter() {
        ReporterSettings settings = new ReporterSettings("c1", "n1", SLOTS, Topics.defaults(),
                Duration.ofHours(1), Duration.ofHours(1), REGISTRY);
        return new NodeReporter(settings, producer, capacity::get, clock::get);
    }

    private List<WriteEvent> writeEvents() {
        List<WriteEvent> events = new ArrayList<>();
        try (var serde = SchemaRegistrySerde.of(WriteEvent.class, REGISTRY, false)) {
            for (ProducerRecord<byte[], byte[]> r : producer.history()) {
                if (r.topic().equals("skew.node-writes")) {
                    assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("n1");
                    events.add(serde.deserializer().deserialize(r.topic(), r.value()));
                }
            }
        }
        return events;
    }

    @Test
    void oneEventPerWrittenSlotWithTheSumsSinceTheLastFlush() {
        NodeReporter reporter = reporter();
        reporter.record(3, 100);
        reporter.record(3, 50);
        reporter.record(9, 7);
        clock.set(5_000);
        assertThat(reporter.flush()).isEqualTo(2);
        assertThat(reporter.flush()).isZero();

        List<WriteEvent> events = writeEvents();
        assertThat(events).extracting(WriteEvent::getSlot, WriteEvent::getBytes, WriteEvent::getOps)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(3, 150L, 2L), org.assertj.core.groups.Tuple.tuple(9, 7L, 1L));
        assertThat(events).allSatisfy(e -> {
            assertThat(e.getCluster()).isEqualTo("c1");
            assertThat(e.getNode()).isEqualTo("n1");
            assertThat(e.getEventTime()).isEqualTo(Instant.ofEpochMilli(5_000));
        });
    }

    @Test
    void countsWhoseEventIsNotDeliveredGoOutWithALaterFlush() {
        MockProducer<byte[], byte[]> manual = new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
        ReporterSettings settings = new ReporterSettings("c1", "n1", SLOTS, Topics.defaults(),
                Duration.ofHours(1), Duration.ofHours(1), REGISTRY);
        NodeReporter reporter = new NodeReporter(settings, manual, capacity::get, clock::get);
        reporter.record(3, 100);
        reporter.record(9, 7);
        assertThat(reporter.flush()).isEqualTo(2);
        // the broker did not take them in time
        manual.errorNext(new org.apache.kafka.common.errors.TimeoutException("Expiring 1 record(s)"));
        manual.errorNext(new org.apache.kafka.common.errors.TimeoutException("Expiring 1 record(s)"));
        reporter.record(3, 1);

        assertThat(reporter.flush()).as("the undelivered counts, with what came since").isEqualTo(2);
        manual.completeNext();
        manual.completeNext();
        assertThat(reporter.flush()).isZero();
        try (var serde = SchemaRegistrySerde.of(WriteEvent.class, REGISTRY, false)) {
            List<WriteEvent> second = manual.history().subList(2, 4).stream()
                    .map(r -> serde.deserializer().deserialize(r.topic(), r.value())).toList();
            assertThat(second).extracting(WriteEvent::getSlot, WriteEvent::getBytes, WriteEvent::getOps)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(3, 101L, 2L), org.assertj.core.groups.Tuple.tuple(9, 7L, 1L));
        }
    }

    @Test
    void aSendRefusedAtOnceKeepsItsCountsAndThoseOfTheSlotsAfterIt() {
        java.util.concurrent.atomic.AtomicBoolean brokerAway = new java.util.concurrent.atomic.AtomicBoolean(true);
        MockProducer<byte[], byte[]> blocking = new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer()) {
            @Override
            public synchronized java.util.concurrent.Future<org.apache.kafka.clients.producer.RecordMetadata> send(
                    ProducerRecord<byte[], byte[]> record, org.apache.kafka.clients.producer.Callback callback) {
                if (brokerAway.get()) {
                    // what send() throws once max.block.ms has passed without metadata
                    throw new org.apache.kafka.common.errors.TimeoutException("Topic skew.node-writes not present in metadata after 60000 ms.");
                }
                return super.send(record, callback);
            }
        };
        ReporterSettings settings = new ReporterSettings("c1", "n1", SLOTS, Topics.defaults(),
                Duration.ofHours(1), Duration.ofHours(1), REGISTRY);
        NodeReporter reporter = new NodeReporter(settings, blocking, capacity::get, clock::get);
        reporter.record(3, 100);
        reporter.record(9, 7);
        assertThat(reporter.flush()).isZero();

        brokerAway.set(false);
        assertThat(reporter.flush()).isEqualTo(2);
        try (var serde = SchemaRegistrySerde.of(WriteEvent.class, REGISTRY, false)) {
            assertThat(blocking.history()).map(r -> serde.deserializer().deserialize(r.topic(), r.value()))
                    .extracting(WriteEvent::getSlot, WriteEvent::getBytes, WriteEvent::getOps)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(3, 100L, 1L), org.assertj.core.groups.Tuple.tuple(9, 7L, 1L));
        }
    }

    @Test
    void concurrentRecordsRacingFlushesAreFlushedExactlyOnce() throws Exception {
        NodeReporter reporter = reporter();
        int threads = 4;
        int perThread = 200_000;
        long[][] recorded = new long[threads][SLOTS];
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread w = new Thread(() -> {
                SplittableRandom random = new SplittableRandom(id);
                try {
                    go.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                for (int i = 0; i < perThread; i++) {
                    int slot = random.nextInt(SLOTS);
                    long bytes = random.nextInt(1000);
                    reporter.record(slot, bytes);
                    recorded[id][slot] += bytes;
                }
            });
            writers.add(w);
            w.start();
        }
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread flusher = new Thread(() -> {
            while (writing.get()) {
                reporter.flush();
            }
        });
        flusher.start();
        go.countDown();
        for (Thread w : writers) {
            w.join();
        }
        writing.set(false);
        flusher.join();
        reporter.close(); // flushes the rest

        long[] flushedBytes = new long[SLOTS];
        long flushedOps = 0;
        for (WriteEvent e : writeEvents()) {
            flushedBytes[e.getSlot()] += e.getBytes();
            flushedOps += e.getOps();
        }
        for (int slot = 0; slot < SLOTS; slot++) {
            long sum = 0;
            for (long[] perSlot : recorded) {
                sum += perSlot[slot];
            }
            assertThat(flushedBytes[slot]).as("slot %d", slot).isEqualTo(sum);
        }
        assertThat(flushedOps).isEqualTo((long) threads * perThread);
        assertThat(producer.closed()).isTrue();
    }

    @Test
    void recordAllocatesNothing() {
        NodeReporter reporter = reporter();
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().getId();
        for (int i = 0; i < 100_000; i++) {
            reporter.record(i & (SLOTS - 1), i); // warm up, so class loading is not counted
        }
        long before = threads.getThreadAllocatedBytes(self);
        for (int i = 0; i < 1_000_000; i++) {
            reporter.record(i & (SLOTS - 1), i);
        }
        long allocated = threads.getThreadAllocatedBytes(self) - before;
        // a single allocation per call would be at least 16 MB; the reading itself may cost a few bytes
        assertThat(allocated).isLessThan(1_000_000);
    }

    @Test
    void negativeBytesAndUnknownSlotsAreRefused() {
        NodeReporter reporter = reporter();
        assertThatThrownBy(() -> reporter.record(1, -1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("negative");
        assertThatThrownBy(() -> reporter.record(SLOTS, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside");
        assertThatThrownBy(() -> reporter.record(-1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThat(reporter.flush()).isZero();
    }

    @Test
    void capacityIsReportedFromTheSuppliersFigures() {
        NodeReporter reporter = reporter();
        clock.set(7_000);
        assertThat(reporter.reportCapacity()).isTrue();
        ProducerRecord<byte[], byte[]> r = producer.history().get(0);
        assertThat(r.topic()).isEqualTo("skew.node-capacity");
        try (var serde = SchemaRegistrySerde.of(CapacityEvent.class, REGISTRY, false)) {
            CapacityEvent e = serde.deserializer().deserialize(r.topic(), r.value());
            assertThat(e.getUsedBytes()).isEqualTo(40);
            assertThat(e.getTotalBytes()).isEqualTo(100);
            assertThat(e.getRack()).isEqualTo("rack-a");
            assertThat(e.getShards()).containsExactly(new ShardUsage(1, 10L), new ShardUsage(3, 30L));
            assertThat(e.getEventTime()).isEqualTo(Instant.ofEpochMilli(7_000));
        }
    }

    @Test
    void figuresTheDetectorWouldRejectAreNotSent() {
        NodeReporter reporter = reporter();
        capacity.set(new CapacitySnapshot(101, 100, null, Map.of()));
        assertThat(reporter.reportCapacity()).isFalse();
        capacity.set(new CapacitySnapshot(1, 100, null, Map.of(SLOTS, 1L)));
        assertThat(reporter.reportCapacity()).isFalse();
        assertThat(producer.history()).isEmpty();
    }

    @Test
    void closeFlushesWhatWasRecorded() {
        NodeReporter reporter = reporter().start();
        reporter.record(5, 11);
        reporter.close();
        assertThat(writeEvents()).extracting(WriteEvent::getBytes).containsExactly(11L);
    }
}
