package io.skewguard.detector.ingest;

import io.skewguard.detector.policy.BucketHeat;
import io.skewguard.detector.policy.InputCheck;
import io.skewguard.detector.policy.NodeCapacity;
import io.skewguard.detector.stream.PartialHeat;
import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.serde.RegistryUnavailableException;
import io.skewguard.schemas.serde.SchemaRegistryDeserializer;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.WriteEvent;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.avro.generic.IndexedRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage one's logic, free of any Kafka client: takes the raw records of the node-keyed input
 * topics, decodes each itself (so that an undecodable one reaches the dead-letter topic with its
 * original bytes), validates it ({@link InputCheck}) and adds it to an in-memory per-cluster
 * buffer of per-tick heat and latest capacities.
 *
 * <p>What it hands on goes to its {@link Sink}: a cluster's buffer as one {@link PartialHeat}
 * when a record opens a newer tick bucket of that cluster and on {@link #flushAll()}; a refused
 * record at once as a {@link DeadLetterOut}. The caller decides when to flush and how the output
 * travels: {@link IngestLoop} in the running app (in one Kafka transaction with the input offsets),
 * {@code replay.DetectorHarness} in the replay harness (straight into a TopologyTestDriver of
 * stage two).
 *
 * <p>Per cluster it keeps its stream time (in memory) for the lateness check: the highest event
 * time seen, each taken no later than this process's clock ({@code clock}). An event more than
 * {@code max-future-skew} ahead of the clock is refused as {@code future}; one ahead of it within
 * that bound counts as read at the clock's time (its heat in the clock's tick, its capacity as of
 * the clock), so no single event can move stream time past the clock and make the ordinary events
 * after it late (docs/detector.md, "Event time"). Not thread-safe: one buffer per ingest loop.
 */
public final class IngestBuffer {

    /** Receives what the buffer hands on. */
    public interface Sink {
        void partial(PartialHeat partial);

        void deadLetter(DeadLetterOut letter);
    }

    /** A refused input record: its original key, value and timestamp, and the dead-letter headers. */
    public record DeadLetterOut(byte[] key, byte[] value, long timestamp, Headers headers, String reason) {}

    private static final Logger LOG = LoggerFactory.getLogger(IngestBuffer.class);

    private final String writesTopic;
    private final String capacityTopic;
    private final Deserializer<WriteEvent> writes;
    /** Where {@link #writes} is the wire-format deserializer: its reuse of one record and decoder. */
    private final SchemaRegistryDeserializer.Reading<WriteEvent> writeReading;
    private final Deserializer<CapacityEvent> capacities;
    private final InputCheck check;
    private final long tickMs;
    private final Sink sink;
    private final Clock clock;
    private final StateLimits limits;
    private final Map<String, ClusterBuffer> buffers = new LinkedHashMap<>();
    private ClusterBuffer lastBuffer;
    /** The node {@link #fits} found or added for the record being taken, for {@link ClusterBuffer#addWrite}. */
    private NodeSeen lastNode;
    /** The time the event {@link #admit} took last counts as. */
    private long lastAdmitted;
    /** Records taken one after the other per read of the clock ({@link #now}). */
    static final int CLOCK_EVERY = 16;
    private int clockLeft;
    private long clockNow;

    public IngestBuffer(String writesTopic, String capacityTopic,
            Deserializer<WriteEvent> writes, Deserializer<CapacityEvent> capacities,
            InputCheck check, long tickMs, Sink sink, Clock clock) {
        this(writesTopic, capacityTopic, writes, capacities, check, tickMs, sink, clock, StateLimits.UNBOUNDED);
    }

