package io.skewguard.migrator.membership;

import io.skewguard.runtime.control.ControlRecords;
import io.skewguard.runtime.settings.Durations;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.auth.NodeKeys;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.header.internals.RecordHeaders;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.RegistryUnavailableException;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads what the topics say of one cluster: the membership and slot-table topics (compacted) from
 * their beginning, the reports topic backwards from its end until the cluster's latest report. Every
 * read stops at the end offsets taken when it starts (read_committed: the slot table is written in
 * transactions), so it ends however busy the topics are; the whole read must finish within
 * {@code timeout}, or it fails naming the topic and the servers.
 *
 * <p>A record that cannot be decoded is skipped and counted ({@link #skipped()}); an unreachable
 * registry ends the read, since every record would be skipped. One reader serves the
 * {@code node} and {@code ctl} commands; all its reads share the one timeout, counted from its start.
 */
public final class ClusterReader implements AutoCloseable {

    private static final int FIRST_REPORT_WINDOW = 64;


    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, Object> serdeConfig;
    private final String servers;
    private final Duration timeout;
    private final Map<String, Integer> skipped = new LinkedHashMap<>();
    private long deadline;

    public ClusterReader(Properties consumerProperties, Map<String, Object> serdeConfig, Duration timeout) {
        Properties p = new Properties();
        p.putAll(consumerProperties);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "skewguard-node");
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        this.servers = String.valueOf(p.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
        this.consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.serdeConfig = serdeConfig;
        this.timeout = timeout;
        this.deadline = System.nanoTime() + timeout.toNanos();
    }

    /** Undecodable records skipped, by topic. */
    public Map<String, Integer> skipped() {
        return skipped;
    }

    /**
     * @throws IllegalStateException naming the topic and servers, when a topic is missing or Kafka
     *     or the registry does not answer within the timeout
     */
    public KnownCluster read(Topics topics, String cluster) {
        String prefix = cluster + "/";
        TreeMap<String, NodeMembership> entries = new TreeMap<>();
        try (SchemaRegistrySerde<NodeMembership> serde = SchemaRegistrySerde.of(NodeMembership.class, serdeConfig, false)) {
            scan(topics.membership(), beginnings(topics.membership()), serde, (key, value) -> {
                if (key != null && key.startsWith(prefix)) {
                    String node = key.substring(prefix.length());
                    if (value == null) {
                        entries.remove(node);
                    } else if (value.getCluster().equals(cluster) && value.getNode().equals(node)) {
                        entries.put(node, value);
                    }
                }
            });
        }
        TreeMap<Integer, SlotAssignment> rows = new TreeMap<>();
        try (SchemaRegistrySerde<SlotAssignment> serde = SchemaRegistrySerde.of(SlotAssignment.class, serdeConfig, false)) {
            scan(topics.slotTable(), beginnings(topics.slotTable()), serde, (key, value) -> {
                if (key != null && key.startsWith(prefix)) {
                    if (value == null) {
                        try {
                            rows.remove(Integer.parseInt(key.substring(prefix.length())));
                        } catch (NumberFormatException e) {
                            // a tombstone of a key that is no slot: nothing of ours to delete
                        }
                    } else if (value.getCluster().equals(cluster)) {
                        rows.put(value.getSlot(), value);
                    }
                }
            });
        }
        List<SkewReport> latest = latest(topics.reports(), SkewReport.class, cluster, SkewReport::getCluster,
                r -> r.getWindowEnd().toEpochMilli(), 1);
        return new KnownCluster(cluster, entries, latest.isEmpty() ? null : latest.get(0), rows);
    }

    /**
     * The controls of {@code cluster} on the compacted control topic, the latest record of each key,
     * by key; records the apps would refuse as malformed are left out (counted as skipped).
     */
    public Map<String, OperatorControl> controls(Topics topics, String cluster) {
        String topic = topics.control();
        TreeMap<String, OperatorControl> controls = new TreeMap<>();
        try (SchemaRegistrySerde<OperatorControl> serde = SchemaRegistrySerde.of(OperatorControl.class, serdeConfig, false)) {
            scan(topic, beginnings(topic), serde, (key, value) -> {
                if (key == null || !key.startsWith(cluster + "/") || value == null) {
                    return;
                }
                if (ControlRecords.problem(key, value, NodeKeys.none(), new RecordHeaders(), topic, new byte[0], new byte[0]).isPresent()) {
                    skipped.merge(topic, 1, Integer::sum);
                } else {
                    controls.put(key, value);
                }
            });
        }
        return controls;
    }

    /**
     * The {@code count} newest records of {@code cluster} on {@code topic} (by {@code time}, newest
     * first), read backwards in growing windows from each partition's end, so that a long topic is
     * not read whole.
     */
    public <T extends SpecificRecord> List<T> latest(String topic, Class<T> type, String cluster, Function<T, String> clusterOf,
            ToLongFunction<T> time, int count) {
        List<T> all = new ArrayList<>();
        try (SchemaRegistrySerde<T> serde = SchemaRegistrySerde.of(type, serdeConfig, false)) {
            Map<TopicPartition, Long> begin = consumer.beginningOffsets(partitions(topic), remaining(topic));
            Map<TopicPartition, Long> end = consumer.endOffsets(begin.keySet(), remaining(topic));
            for (TopicPartition tp : begin.keySet()) {
                long to = end.get(tp);
                long window = FIRST_REPORT_WINDOW;
                List<T> found = new ArrayList<>();
                while (found.size() < count && to > begin.get(tp)) {
                    long from = Math.max(begin.get(tp), to - window);
                    scan(topic, Map.of(tp, from), Map.of(tp, to), serde, (key, value) -> {
                        if (value != null && cluster.equals(clusterOf.apply(value))) {
                            found.add(value);
                        }
                    });
                    to = from;
                    window *= 4;
                }
                all.addAll(found);
            }
        } catch (TimeoutException e) {
            throw noAnswer(topic);
        }
        all.sort(java.util.Comparator.comparingLong(time).reversed());
        return all.size() > count ? List.copyOf(all.subList(0, count)) : List.copyOf(all);
    }

    private Map<TopicPartition, Long> beginnings(String topic) {
        try {
            return consumer.beginningOffsets(partitions(topic), remaining(topic));
        } catch (TimeoutException e) {
            throw noAnswer(topic);
        }
    }

    private <T extends SpecificRecord> void scan(String topic, Map<TopicPartition, Long> from, SchemaRegistrySerde<T> serde,
            java.util.function.BiConsumer<String, T> sink) {
        Map<TopicPartition, Long> to;
        try {
            to = consumer.endOffsets(from.keySet(), remaining(topic));
        } catch (TimeoutException e) {
            throw noAnswer(topic);
        }
        scan(topic, from, to, serde, sink);
    }

    /** Every record of {@code topic} from {@code from} up to (not including) {@code to}, by partition, in order. */
    private <T extends SpecificRecord> void scan(String topic, Map<TopicPartition, Long> from, Map<TopicPartition, Long> to,
            SchemaRegistrySerde<T> serde, java.util.function.BiConsumer<String, T> sink) {
        List<TopicPartition> open = new ArrayList<>();
        for (TopicPartition tp : from.keySet()) {
            if (from.get(tp) < to.get(tp)) {
                open.add(tp);
            }
        }
        if (open.isEmpty()) {
            return;
        }
        consumer.assign(open);
        open.forEach(tp -> consumer.seek(tp, from.get(tp)));
        Consumer<ConsumerRecord<byte[], byte[]>> decode = r -> {
            String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
            T value;
            try {
                value = serde.deserializer().deserialize(topic, r.headers(), r.value());
            } catch (RegistryUnavailableException e) {
                throw new IllegalStateException("cannot read " + topic + ": schema registry " + e.registry() + " does not answer: "
                        + e.getMessage(), e);
            } catch (SerializationException e) {
                skipped.merge(topic, 1, Integer::sum);
                return;
            }
            sink.accept(key, value);
        };
        try {
            while (!open.isEmpty()) {
                if (System.nanoTime() > deadline) {
                    throw noAnswer(topic);
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    TopicPartition tp = new TopicPartition(r.topic(), r.partition());
                    if (r.offset() < to.get(tp)) {
                        decode.accept(r);
                    }
                }
                // read_committed: the position passes control records and aborted data, so compare it, not the last offset read
                open.removeIf(tp -> consumer.position(tp, remaining(topic)) >= to.get(tp));
                consumer.assign(open);
            }
        } catch (TimeoutException e) {
            throw noAnswer(topic);
        } catch (KafkaException e) {
            if (e instanceof SerializationException) {
                throw e;
            }
            throw new IllegalStateException("cannot read " + topic + " on " + servers + ": " + e.getMessage(), e);
        }
    }

    private List<TopicPartition> partitions(String topic) {
        List<PartitionInfo> infos;
        try {
            infos = consumer.partitionsFor(topic, remaining(topic));
        } catch (TimeoutException e) {
            throw noAnswer(topic);
        }
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " does not exist on " + servers
                    + "; create SkewGuard's topics with ./skewguard topics create (same --bootstrap-servers and --topic-prefix)");
        }
        List<TopicPartition> list = new ArrayList<>();
        infos.forEach(i -> list.add(new TopicPartition(topic, i.partition())));
        return list;
    }

    private Duration remaining(String topic) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw noAnswer(topic);
        }
        return Duration.ofNanos(left);
    }

    private IllegalStateException noAnswer(String topic) {
        return new IllegalStateException("cannot read " + topic + " on " + servers + ": no answer within " + Durations.format(timeout)
                + " (is Kafka reachable at that address? the wait is set by --timeout)");
    }

    @Override
    public void close() {
        consumer.close();
    }
}
