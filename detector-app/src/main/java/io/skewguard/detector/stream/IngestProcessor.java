package io.skewguard.detector.stream;

import io.skewguard.detector.policy.BucketHeat;
import io.skewguard.detector.policy.InputCheck;
import io.skewguard.detector.policy.NodeCapacity;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.WriteEvent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage one, on the node-keyed input topics (bytes): decodes each record itself, so that an
 * undecodable one reaches the dead-letter topic with its original bytes; validates it
 * ({@link InputCheck}); and adds it to an in-memory per-cluster buffer of per-tick heat and latest
 * capacities. No state store is touched per record.
 *
 * <p>The buffer of a cluster is forwarded as one {@link PartialHeat} (keyed by cluster, for the
 * repartition to the per-cluster stage) when a record opens a newer tick bucket of that cluster,
 * every flush interval of wall-clock time, and once an orderly shutdown asks for a drain
 * ({@link IngestDrain}). So the per-cluster stage sees a few compact records per tick and task
 * instead of every event.
 *
 * <p>Limit: heat buffered when a task is taken away without a drain (a crash, or a rebalance that
 * moves the task) is not handed on: at most one flush interval of that task's heat is then
 * missing from the windows covering it. It is never counted twice.
 *
 * <p>Per cluster the task keeps its stream time (highest event time seen, in memory) for the
 * lateness and future checks.
 */
public final class IngestProcessor implements Processor<byte[], byte[], Object, IngestOutput> {

    private static final Logger LOG = LoggerFactory.getLogger(IngestProcessor.class);

    private final String writesTopic;
    private final String capacityTopic;
    private final Deserializer<WriteEvent> writes;
    private final Deserializer<CapacityEvent> capacities;
    private final InputCheck check;
    private final long tickMs;
    private final Duration flushInterval;
    private final IngestDrain drain;
    private final Map<String, ClusterBuffer> buffers = new LinkedHashMap<>();
    private ClusterBuffer lastBuffer;
    private ProcessorContext<Object, IngestOutput> context;
    private Sensor deadLetters;

    public IngestProcessor(
            String writesTopic, String capacityTopic,
            Deserializer<WriteEvent> writes, Deserializer<CapacityEvent> capacities,
            InputCheck check, long tickMs, Duration flushInterval, IngestDrain drain) {
        this.writesTopic = writesTopic;
        this.capacityTopic = capacityTopic;
        this.writes = writes;
        this.capacities = capacities;
        this.check = check;
        this.tickMs = tickMs;
        this.flushInterval = flushInterval;
        this.drain = drain;
    }

    @Override
    public void init(ProcessorContext<Object, IngestOutput> context) {
        // a revived task re-initialises the same instance; its input is read again from the last commit
        buffers.clear();
        lastBuffer = null;
        this.context = context;
        this.deadLetters = DetectorMetrics.deadLetterSensor(context);
        context.schedule(flushInterval, PunctuationType.WALL_CLOCK_TIME, now -> flushAll());
        drain.opened(this);
        context.schedule(IngestDrain.CHECK_INTERVAL, PunctuationType.WALL_CLOCK_TIME, now -> {
            if (drain.requested()) {
                flushAll();
                context.commit();
                drain.drained(this);
            }
        });
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        RecordMetadata meta = context.recordMetadata().orElseThrow();
        String topic = meta.topic();
        if (record.value() == null) {
            reject(record, meta, "empty value");
            return;
        }
        if (topic.equals(writesTopic)) {
            WriteEvent e = decode(writes, record, meta);
            if (e != null) {
                String bad = check.check(e).or(() -> admit(e.getCluster(), e.getEventTime().toEpochMilli())).orElse(null);
                if (bad == null) {
                    buffer(e.getCluster()).addWrite(e);
                    handOnIfDraining(e.getCluster());
                } else {
                    reject(record, meta, bad);
                }
            }
        } else if (topic.equals(capacityTopic)) {
            CapacityEvent e = decode(capacities, record, meta);
            if (e != null) {
                String bad = check.check(e).or(() -> admit(e.getCluster(), e.getEventTime().toEpochMilli())).orElse(null);
                if (bad == null) {
                    buffer(e.getCluster()).addCapacity(e);
                    handOnIfDraining(e.getCluster());
                } else {
                    reject(record, meta, bad);
                }
            }
        } else {
            reject(record, meta, "unexpected topic " + topic);
        }
    }

    private void handOnIfDraining(String cluster) {
        if (drain.requested()) {
            flush(buffer(cluster));
        }
    }

    /** The cluster's buffer; most records are of the cluster of the record before, so that is checked first. */
    private ClusterBuffer buffer(String cluster) {
        ClusterBuffer b = lastBuffer;
        if (b == null || !b.cluster.equals(cluster)) {
            b = buffers.computeIfAbsent(cluster, ClusterBuffer::new);
            lastBuffer = b;
        }
        return b;
    }

    /** The decoded value, or null after sending the record to the dead letters. */
    private <T> T decode(Deserializer<T> deserializer, Record<byte[], byte[]> record, RecordMetadata meta) {
        try {
            T value = deserializer.deserialize(meta.topic(), record.headers(), record.value());
            if (value == null) {
                reject(record, meta, "undecodable: no record");
            }
            return value;
        } catch (RuntimeException e) {
            // SerializationException from the serde: bad magic byte, unknown schema id, truncated body
            reject(record, meta, "undecodable: " + e.getMessage());
            return null;
        }
    }