    /**
     * @param limits most clusters this buffer keeps, most nodes of each (a record that would add one
     *     more is dead-lettered as {@code over-capacity}), and when a silent node stops counting
     */
    public IngestBuffer(String writesTopic, String capacityTopic,
            Deserializer<WriteEvent> writes, Deserializer<CapacityEvent> capacities,
            InputCheck check, long tickMs, Sink sink, Clock clock, StateLimits limits) {
        this.limits = limits;
        this.writesTopic = writesTopic;
        this.capacityTopic = capacityTopic;
        this.writes = writes;
        this.writeReading = writes instanceof SchemaRegistryDeserializer<WriteEvent> wire ? wire.reading() : null;
        this.capacities = capacities;
        this.check = check;
        this.tickMs = tickMs;
        this.sink = sink;
        this.clock = clock;
    }

    /** Takes one input record as it was read from {@code topic}. */
    public void accept(String topic, int partition, long offset, byte[] key, byte[] value, long timestamp, Headers headers) {
        if (value == null) {
            reject(topic, partition, offset, key, value, timestamp, "invalid: empty value");
            return;
        }
        if (topic.equals(writesTopic)) {
            WriteEvent e = decode(writes, writeReading, topic, partition, offset, key, value, timestamp, headers);
            if (e != null) {
                long time = e.getEventTime().toEpochMilli();
                String bad = refusal(check.check(e), e.getCluster(), e.getNode(), time);
                if (bad == null) {
                    buffer(e.getCluster()).addWrite(e, lastAdmitted);
                } else {
                    reject(topic, partition, offset, key, value, timestamp, bad);
                }
            }
        } else if (topic.equals(capacityTopic)) {
            CapacityEvent e = decode(capacities, null, topic, partition, offset, key, value, timestamp, headers);
            if (e != null) {
                long time = e.getEventTime().toEpochMilli();
                String bad = refusal(check.check(e), e.getCluster(), e.getNode(), time);
                if (bad == null) {
                    buffer(e.getCluster()).addCapacity(e, lastAdmitted);
                } else {
                    reject(topic, partition, offset, key, value, timestamp, bad);
                }
            }
        } else {
            reject(topic, partition, offset, key, value, timestamp, "unexpected topic " + topic);
        }
    }

    /**
     * Why a record of {@code node} at event time {@code time} is refused, or null when it is taken: the
     * input check's reason, else the state bound's ({@link #fits}), else the time rule's ({@link #admit}),
     * each asked only when the one before passed (no lambda per record).
     */
    private String refusal(Optional<String> invalid, String cluster, String node, long time) {
        if (invalid.isPresent()) {
            return invalid.get();
        }
        long now = now();
        // a node counts as seen no later than the clock: a far-future time must not keep it alive
        Optional<String> over = fits(cluster, node, Math.min(time, now));
        if (over.isPresent()) {
            return over.get();
        }
        return admit(cluster, time, now).orElse(null);
    }

    /**
     * The clock's time for the record being taken: read for the first record after {@link
     * #readClockAgain} and then once every {@value #CLOCK_EVERY} records (a read of the system clock
     * cost about 30 ns, as much as a sixth of taking a record), so within a run of records taken one
     * after the other it is at most that many records old, microseconds. An older time is only ever
     * earlier: an event ahead of the clock may be refused as future, or count as read at the clock,
     * that much sooner.
     */
    private long now() {
        if (--clockLeft <= 0) {
            clockLeft = CLOCK_EVERY;
            clockNow = clock.millis();
        }
        return clockNow;
    }

    /** The clock may have moved since the last record (a wait, a test clock stepped): the next record reads it again. */
    public void readClockAgain() {
        clockLeft = 0;
    }

    /** Hands on every non-empty cluster buffer. Stream times are kept. */
    public void flushAll() {
        for (ClusterBuffer b : buffers.values()) {
            if (!b.isEmpty()) {
                flush(b);
            }
        }
    }

    /** Number of clusters whose buffer holds heat or capacities not handed on yet. */
    public int clustersHeld() {
        int n = 0;
        for (ClusterBuffer b : buffers.values()) {
            if (!b.isEmpty()) {
                n++;
            }
        }
        return n;
    }

