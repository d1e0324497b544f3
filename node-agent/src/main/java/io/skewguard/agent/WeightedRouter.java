package io.skewguard.agent;

import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.RegistryUnavailableException;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage system's write-path client for one cluster: follows the compacted {@code
 * skew.node-weights} and {@code skew.slot-table} topics into a {@link RoutingView} and answers
 * {@link #pick(CharSequence)} with the node a write goes to.
 *
 * <p>One background thread runs a plain consumer: no group, every partition of both topics assigned
 * and read from the beginning (the compacted topics are the tables), {@code read_committed} because
 * the balancer writes its table transactionally. Rows of other clusters are skipped; a row that cannot
 * be decoded or applied is logged and skipped, and the router keeps following. Free ratios come from
 * the caller ({@link #setFreeRatio}), who knows its nodes' capacity.
 *
 * <p>{@link #pick} reads the view's current snapshot and does not wait for the consumer: after start,
 * call {@link #awaitCaughtUp} to wait until the tables as they stood at start are loaded.
 */
public final class WeightedRouter implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WeightedRouter.class);
    /** How long to wait before reading a row again whose schema the registry could not give. */
    private static final Duration REGISTRY_WAIT = Duration.ofSeconds(1);
    private static final Duration POLL = Duration.ofMillis(200);

    private final RoutingView view;
    private final Topics topics;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final SchemaRegistrySerde<NodeWeight> weights;
    private final SchemaRegistrySerde<SlotAssignment> slots;
    private final CountDownLatch caughtUp = new CountDownLatch(1);
    private final Thread thread;
    private volatile boolean running = true;

    private WeightedRouter(RoutingView view, Topics topics, Map<String, Object> consumerConfig,
                           Map<String, Object> serdeConfig) {
        this.view = view;
        this.topics = topics;
        Map<String, Object> config = new HashMap<>(consumerConfig);
        config.remove(ConsumerConfig.GROUP_ID_CONFIG);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        this.consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.weights = SchemaRegistrySerde.of(NodeWeight.class, serdeConfig, false);
        this.slots = SchemaRegistrySerde.of(SlotAssignment.class, serdeConfig, false);
        this.thread = new Thread(this::follow, "weighted-router-" + view.cluster());
        this.thread.setDaemon(true);
    }

    /**
     * Starts following the tables into {@code view}.
     *
     * @param view the routing view to keep up to date (empty, or built from the ring)
     * @param topics topic names
     * @param consumerConfig consumer settings, at least {@code bootstrap.servers}; a group id is removed
     * @param serdeConfig serde settings, at least {@code schema.registry.url}
     */
    public static WeightedRouter start(RoutingView view, Topics topics, Map<String, Object> consumerConfig,
                                       Map<String, Object> serdeConfig) {
        WeightedRouter router = new WeightedRouter(Objects.requireNonNull(view, "view"), topics, consumerConfig,
                serdeConfig);
        router.thread.start();
        return router;
    }

    /** The node a write of {@code key} goes to. Allocation-free; see {@link RoutingView#pick}. */
    public String pick(CharSequence key) {
        return view.pick(key);
    }

    /** Sets a node's free ratio (1 − used/total). */
    public void setFreeRatio(String node, double freeRatio) {
        view.setFreeRatio(node, freeRatio);
    }

    /** The routing view this router keeps up to date. */
    public RoutingView view() {
        return view;
    }

    /** Waits until every row that was in the tables at start has been applied. */
    public boolean awaitCaughtUp(Duration timeout) throws InterruptedException {
        return caughtUp.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void follow() {
        try {
            List<TopicPartition> partitions = new ArrayList<>();
            for (String topic : List.of(topics.nodeWeights(), topics.slotTable())) {
                for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                    partitions.add(new TopicPartition(topic, info.partition()));
                }
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            LOG.info("router of cluster {} follows {} partitions", view.cluster(), partitions.size());
            while (running) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(POLL);
                Map<TopicPartition, Long> applied = new HashMap<>();
                for (ConsumerRecord<byte[], byte[]> record : records) {
                    try {
                        apply(record);
                    } catch (RegistryUnavailableException e) {
                        // not the row's fault: read it (and what follows) again once the registry answers
                        for (TopicPartition tp : records.partitions()) {
                            consumer.seek(tp, applied.getOrDefault(tp, records.records(tp).get(0).offset()));
                        }
                        Thread.sleep(REGISTRY_WAIT.toMillis()); // close() interrupts nothing: at most this late
                        break;
                    }
                    applied.put(new TopicPartition(record.topic(), record.partition()), record.offset() + 1);
                }
                if (caughtUp.getCount() > 0 && reached(end)) {
                    LOG.info("router of cluster {} caught up with the weight and slot tables", view.cluster());
                    caughtUp.countDown();
                }
            }
        } catch (WakeupException e) {
            if (running) {
                LOG.error("router of cluster {} woken up unexpectedly", view.cluster(), e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("router of cluster {} stopped following the tables", view.cluster(), e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private boolean reached(Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    private void apply(ConsumerRecord<byte[], byte[]> record) {
        if (record.value() == null) {
            return; // tombstone: the row's key left the table; routing keeps its last state
        }
        try {
            if (record.topic().equals(topics.nodeWeights())) {
                view.apply(weights.deserializer().deserialize(record.topic(), record.headers(), record.value()));
            } else {
                view.apply(slots.deserializer().deserialize(record.topic(), record.headers(), record.value()));
            }
        } catch (SerializationException | IllegalArgumentException e) {
            LOG.warn("router of cluster {} skips {}-{}@{}: {}", view.cluster(), record.topic(), record.partition(),
                    record.offset(), e.getMessage());
        }
    }

    /** Stops following and closes the consumer; the view keeps its last state. */
    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        weights.close();
        slots.close();
    }
}
