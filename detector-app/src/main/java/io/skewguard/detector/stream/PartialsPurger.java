package io.skewguard.detector.stream;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DeletedRecords;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the records of {@code <application-id>-partials} that stage two has consumed, as Kafka
 * Streams does for its own repartition topics: the topic has infinite retention
 * ({@code retention.ms=-1}), and every {@code purge-interval} this purger reads stage two's
 * committed offsets (consumer group = application id) and calls {@link Admin#deleteRecords} up to
 * them for every partition whose committed offset advanced since the last successful purge. It
 * never deletes at or beyond a committed offset, so nothing stage two has yet to read is lost.
 *
 * <p>Errors are logged and the purge is retried at the next interval; they never stop the app.
 * Every instance of the app runs one; the deletions are idempotent. Runs on its own daemon thread
 * until {@link #close()}.
 */
public final class PartialsPurger implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PartialsPurger.class);
    private static final long TIMEOUT_SECONDS = 30;

    private final Admin admin;
    private final String groupId;
    private final String topic;
    private final ScheduledExecutorService executor;
    /** Per partition, the offset records were last deleted before (only touched by the purge thread). */
    private final Map<TopicPartition, Long> purged = new HashMap<>();

    private PartialsPurger(Admin admin, String groupId, String topic) {
        this.admin = admin;
        this.groupId = groupId;
        this.topic = topic;
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "detector-partials-purger");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Starts purging {@code topic} up to the offsets group {@code groupId} committed, every
     * {@code interval} (first after one interval). The purger owns {@code admin} and closes it.
     */
    public static PartialsPurger start(Admin admin, String groupId, String topic, Duration interval) {
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("purge interval must be > 0");
        }
        PartialsPurger purger = new PartialsPurger(admin, groupId, topic);
        long ms = interval.toMillis();
        purger.executor.scheduleWithFixedDelay(purger::purgeLogged, ms, ms, TimeUnit.MILLISECONDS);
        LOG.info("purging {} up to the offsets committed by group {} every {} ms", topic, groupId, ms);
        return purger;
    }

    /**
     * The deletions to make: for each partition of {@code topic} with a committed offset greater
     * than the offset it was last purged to (0 if never), delete before that committed offset.
     * Other topics, partitions without a committed offset and offsets that did not advance are
     * left out. Pure.
     */
    public static Map<TopicPartition, Long> plan(String topic, Map<TopicPartition, OffsetAndMetadata> committed,
            Map<TopicPartition, Long> purgedTo) {
        Map<TopicPartition, Long> plan = new TreeMap<>(
                (a, b) -> a.topic().equals(b.topic()) ? Integer.compare(a.partition(), b.partition()) : a.topic().compareTo(b.topic()));
        committed.forEach((tp, offset) -> {
            if (tp.topic().equals(topic) && offset != null && offset.offset() > purgedTo.getOrDefault(tp, 0L)) {
                plan.put(tp, offset.offset());
            }
        });
        return plan;
    }

    private void purgeLogged() {
        try {
            purgeOnce();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // never fatal, and never let it escape: a scheduled task that throws is not run again
            LOG.warn("purging {} failed, retrying in the next interval: {}", topic, e.toString());
        }
    }

    /** One purge: reads the committed offsets and deletes the records before them where they advanced. */
    void purgeOnce() throws InterruptedException, ExecutionException, TimeoutException {
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(groupId)
                .partitionsToOffsetAndMetadata().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        Map<TopicPartition, Long> plan = plan(topic, committed, purged);
        if (plan.isEmpty()) {
            return;
        }
        Map<TopicPartition, RecordsToDelete> request = new HashMap<>();
        plan.forEach((tp, offset) -> request.put(tp, RecordsToDelete.beforeOffset(offset)));
        Map<TopicPartition, KafkaFuture<DeletedRecords>> results = admin.deleteRecords(request).lowWatermarks();
        for (Map.Entry<TopicPartition, Long> e : plan.entrySet()) {
            try {
                long low = results.get(e.getKey()).get(TIMEOUT_SECONDS, TimeUnit.SECONDS).lowWatermark();
                purged.put(e.getKey(), e.getValue());
                LOG.debug("purged {} before offset {} (log start now {})", e.getKey(), e.getValue(), low);
            } catch (ExecutionException | TimeoutException ex) {
                LOG.warn("purging {} before offset {} failed, retrying in the next interval: {}",
                        e.getKey(), e.getValue(), ex.getCause() == null ? ex.toString() : ex.getCause().toString());
            }
        }
    }

    /** Stops the purge thread (interrupting a purge under way) and closes the admin client. Idempotent. */
    @Override
    public void close() {
        executor.shutdownNow();
        try {
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("the partials purger did not stop within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        admin.close(Duration.ofSeconds(5));
    }
}