    /** Forgets everything, stream times included: the state of a buffer that has read nothing. */
    public void clear() {
        buffers.clear();
        lastBuffer = null;
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

    /**
     * The decoded value, or null after sending the record to the dead letters. With a {@code reading}
     * ({@code deserializer} is then the wire-format one) the same record object is filled again for
     * every record, and no decoder or time object is allocated: the buffer keeps none of a write
     * event's fields but its id strings, which are shared.
     */
    private <T extends IndexedRecord> T decode(Deserializer<T> deserializer, SchemaRegistryDeserializer.Reading<T> reading, String topic,
            int partition, long offset, byte[] key, byte[] value, long timestamp, Headers headers) {
        try {
            T decoded = reading != null
                    ? ((SchemaRegistryDeserializer<T>) deserializer).deserialize(topic, value, reading)
                    : deserializer.deserialize(topic, headers, value);
            if (decoded == null) {
                reject(topic, partition, offset, key, value, timestamp, "undecodable: no record");
            }
            return decoded;
        } catch (RegistryUnavailableException e) {
            throw e; // not the record's fault: the loop reads it again once the registry answers
        } catch (RuntimeException e) {
            // SerializationException from the serde: bad magic byte, unknown schema id, truncated body
            reject(topic, partition, offset, key, value, timestamp, DeadLetter.undecodable(e));
            return null;
        }
    }

    /**
     * The over-capacity reason when the event's cluster is new and {@code max-clusters} are held, or
     * its node is new and its cluster holds {@code max-nodes-per-cluster} nodes that sent something
     * within {@code node-expiry} of the cluster's stream time (nodes silent longer are forgotten
     * first); else notes the node as seen at {@code time}.
     */
    private Optional<String> fits(String cluster, String node, long time) {
        ClusterBuffer b = lastBuffer != null && lastBuffer.cluster.equals(cluster) ? lastBuffer : buffers.get(cluster);
        if (b == null) {
            Optional<String> over = limits.overClusters(cluster, buffers.size());
            if (over.isPresent()) {
                return over;
            }
            b = buffer(cluster);
        }
        NodeSeen seen = b.nodes.get(node);
        if (seen == null && b.nodes.size() >= limits.maxNodesPerCluster()) {
            long now = b.watermark;
            int before = b.nodes.size();
            b.nodes.values().removeIf(last -> limits.expired(last.time, now));
            if (b.nodes.size() < before) {
                LOG.info("cluster {}: forgot {} node(s) silent for {}", cluster, before - b.nodes.size(), limits.nodeExpiry());
            }
            Optional<String> over = limits.overNodes(cluster, node, b.nodes.size());
            if (over.isPresent()) {
                return over;
            }
        }
        if (seen == null) {
            seen = new NodeSeen(time);
            b.nodes.put(node, seen);
        } else if (seen.time < time) {
            seen.time = time; // a holder, not a put: no boxing and no second look-up per record
        }
        lastNode = seen;
        return Optional.empty();
    }

    /**
     * Checks an event's time against the clock ({@code now}) and its cluster's stream time; when on time, sets
     * {@link #lastAdmitted} to the time it counts as (no later than the clock), advances the stream
     * time to it and, if it opens a newer bucket, flushes the cluster's buffer first.
     *
     * @return the reason to refuse the event, or empty when its cluster's buffer may take it
     */
    private Optional<String> admit(String cluster, long eventTime, long now) {
        ClusterBuffer b = buffer(cluster);
        Optional<String> bad = check.checkTime(eventTime, b.watermark, now);
        if (bad.isPresent()) {
            return bad;
        }
        long time = FutureSkew.bounded(eventTime, now);
        lastAdmitted = time;
        long bucket = Math.floorDiv(time, tickMs);
        if (bucket > b.highestBucket && !b.isEmpty()) {
            flush(b);
        }
        b.highestBucket = Math.max(b.highestBucket, bucket);
        b.watermark = Math.max(b.watermark, time);
        b.maxEventTime = Math.max(b.maxEventTime, time);
        return Optional.empty();
    }

    private void reject(String topic, int partition, long offset, byte[] key, byte[] value, long timestamp, String reason) {
        LOG.warn("dead letter from {}-{}@{}: {}", topic, partition, offset, reason);
        sink.deadLetter(new DeadLetterOut(key, value, timestamp,
                DeadLetter.headers(topic, partition, offset, reason), reason));
    }

    private void flush(ClusterBuffer b) {
        sink.partial(b.drain());
    }

    /** One cluster's buffer: heat per bucket and node / slot, latest capacity per node. */
    private final class ClusterBuffer {
        final String cluster;
        long watermark = Long.MIN_VALUE;
        long highestBucket = Long.MIN_VALUE;
        long maxEventTime = Long.MIN_VALUE;
        final TreeMap<Long, BucketBuffer> buckets = new TreeMap<>();
        final Map<String, NodeCapacity> capacity = new LinkedHashMap<>();
        /** Nodes of the cluster this buffer has accepted records of, with their latest event time. */
        final Map<String, NodeSeen> nodes = new HashMap<>();
        long lastBucket;
        BucketBuffer lastBucketBuffer;

        ClusterBuffer(String cluster) {
            this.cluster = cluster;
        }

        boolean isEmpty() {
            return buckets.isEmpty() && capacity.isEmpty();
        }

        void addWrite(WriteEvent e, long time) {
            long bucket = Math.floorDiv(time, tickMs);
            BucketBuffer buffer = lastBucketBuffer;
            if (buffer == null || lastBucket != bucket) {
                buffer = buckets.computeIfAbsent(bucket, x -> new BucketBuffer());
                lastBucket = bucket;
                lastBucketBuffer = buffer;
            }
            NodeSeen node = lastNode; // fits() found it for this very record
            if (node.bucket != buffer) {
                node.bytes = buffer.node(e.getNode()); // the node's first write in this bucket since it opened
                node.bucket = buffer;
            }
            node.bytes[0] += e.getBytes();
            buffer.addSlot(e.getSlot(), e.getBytes());
        }

        void addCapacity(CapacityEvent e, long time) {
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

        PartialHeat drain() {
            List<BucketHeat> heat = new ArrayList<>(buckets.size());
            buckets.forEach((bucket, buf) -> heat.add(buf.toHeat(bucket)));
            PartialHeat p = new PartialHeat(cluster, maxEventTime, heat, new ArrayList<>(capacity.values()));
            buckets.clear();
            capacity.clear();
            lastBucketBuffer = null;
            for (NodeSeen node : nodes.values()) {
                node.bucket = null; // the drained buckets are not kept alive by the nodes that wrote to them
                node.bytes = null;
            }
            maxEventTime = Long.MIN_VALUE;
            return p;
        }
    }

    /**
     * A node a cluster buffer has accepted records of: its latest event time, and where its bytes of
     * the bucket it last wrote to are summed, so that a record costs one look-up of its node, not two.
     */
    private static final class NodeSeen {
        long time;
        /** The bucket {@link #bytes} belongs to; another bucket (or one drained since: a new one) looks it up again. */
        BucketBuffer bucket;
        long[] bytes;

        NodeSeen(long time) {
            this.time = time;
        }
    }

    /** Heat of one bucket: per node (map) and per slot (dense array). */
    private static final class BucketBuffer {
        final HashMap<String, long[]> nodes = new HashMap<>();
        long[] slots = new long[64];
        int highestSlot = -1;

        /** The node's bytes in this bucket (a holder, added at 0 when new). */
        long[] node(String node) {
            long[] n = nodes.get(node);
            if (n == null) {
                n = new long[1];
                nodes.put(node, n);
            }
            return n;
        }

        void addSlot(int slot, long bytes) {
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