    /**
     * Checks an event's time against its cluster's stream time; when on time, advances the stream
     * time and, if the event opens a newer bucket, flushes the cluster's buffer first.
     *
     * @return the reason to refuse the event, or empty when its cluster's buffer may take it
     */
    private Optional<String> admit(String cluster, long time) {
        ClusterBuffer b = buffer(cluster);
        Optional<String> late = check.checkTime(time, b.watermark);
        if (late.isPresent()) {
            return late;
        }
        long bucket = Math.floorDiv(time, tickMs);
        if (bucket > b.highestBucket && !b.isEmpty()) {
            flush(b);
        }
        b.highestBucket = Math.max(b.highestBucket, bucket);
        b.watermark = Math.max(b.watermark, time);
        b.maxEventTime = Math.max(b.maxEventTime, time);
        return Optional.empty();
    }

    private void reject(Record<byte[], byte[]> record, RecordMetadata meta, String reason) {
        deadLetters.record();
        LOG.warn("dead letter from {}-{}@{}: {}", meta.topic(), meta.partition(), meta.offset(), reason);
        Record<Object, IngestOutput> out = new Record<Object, IngestOutput>(
                record.key(), new Rejected(record.key(), record.value()), record.timestamp(),
                DeadLetter.headers(meta.topic(), meta.partition(), meta.offset(), reason));
        context.forward(out);
    }

    private void flushAll() {
        for (ClusterBuffer b : buffers.values()) {
            if (!b.isEmpty()) {
                flush(b);
            }
        }
    }

    private void flush(ClusterBuffer b) {
        PartialHeat p = b.drain(tickMs);
        context.forward(new Record<Object, IngestOutput>(p.cluster(), p, p.maxEventTime()));
    }

    @Override
    public void close() {
        // Too late to hand anything on: the task has committed already (see IngestDrain). Heat
        // still buffered here is lost to the windows unless a drain emptied the buffers first.
        long held = buffers.values().stream().filter(b -> !b.isEmpty()).count();
        if (held > 0) {
            LOG.warn("closing with undrained heat of {} cluster(s); it will be missing from their windows", held);
        }
        drain.drained(this);
    }

    /** One cluster's buffer: heat per bucket and node / slot, latest capacity per node. */
    private final class ClusterBuffer {
        final String cluster;
        long watermark = Long.MIN_VALUE;
        long highestBucket = Long.MIN_VALUE;
        long maxEventTime = Long.MIN_VALUE;
        final TreeMap<Long, BucketBuffer> buckets = new TreeMap<>();
        final Map<String, NodeCapacity> capacity = new LinkedHashMap<>();
        long lastBucket;
        BucketBuffer lastBucketBuffer;

        ClusterBuffer(String cluster) {
            this.cluster = cluster;
        }

        boolean isEmpty() {
            return buckets.isEmpty() && capacity.isEmpty();
        }

        void addWrite(WriteEvent e) {
            long bucket = Math.floorDiv(e.getEventTime().toEpochMilli(), tickMs);
            BucketBuffer buffer = lastBucketBuffer;
            if (buffer == null || lastBucket != bucket) {
                buffer = buckets.computeIfAbsent(bucket, x -> new BucketBuffer());
                lastBucket = bucket;
                lastBucketBuffer = buffer;
            }
            buffer.add(e.getNode(), e.getSlot(), e.getBytes());
        }

        void addCapacity(CapacityEvent e) {
            long time = e.getEventTime().toEpochMilli();
            NodeCapacity old = capacity.get(e.getNode());
            if (old == null || old.eventTime() <= time) {
                List<ShardUsage> shards = e.getShards();
                int[] slots = new int[shards.size()];
                long[] used = new long[shards.size()];
                for (int i = 0; i < slots.length; i++) {
                    slots[i] = shards.get(i).getSlot();
                    used[i] = shards.get(i).getUsedBytes();
                }
                capacity.put(e.getNode(), new NodeCapacity(e.getNode(), e.getUsedBytes(), e.getTotalBytes(),
                        e.getRack(), slots, used, time));
            }
        }

        PartialHeat drain(long tick) {
            List<BucketHeat> heat = new ArrayList<>(buckets.size());
            buckets.forEach((bucket, buf) -> heat.add(buf.toHeat(bucket)));
            PartialHeat p = new PartialHeat(cluster, maxEventTime, heat, new ArrayList<>(capacity.values()));
            buckets.clear();
            capacity.clear();
            lastBucketBuffer = null;
            maxEventTime = Long.MIN_VALUE;
            return p;
        }
    }

    /** Heat of one bucket: per node (map) and per slot (dense array). */
    private static final class BucketBuffer {
        final HashMap<String, long[]> nodes = new HashMap<>();
        long[] slots = new long[64];
        int highestSlot = -1;

        void add(String node, int slot, long bytes) {
            long[] n = nodes.get(node);
            if (n == null) {
                n = new long[1];
                nodes.put(node, n);
            }
            n[0] += bytes;
            if (slot >= slots.length) {
                slots = Arrays.copyOf(slots, Math.max(slot + 1, slots.length * 2));
            }
            slots[slot] += bytes;
            highestSlot = Math.max(highestSlot, slot);
        }

        BucketHeat toHeat(long bucket) {
            String[] names = new String[nodes.size()];
            long[] nodeBytes = new long[names.length];
            int i = 0;
            for (Map.Entry<String, long[]> e : nodes.entrySet()) {
                names[i] = e.getKey();
                nodeBytes[i++] = e.getValue()[0];
            }
            int used = 0;
            for (int s = 0; s <= highestSlot; s++) {
                if (slots[s] != 0) {
                    used++;
                }
            }
            int[] slotIds = new int[used];
            long[] slotBytes = new long[used];
            for (int s = 0, j = 0; s <= highestSlot; s++) {
                if (slots[s] != 0) {
                    slotIds[j] = s;
                    slotBytes[j++] = slots[s];
                }
            }
            return new BucketHeat(bucket, names, nodeBytes, slotIds, slotBytes);
        }
    }
}
