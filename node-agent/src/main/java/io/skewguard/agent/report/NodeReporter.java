package io.skewguard.agent.report;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The producer side of a storage node (docs/design.md §6): counts the writes the node takes per
 * slot and sends them, pre-aggregated, as one {@code WriteEvent} per slot and flush interval, plus a
 * periodic {@code CapacityEvent}, signed with the node's key when it has one (docs/security.md; write
 * counts are not signed: see there why).
 *
 * <h2>The write path: {@link #record(int, long)}</h2>
 *
 * Two {@link AtomicLongArray#getAndAdd} on a preallocated array: lock-free, no allocation, O(1).
 * Each slot's two counters (bytes, ops) sit {@value #STRIDE} longs (64 bytes, one cache line) apart
 * from the next slot's, so threads writing different slots do not contend on a line. Threads writing
 * the same slot do share its line; a per-thread striped counter (as {@code LongAdder}) would spread
 * that, at S × stripes of memory and a slower flush; one line per slot is enough while a slot's
 * writes are spread across nodes. JMH: {@code NodeReporterBenchmark} in the benchmarks module.
 *
 * <h2>Flush: nothing lost, nothing counted twice</h2>
 *
 * {@link #flush()} takes each counter with {@code getAndSet(0)}: every {@code getAndAdd} lands either
 * before that swap (in this flush) or after it (in the next), never in neither and never in both.
 * Because bytes and ops are two counters, a racing write may have its bytes in one flush and its op in
 * the next; the sums over flushes stay exact. A slot is sent when either counter is non-zero.
 * {@link #close()} flushes a last time. Counts whose event is not delivered are added back to their
 * slot and go out with a later flush, so a broker or registry outage delays heat but loses none.
 *
 * <h2>Ownership</h2>
 *
 * The reporter closes the producer it is given on {@link #close()}.
 */
public final class NodeReporter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NodeReporter.class);

    /** Longs between the counters of neighbouring slots: one 64-byte cache line. */
    static final int STRIDE = 8;

    private final ReporterSettings settings;
    private final Producer<byte[], byte[]> producer;
    private final Supplier<CapacitySnapshot> capacity;
    private final LongSupplier clockMillis;
    private final AtomicLongArray counters;
    private final int slotCount;
    private final byte[] key;
    private final SchemaRegistrySerde<WriteEvent> writeSerde;
    private final SchemaRegistrySerde<CapacityEvent> capacitySerde;
    private final ScheduledExecutorService timer;
    private volatile boolean closed;

    /**
     * A reporter sending with {@code producer} (which it closes), reading capacity figures from
     * {@code capacity}, time from {@code clockMillis}. Call {@link #start()} for the periodic sends,
     * or drive {@link #flush()} and {@link #reportCapacity()} yourself (tests, the simulator).
     */
    public NodeReporter(ReporterSettings settings, Producer<byte[], byte[]> producer, Supplier<CapacitySnapshot> capacity,
                        LongSupplier clockMillis) {
        this.settings = settings;
        this.producer = producer;
        this.capacity = capacity;
        this.clockMillis = clockMillis;
        this.slotCount = settings.slotCount();
        this.counters = new AtomicLongArray(slotCount * STRIDE);
        this.key = settings.node().getBytes(StandardCharsets.UTF_8);
        this.writeSerde = SchemaRegistrySerde.of(WriteEvent.class, settings.kafka(), false);
        this.capacitySerde = SchemaRegistrySerde.of(CapacityEvent.class, settings.kafka(), false);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "skewguard-reporter-" + settings.node());
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts flushing every flush interval and reporting capacity every capacity interval. */
    public NodeReporter start() {
        long flush = settings.flushInterval().toMillis();
        long cap = settings.capacityInterval().toMillis();
        timer.scheduleAtFixedRate(this::flushLogged, flush, flush, TimeUnit.MILLISECONDS);
        timer.scheduleAtFixedRate(this::reportCapacityLogged, 0, cap, TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * Counts one write of {@code bytes} to {@code slot}. Lock-free and allocation-free.
     *
     * @throws IllegalArgumentException if {@code bytes} is negative or {@code slot} is outside [0, S)
     */
    public void record(int slot, long bytes) {
        if (bytes < 0 || slot < 0 || slot >= slotCount) {
            throw badRecord(slot, bytes);
        }
        int i = slot * STRIDE;
        counters.getAndAdd(i, bytes);
        counters.getAndIncrement(i + 1);
    }

    private IllegalArgumentException badRecord(int slot, long bytes) {
        return new IllegalArgumentException(bytes < 0 ? "bytes must not be negative, was " + bytes
                : "slot " + slot + " is outside [0, " + slotCount + ")");
    }

    /**
     * Sends one WriteEvent per slot written since the last flush, with event time now. Counts whose
     * event is not delivered (the broker or the registry did not answer in time, or refused it) are
     * put back, so that they go out with a later flush: an outage delays the heat, it loses none. A
     * send that fails at once ends the flush; the slots after it keep their counts too.
     *
     * @return the number of events sent
     */
    public synchronized int flush() {
        String topic = settings.topics().nodeWrites();
        Instant now = Instant.ofEpochMilli(clockMillis.getAsLong());
        int sent = 0;
        for (int slot = 0; slot < slotCount; slot++) {
            int i = slot * STRIDE;
            long bytes = counters.getAndSet(i, 0);
            long ops = counters.getAndSet(i + 1, 0);
            if (bytes == 0 && ops == 0) {
                continue;
            }
            WriteEvent event = WriteEvent.newBuilder()
                    .setCluster(settings.cluster()).setNode(settings.node()).setSlot(slot)
                    .setBytes(bytes).setOps(ops).setEventTime(now).build();
            int s = slot;
            try {
                producer.send(new ProducerRecord<>(topic, key, writeSerde.serializer().serialize(topic, event)),
                        (metadata, e) -> {
                            if (e != null) {
                                putBack(s, bytes, ops, e);
                            } else if (undelivered) {
                                undelivered = false;
                                LOG.info("{}: write counts are delivered again", settings.node());
                            }
                        });
            } catch (RuntimeException e) {
                putBack(slot, bytes, ops, e);
                break;
            }
            sent++;
        }
        return sent;
    }

    /** Whether write counts were put back since the last delivery (logged once per outage). */
    private volatile boolean undelivered;

    private void putBack(int slot, long bytes, long ops, Exception why) {
        int i = slot * STRIDE;
        counters.getAndAdd(i, bytes);
        counters.getAndAdd(i + 1, ops);
        if (!undelivered) {
            undelivered = true;
            LOG.warn("{}: write counts not delivered ({}); kept for a later flush", settings.node(), why.toString());
        }
    }

    /**
     * Sends a CapacityEvent from the supplier's current figures; figures the detector would reject
     * are logged and not sent.
     *
     * @return true if an event was sent
     */
    public boolean reportCapacity() {
        CapacitySnapshot snapshot = capacity.get();
        String problem = snapshot.problem(slotCount);
        if (problem != null) {
            LOG.warn("{}: capacity figures not sent: {}", settings.node(), problem);
            return false;
        }
        List<ShardUsage> shards = new ArrayList<>();
        for (Map.Entry<Integer, Long> e : new TreeMap<>(snapshot.shardBytes()).entrySet()) {
            shards.add(new ShardUsage(e.getKey(), e.getValue()));
        }
        String topic = settings.topics().nodeCapacity();
        CapacityEvent event = CapacityEvent.newBuilder()
                .setCluster(settings.cluster()).setNode(settings.node())
                .setUsedBytes(snapshot.usedBytes()).setTotalBytes(snapshot.totalBytes()).setRack(snapshot.rack())
                .setShards(shards).setEventTime(Instant.ofEpochMilli(clockMillis.getAsLong())).build();
        byte[] value = capacitySerde.serializer().serialize(topic, event);
        RecordHeaders headers = new RecordHeaders();
        // the migrator believes capacity figures only from the node they name (docs/security.md)
        settings.keys().signInto(settings.node(), headers, topic, key, value);
        producer.send(new ProducerRecord<>(topic, null, key, value, headers));
        return true;
    }

    private void flushLogged() {
        try {
            flush();
        } catch (RuntimeException e) {
            LOG.error("{}: flushing write counts failed: {}", settings.node(), e.getMessage(), e);
        }
    }

    private void reportCapacityLogged() {
        try {
            reportCapacity();
        } catch (RuntimeException e) {
            LOG.error("{}: reporting capacity failed: {}", settings.node(), e.getMessage(), e);
        }
    }

    /** Stops the timer, flushes what was recorded, and closes the producer. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        timer.shutdown();
        try {
            if (!timer.awaitTermination(30, TimeUnit.SECONDS)) {
                LOG.warn("{}: reporter timer did not stop within 30 s", settings.node());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        flush();
        producer.flush();
        producer.close();
        writeSerde.close();
        capacitySerde.close();
    }
}
