package io.skewguard.trials;

import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Follows one topic from its beginning while a trial runs (all partitions assigned, no group,
 * {@code read_committed}: what the apps' consumers see), decoding every record, so that a trial can
 * wait for a moment in the loop (a COPY under way, both PREPAREs answered) and read the whole topic
 * afterwards. Survives a broker restart (the consumer reconnects by itself).
 */
final class Follower<V extends SpecificRecord> implements AutoCloseable {

    /** One record as read: where it was and what it said (value null for a tombstone). */
    record Rec<V>(int partition, long offset, String key, V value, long timestamp) {}

    private final String topic;
    private final KafkaConsumer<String, byte[]> consumer;
    private final SchemaRegistrySerde<V> serde;
    private final List<Rec<V>> records = new CopyOnWriteArrayList<>();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile RuntimeException failure;
    private volatile boolean caughtUp;
    private volatile long caughtUpAt;

    Follower(EmbeddedKafka broker, String topic, Class<V> type, Map<String, Object> serdeConfig) {
        this.topic = topic;
        this.serde = SchemaRegistrySerde.of(type, serdeConfig, false);
        Map<String, Object> config = new HashMap<>(broker.clientProperties());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "trial-follower-" + topic);
        this.consumer = new KafkaConsumer<>(config, new StringDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo p : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
            partitions.add(new TopicPartition(topic, p.partition()));
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        this.thread = new Thread(this::run, "follower-" + topic);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    private void run() {
        try {
            while (running) {
                try {
                    pollOnce();
                } catch (org.apache.kafka.common.errors.TimeoutException brokerDown) {
                    caughtUp = false; // the broker is away: ask again
                }
            }
        } catch (WakeupException e) {
            // close()
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void pollOnce() {
        long polledAt = System.nanoTime();
        Map<TopicPartition, Long> end = consumer.endOffsets(consumer.assignment(), Duration.ofSeconds(5));
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
            V value = r.value() == null ? null : serde.deserializer().deserialize(r.topic(), r.headers(), r.value());
            records.add(new Rec<>(r.partition(), r.offset(), r.key(), value, r.timestamp()));
        }
        boolean all = true;
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            all &= consumer.position(e.getKey(), Duration.ofSeconds(5)) >= e.getValue();
        }
        caughtUp = all;
        if (all) {
            caughtUpAt = polledAt;
        }
    }

    /** Every record read so far, in the order read (per partition: offset order). */
    List<Rec<V>> records() {
        if (failure != null) {
            throw new IllegalStateException("following " + topic + " failed", failure);
        }
        return List.copyOf(records);
    }

    /** The values read so far (tombstones left out). */
    List<V> values() {
        return records().stream().map(Rec::value).filter(v -> v != null).toList();
    }

    /**
     * Waits until {@code done} holds for the values read so far, testing every 20 ms.
     *
     * @throws IllegalStateException naming {@code what} if it does not within {@code timeout}
     */
    List<V> await(String what, Predicate<List<V>> done, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<V> now = values();
            if (done.test(now)) {
                return now;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + timeout + " on " + topic + " waiting until " + what
                        + " (" + now.size() + " records read)");
            }
            Thread.sleep(20);
        }
    }

    /**
     * Whether everything up to the topic's end (its last stable offset) had been read at the last
     * poll, transaction markers included: the caller's view of the topic is then complete up to the
     * moment of that poll.
     */
    boolean caughtUp() {
        return caughtUp;
    }

    /** Waits until the follower has read up to the end of the topic as it is now. */
    void awaitCaughtUp(Duration timeout) throws InterruptedException {
        long asked = System.nanoTime();
        long deadline = asked + timeout.toNanos();
        while (!(caughtUp && caughtUpAt > asked)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("following " + topic + ": not caught up within " + timeout);
            }
            Thread.sleep(20);
        }
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        serde.close();
    }
}
