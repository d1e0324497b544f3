package io.skewguard.dashboard;

import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the loop's topics for the dashboard: a plain consumer without a group (every partition
 * assigned, read from the beginning, {@code read_committed}, nothing committed), decoding each record
 * with the project's serde and handing it to its cluster's {@link ClusterView}. A record that cannot
 * be decoded is counted and skipped: the dashboard only watches, and one bad record must not blind it.
 */
final class TopicFeed implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TopicFeed.class);
    private static final Duration METADATA = Duration.ofSeconds(30);

    /** How one topic's records are decoded and applied. */
    private record Follow<T extends SpecificRecord>(SchemaRegistrySerde<T> serde, Function<T, String> cluster,
                                                     BiConsumer<ClusterView, T> apply) {
        void accept(ClusterViews views, ConsumerRecord<byte[], byte[]> r) {
            T value = serde.deserializer().deserialize(r.topic(), r.headers(), r.value());
            views.of(cluster.apply(value)).ifPresent(v -> apply.accept(v, value));
        }
    }

    private final ClusterViews views;
    private final String bootstrapServers;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, Follow<?>> follows = new HashMap<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile boolean caughtUpOnce;
    private volatile boolean started;
    private volatile Throwable failure;

    TopicFeed(Properties consumerProperties, Map<String, Object> serdeConfig, Topics topics, ClusterViews views) {
        this.views = views;
        this.bootstrapServers = String.valueOf(consumerProperties.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
        Properties config = new Properties();
        config.putAll(consumerProperties);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.remove(ConsumerConfig.GROUP_ID_CONFIG);
        this.consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        follows.put(topics.reports(), new Follow<>(SchemaRegistrySerde.of(SkewReport.class, serdeConfig, false),
                SkewReport::getCluster, ClusterView::onReport));
        follows.put(topics.alerts(), new Follow<>(SchemaRegistrySerde.of(SkewAlert.class, serdeConfig, false),
                SkewAlert::getCluster, ClusterView::onAlert));
        follows.put(topics.weightCommands(), new Follow<>(SchemaRegistrySerde.of(WeightCommand.class, serdeConfig, false),
                WeightCommand::getCluster, ClusterView::onWeightCommand));
        follows.put(topics.nodeWeights(), new Follow<>(SchemaRegistrySerde.of(NodeWeight.class, serdeConfig, false),
                NodeWeight::getCluster, ClusterView::onNodeWeight));
        follows.put(topics.migrationCommands(), new Follow<>(SchemaRegistrySerde.of(MigrationCommand.class, serdeConfig, false),
                MigrationCommand::getCluster, ClusterView::onMigrationCommand));
        follows.put(topics.migrationStatus(), new Follow<>(SchemaRegistrySerde.of(MigrationStatus.class, serdeConfig, false),
                MigrationStatus::getCluster, ClusterView::onMigrationStatus));
        follows.put(topics.slotTable(), new Follow<>(SchemaRegistrySerde.of(SlotAssignment.class, serdeConfig, false),
                SlotAssignment::getCluster, ClusterView::onSlot));
        follows.put(topics.membership(), new Follow<>(SchemaRegistrySerde.of(NodeMembership.class, serdeConfig, false),
                NodeMembership::getCluster, ClusterView::onMembership));
        follows.put(topics.control(), new Follow<>(SchemaRegistrySerde.of(OperatorControl.class, serdeConfig, false),
                OperatorControl::getCluster, ClusterView::onControl));
        follows.put(topics.proposals(), new Follow<>(SchemaRegistrySerde.of(Proposal.class, serdeConfig, false),
                Proposal::getCluster, ClusterView::onProposal));
        follows.put(topics.decisions(), new Follow<>(SchemaRegistrySerde.of(Decision.class, serdeConfig, false),
                Decision::getCluster, ClusterView::onDecision));
        this.thread = new Thread(this::follow, "skewguard-dashboard-feed");
        this.thread.setDaemon(true);
    }

    /**
     * Assigns every partition of the followed topics (in the caller's thread, so that a missing
     * topic or an unreachable broker is refused at start) and starts reading.
     *
     * @throws IllegalStateException naming the missing topics
     */
    TopicFeed start() {
        List<TopicPartition> partitions = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String topic : follows.keySet().stream().sorted().toList()) {
            List<PartitionInfo> infos;
            try {
                infos = consumer.partitionsFor(topic, METADATA);
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                consumer.close(Duration.ofSeconds(5));
                throw new IllegalStateException("no answer from Kafka at " + bootstrapServers + " within " + METADATA.toSeconds()
                        + " s (reading the partitions of " + topic + ")", e);
            }
            if (infos == null || infos.isEmpty()) {
                missing.add(topic);
            } else {
                infos.forEach(i -> partitions.add(new TopicPartition(topic, i.partition())));
            }
        }
        if (!missing.isEmpty()) {
            consumer.close(Duration.ofSeconds(5));
            throw new IllegalStateException("missing topic" + (missing.size() == 1 ? " " : "s ") + String.join(", ", missing)
                    + " (check --topic-prefix, or create them with 'skewguard topics create')");
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        started = true;
        thread.start();
        return this;
    }

    private void follow() {
        try {
            while (running) {
                var records = consumer.poll(Duration.ofMillis(200));
                for (ConsumerRecord<byte[], byte[]> r : records) {
                    if (r.value() == null) {
                        continue; // a tombstone of a compacted topic: nothing to show
                    }
                    try {
                        follows.get(r.topic()).accept(views, r);
                    } catch (RuntimeException e) {
                        views.skipped();
                        LOG.warn("skipped an undecodable record at {}-{}@{}: {}", r.topic(), r.partition(), r.offset(), e.toString());
                    }
                }
                if (records.isEmpty()) {
                    caughtUpOnce = true;
                }
            }
        } catch (WakeupException e) {
            if (running) {
                failure = e;
            }
        } catch (RuntimeException e) {
            failure = e;
            LOG.error("the dashboard stopped following the topics", e);
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    /** Why the feed stopped on its own, or null. */
    Throwable failure() {
        return failure;
    }

    /** Whether a poll has come back empty at least once (the history is read). */
    boolean caughtUpOnce() {
        return caughtUpOnce;
    }

    @Override
    public void close() {
        running = false;
        if (!started) {
            consumer.close(Duration.ofSeconds(5));
            follows.values().forEach(f -> f.serde().close());
            return;
        }
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        follows.values().forEach(f -> f.serde().close());
    }
}
