package io.skewguard.migrator;

import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.RegistryUnavailableException;
import io.skewguard.schemas.auth.NodeKeys;
import io.skewguard.runtime.state.StateLimits;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decodes the raw records of the four input topics (alerts, reports, capacity, status) and checks
 * them; forwards each good record keyed by its cluster, and each bad one as a
 * {@link MigratorInput.Rejected} carrying the dead-letter headers (source topic, partition, offset,
 * reason). Bad input never stops the app.
 *
 * <p>A capacity report's {@code eventTime} and a report's {@code windowEnd} may lie at most
 * {@code max-future-skew} ahead of this process's clock; further ahead they are refused as
 * {@code future}: the latest capacity of a node is the one with the highest event time, so one far
 * ahead would hide every later ordinary report of that node (docs/migrator.md, "Bad input").
 *
 * <p>With node keys ({@code node-keys-file}, docs/security.md), a status or capacity event counts
 * only if it carries the signature of the node it names; otherwise it is dead-lettered with reason
 * {@code unauthenticated: ...} and counted. The migrator's own repair statuses (node
 * {@value CoordinatorProcessor#MIGRATOR_NODE}, which the coordinator ignores) are not checked.
 */
final class InputDecoder implements Processor<byte[], byte[], String, MigratorInput> {

    private static final Logger LOG = LoggerFactory.getLogger(InputDecoder.class);

    private final Topics topics;
    private final MigratorSerdes serdes;
    private final int maxSlots;
    private final FutureSkew futureSkew;
    private final NodeKeys keys;
    private ProcessorContext<String, MigratorInput> context;
    private Sensor deadLetters;
    private Sensor unauthenticated;

    InputDecoder(Topics topics, MigratorSerdes serdes, int maxSlots, FutureSkew futureSkew) {
        this(topics, serdes, maxSlots, futureSkew, NodeKeys.none());
    }

    InputDecoder(Topics topics, MigratorSerdes serdes, int maxSlots, FutureSkew futureSkew, NodeKeys keys) {
        this.topics = topics;
        this.serdes = serdes;
        this.maxSlots = maxSlots;
        this.futureSkew = futureSkew;
        this.keys = keys;
    }

    @Override
    public void init(ProcessorContext<String, MigratorInput> context) {
        this.context = context;
        this.deadLetters = MigratorMetrics.deadLetters(context);
        this.unauthenticated = MigratorMetrics.unauthenticated(context);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        String topic = context.recordMetadata().map(RecordMetadata::topic).orElse("?");
        MigratorInput input;
        try {
            input = decode(topic, record.value());
        } catch (RegistryUnavailableException e) {
            // not the record's fault: fails the stream thread, which StreamsService replaces after a
            // back-off, so the record is read again from the last commit (docs/design.md §5)
            throw e;
        } catch (RuntimeException e) {
            reject(record, topic, e.getMessage() == null ? e.toString() : e.getMessage());
            return;
        }
        Optional<String> forged = unauthenticated(input, topic, record);
        if (forged.isPresent()) {
            unauthenticated.record();
            reject(record, topic, forged.get());
            return;
        }
        // where the record came from, for a dead letter the coordinator may still write (over-capacity)
        Optional<RecordMetadata> meta = context.recordMetadata();
        Headers headers = record.headers();
        headers.remove(DeadLetter.SOURCE_TOPIC).add(DeadLetter.SOURCE_TOPIC, topic.getBytes(StandardCharsets.UTF_8));
        headers.remove(DeadLetter.SOURCE_PARTITION).add(DeadLetter.SOURCE_PARTITION,
                Integer.toString(meta.map(RecordMetadata::partition).orElse(-1)).getBytes(StandardCharsets.UTF_8));
        headers.remove(DeadLetter.SOURCE_OFFSET).add(DeadLetter.SOURCE_OFFSET,
                Long.toString(meta.map(RecordMetadata::offset).orElse(-1L)).getBytes(StandardCharsets.UTF_8));
        context.forward(record.withKey(input.cluster()).withValue(input));
    }

    /** With node keys: why a status or capacity event does not speak for the node it names, if it does not. */
    private Optional<String> unauthenticated(MigratorInput input, String topic, Record<byte[], byte[]> record) {
        if (!keys.configured()) {
            return Optional.empty();
        }
        String node;
        if (input instanceof MigratorInput.Status s) {
            if (s.value().getNode().equals(CoordinatorProcessor.MIGRATOR_NODE)
                    && s.value().getMigrationId().equals(CoordinatorProcessor.repairId(s.value().getCluster()))) {
                return Optional.empty(); // our own repair status: the coordinator ignores it
            }
            node = s.value().getNode();
        } else if (input instanceof MigratorInput.Capacity c) {
            node = c.value().getNode();
        } else {
            return Optional.empty();
        }
        return keys.problem(node, record.headers(), topic, record.key(), record.value());
    }

    private MigratorInput decode(String topic, byte[] bytes) {
        if (bytes == null) {
            throw new IllegalArgumentException(topic + ": null value");
        }
        if (topic.equals(topics.alerts())) {
            SkewAlert alert = serdes.alert().deserializer().deserialize(topic, bytes);
            require(Double.isFinite(alert.getValue()), "alert value is not finite");
            return new MigratorInput.Alert(requireCluster(alert.getCluster(), alert));
        } else if (topic.equals(topics.reports())) {
            SkewReport report = serdes.report().deserializer().deserialize(topic, bytes);
            require(report.getTotalWriteBytes() >= 0, "negative totalWriteBytes " + report.getTotalWriteBytes());
            require(report.getWindowEnd().isAfter(report.getWindowStart()), "window ends before it starts");
            require(report.getSlotHeat().size() <= maxSlots, "slotHeat longer than " + maxSlots + " slots");
            notAhead("windowEnd", report.getWindowEnd().toEpochMilli());
            for (Long heat : report.getSlotHeat()) {
                require(heat != null && heat >= 0, "negative slot heat");
            }
            return new MigratorInput.Report(requireCluster(report.getCluster(), report));
        } else if (topic.equals(topics.nodeCapacity())) {
            CapacityEvent event = serdes.capacity().deserializer().deserialize(topic, bytes);
            require(event.getTotalBytes() > 0, "totalBytes must be > 0, was " + event.getTotalBytes());
            require(event.getUsedBytes() >= 0 && event.getUsedBytes() <= event.getTotalBytes(),
                    "usedBytes " + event.getUsedBytes() + " outside [0, totalBytes " + event.getTotalBytes() + "]");
            require(!event.getNode().isBlank(), "blank node id");
            notAhead("eventTime", event.getEventTime().toEpochMilli());
            StateLimits.checkId("node", event.getNode()).ifPresent(InputDecoder::refuse);
            for (ShardUsage shard : event.getShards()) {
                require(shard.getSlot() >= 0 && shard.getSlot() < maxSlots, "slot " + shard.getSlot() + " outside [0, " + maxSlots + ")");
                require(shard.getUsedBytes() >= 0, "negative shard size on slot " + shard.getSlot());
            }
            return new MigratorInput.Capacity(requireCluster(event.getCluster(), event));
        } else if (topic.equals(topics.migrationStatus())) {
            MigrationStatus status = serdes.status().deserializer().deserialize(topic, bytes);
            require(status.getBytesCopied() >= 0, "negative bytesCopied");
            return new MigratorInput.Status(requireCluster(status.getCluster(), status));
        }
        throw new IllegalArgumentException("not an input topic of the migrator: " + topic);
    }

    private void notAhead(String what, long time) {
        futureSkew.check(what, time, context.currentSystemTimeMs()).ifPresent(reason -> {
            throw new IllegalArgumentException(reason);
        });
    }

    private static <T> T requireCluster(String cluster, T value) {
        require(cluster != null && !cluster.isBlank(), "blank cluster id");
        StateLimits.checkId("cluster", cluster).ifPresent(InputDecoder::refuse);
        return value;
    }

    private static void refuse(String reason) {
        throw new IllegalArgumentException(reason);
    }

    private static void require(boolean ok, String reason) {
        if (!ok) {
            throw new IllegalArgumentException(reason);
        }
    }

    private void reject(Record<byte[], byte[]> record, String topic, String reason) {
        Optional<RecordMetadata> meta = context.recordMetadata();
        int partition = meta.map(RecordMetadata::partition).orElse(-1);
        long offset = meta.map(RecordMetadata::offset).orElse(-1L);
        LOG.warn("dead-lettering {}-{}@{}: {}", topic, partition, offset, reason);
        deadLetters.record();
        RecordHeaders headers = new RecordHeaders();
        for (Header h : record.headers()) {
            headers.add(h);
        }
        for (Header h : DeadLetter.headers(topic, partition, offset, reason)) {
            headers.add(h);
        }
        context.forward(new Record<String, MigratorInput>(null, new MigratorInput.Rejected(record.key(), record.value(), reason),
                record.timestamp(), headers));
    }
}
