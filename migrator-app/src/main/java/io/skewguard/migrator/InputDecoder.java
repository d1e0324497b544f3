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
import io.skewguard.runtime.metrics.DeadLetterCounter;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.runtime.settings.Durations;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.runtime.control.ControlRecords;
import io.skewguard.schemas.MembershipState;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.serialization.Deserializer;
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
 * Decodes the raw records of the input topics (alerts, reports, capacity, status, membership, control) and checks
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

    private final MigratorSerdes serdes;
    // the names compared with every record's topic, built once
    private final String controlTopic;
    private final String alertsTopic;
    private final String reportsTopic;
    private final String nodeCapacityTopic;
    private final String migrationStatusTopic;
    private final String membershipTopic;
    private final int maxSlots;
    private final FutureSkew futureSkew;
    private final NodeKeys keys;
    private final NodeKeys operatorKeys;
    private ProcessorContext<String, MigratorInput> context;
    private Sensor deadLetters;
    private Sensor unauthenticated;

    /** {@code source} of membership records an operator writes, and of those the migrator writes. */
    static final String OPERATOR_SOURCE = "operator";
    static final String MIGRATOR_SOURCE = "migrator";

    /** Longest migration id accepted, in UTF-8 bytes (three ids of at most 255 bytes, a batch and a slot). */
    static final int MAX_MIGRATION_ID_BYTES = 1024;

    private final Set<String> clusters;
    private final long maxLatenessMs;
    /** Latest input time read by this task (bounded by the clock), for the {@code late} rule. */
    private long latestTime = Long.MIN_VALUE;

    InputDecoder(Topics topics, MigratorSerdes serdes, int maxSlots, FutureSkew futureSkew) {
        this(topics, serdes, maxSlots, futureSkew, NodeKeys.none());
    }

    InputDecoder(Topics topics, MigratorSerdes serdes, int maxSlots, FutureSkew futureSkew, NodeKeys keys) {
        this(topics, serdes, maxSlots, futureSkew, keys, Set.of(), StateLimits.UNBOUNDED.nodeExpiry());
    }

    /**
     * @param clusters the clusters served; records of others are dead-lettered (empty: every cluster)
     * @param maxLateness how far an input time may lie behind the latest one read ({@code node-expiry})
     */
    InputDecoder(Topics topics, MigratorSerdes serdes, int maxSlots, FutureSkew futureSkew, NodeKeys keys,
            Set<String> clusters, Duration maxLateness) {
        this(topics, serdes, maxSlots, futureSkew, keys, clusters, maxLateness, NodeKeys.none());
    }

    /** @param operatorKeys the operators who may write control records (none: not authenticated) */
    InputDecoder(Topics topics, MigratorSerdes serdes, int maxSlots, FutureSkew futureSkew, NodeKeys keys,
            Set<String> clusters, Duration maxLateness, NodeKeys operatorKeys) {
        this.operatorKeys = operatorKeys;
        this.controlTopic = topics.control();
        this.alertsTopic = topics.alerts();
        this.reportsTopic = topics.reports();
        this.nodeCapacityTopic = topics.nodeCapacity();
        this.migrationStatusTopic = topics.migrationStatus();
        this.membershipTopic = topics.membership();
        this.serdes = serdes;
        this.maxSlots = maxSlots;
        this.futureSkew = futureSkew;
        this.keys = keys;
        this.clusters = Set.copyOf(clusters);
        this.maxLatenessMs = maxLateness.toMillis();
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
            input = topic.equals(controlTopic) ? control(topic, record) : decode(topic, record.value());
        } catch (RegistryUnavailableException e) {
            // not the record's fault: fails the stream thread, which StreamsService replaces after a
            // back-off, so the record is read again from the last commit (docs/design.md §5)
            throw e;
        } catch (Refused e) {
            reject(record, topic, e.getMessage());
            return;
        } catch (RuntimeException e) {
            // a check that threw on a value it did not expect (e.g. a missing field): the record's fault
            reject(record, topic, "invalid: " + DeadLetter.quote(e.getMessage() == null ? e.toString() : e.getMessage()));
            return;
        }
        if (input instanceof MigratorInput.Membership m && MIGRATOR_SOURCE.equals(m.value().getSource())) {
            return; // the migrator's own record, back on its input
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

    /**
     * An operator's control record: decoded, checked as the balancer checks it ({@link ControlRecords#problem}:
     * key, fields, the operator's signature when operator keys are configured), for a cluster served.
     */
    private MigratorInput control(String topic, Record<byte[], byte[]> record) {
        if (record.key() == null || record.value() == null) {
            throw new Refused("invalid: a control record has a key and a value (controls are switched off by records, not tombstones)");
        }
        OperatorControl c = read(serdes.control().deserializer(), topic, record.value());
        String key = new String(record.key(), StandardCharsets.UTF_8);
        ControlRecords.problem(key, c, operatorKeys, record.headers(), topic, record.key(), record.value()).ifPresent(InputDecoder::refuse);
        requireCluster(c.getCluster());
        return new MigratorInput.Control(c);
    }

    private MigratorInput decode(String topic, byte[] bytes) {
        if (bytes == null) {
            throw new Refused("invalid: null value");
        }
        if (topic.equals(alertsTopic)) {
            SkewAlert alert = read(serdes.alert().deserializer(), topic, bytes);
            requireCluster(alert.getCluster());
            if (!(Double.isFinite(alert.getValue()) && alert.getValue() >= 0)) {
                throw invalid("alert value " + alert.getValue() + " is not a finite number >= 0");
            }
            if (!Double.isFinite(alert.getThreshold())) {
                throw invalid("alert threshold " + alert.getThreshold() + " is not finite");
            }
            // since is when the alert's state began: an alert may stay CONFIRMED for longer than
            // node-expiry, so only its eventTime is held to the lateness bound
            futureSkew.check("since", alert.getSince().toEpochMilli(), context.currentSystemTimeMs()).ifPresent(InputDecoder::refuse);
            inTime("eventTime", alert.getEventTime().toEpochMilli());
            return new MigratorInput.Alert(alert);
        } else if (topic.equals(reportsTopic)) {
            SkewReport report = read(serdes.report().deserializer(), topic, bytes);
            requireCluster(report.getCluster());
            if (report.getTotalWriteBytes() < 0) {
                throw invalid("negative totalWriteBytes " + report.getTotalWriteBytes());
            }
            require(report.getWindowEnd().isAfter(report.getWindowStart()), "window ends before it starts");
            if (report.getSlotHeat().size() > maxSlots) {
                throw invalid("slotHeat longer than " + maxSlots + " slots");
            }
            if (!finiteAndNotNegative(report.getHeatGini())) {
                throw invalid("heatGini " + report.getHeatGini() + " is not a finite number >= 0");
            }
            if (!finiteAndNotNegative(report.getCapacityCv())) {
                throw invalid("capacityCv " + report.getCapacityCv() + " is not a finite number >= 0");
            }
            if (!finiteAndNotNegative(report.getShardCapacityCv())) {
                throw invalid("shardCapacityCv " + report.getShardCapacityCv() + " is not a finite number >= 0");
            }
            inTime("windowEnd", report.getWindowEnd().toEpochMilli());
            for (Long heat : report.getSlotHeat()) {
                require(heat != null && heat >= 0, "negative slot heat");
            }
            for (NodeFigures node : report.getNodes()) {
                StateLimits.checkId("node", node.getNode()).ifPresent(InputDecoder::refuse);
                if (node.getHeatBytes() < 0) {
                    throw invalid("node " + node.getNode() + " has negative heatBytes " + node.getHeatBytes());
                }
                if (!(node.getUsedBytes() >= 0 && node.getTotalBytes() >= 0 && node.getUsedBytes() <= node.getTotalBytes())) {
                    throw invalid("node " + node.getNode() + " has usedBytes " + node.getUsedBytes() + " outside [0, totalBytes "
                            + node.getTotalBytes() + "]");
                }
                if (!finiteAndNotNegative(node.getUtilisation())) {
                    throw invalid("node " + node.getNode() + " has utilisation " + node.getUtilisation() + ", not a finite number >= 0");
                }
            }
            return new MigratorInput.Report(report);
        } else if (topic.equals(nodeCapacityTopic)) {
            CapacityEvent event = read(serdes.capacity().deserializer(), topic, bytes);
            requireCluster(event.getCluster());
            if (event.getTotalBytes() <= 0) {
                throw invalid("totalBytes must be > 0, was " + event.getTotalBytes());
            }
            if (!(event.getUsedBytes() >= 0 && event.getUsedBytes() <= event.getTotalBytes())) {
                throw invalid("usedBytes " + event.getUsedBytes() + " outside [0, totalBytes " + event.getTotalBytes() + "]");
            }
            StateLimits.checkId("node", event.getNode()).ifPresent(InputDecoder::refuse);
            inTime("eventTime", event.getEventTime().toEpochMilli());
            for (ShardUsage shard : event.getShards()) {
                if (!(shard.getSlot() >= 0 && shard.getSlot() < maxSlots)) {
                    throw invalid("slot " + shard.getSlot() + " outside [0, " + maxSlots + ")");
                }
                if (shard.getUsedBytes() < 0) {
                    throw invalid("negative shard size on slot " + shard.getSlot());
                }
            }
            return new MigratorInput.Capacity(event);
        } else if (topic.equals(migrationStatusTopic)) {
            MigrationStatus status = read(serdes.status().deserializer(), topic, bytes);
            requireCluster(status.getCluster());
            require(status.getBytesCopied() >= 0, "negative bytesCopied");
            StateLimits.checkId("node", status.getNode()).ifPresent(InputDecoder::refuse);
            migrationIdProblem(status.getMigrationId()).ifPresent(InputDecoder::refuse);
            inTime("eventTime", status.getEventTime().toEpochMilli());
            return new MigratorInput.Status(status);
        } else if (topic.equals(membershipTopic)) {
            NodeMembership m = read(serdes.membership().deserializer(), topic, bytes);
            requireCluster(m.getCluster());
            StateLimits.checkId("node", m.getNode()).ifPresent(InputDecoder::refuse);
            if (!(OPERATOR_SOURCE.equals(m.getSource()) || MIGRATOR_SOURCE.equals(m.getSource()))) {
                throw invalid("source " + DeadLetter.quote(m.getSource()) + " is neither '" + OPERATOR_SOURCE + "' nor '"
                        + MIGRATOR_SOURCE + "'");
            }
            if (OPERATOR_SOURCE.equals(m.getSource())) {
                if (!(m.getState() == MembershipState.ACTIVE || m.getState() == MembershipState.DRAINING
                        || m.getState() == MembershipState.REMOVED)) {
                    throw invalid("an operator may set a node ACTIVE, DRAINING or REMOVED, not " + m.getState() + " (node "
                            + DeadLetter.quote(m.getNode()) + ")");
                }
            }
            if (!(m.getCapacityBytes() == null || m.getCapacityBytes() > 0)) {
                throw invalid("capacityBytes must be > 0, was " + m.getCapacityBytes() + " (node "
                        + DeadLetter.quote(m.getNode()) + ")");
            }
            if (m.getRack() != null) {
                StateLimits.checkId("rack", m.getRack()).ifPresent(InputDecoder::refuse);
            }
            return new MigratorInput.Membership(m);
        }
        throw new Refused("invalid: not an input topic of the migrator: " + DeadLetter.quote(topic));
    }

    /**
     * Why {@code id} cannot name a migration, as a dead-letter reason, or empty: the coordinator's
     * ids are a cluster id, a batch and a slot at a node id, so at most {@value #MAX_MIGRATION_ID_BYTES}
     * UTF-8 bytes.
     */
    static Optional<String> migrationIdProblem(String id) {
        if (id == null || id.isEmpty()) {
            return Optional.of("invalid: empty migration id");
        }
        int bytes = id.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_MIGRATION_ID_BYTES) {
            return Optional.of("invalid: migration id of " + bytes + " bytes, more than " + MAX_MIGRATION_ID_BYTES + ": "
                    + DeadLetter.quote(id));
        }
        return Optional.empty();
    }

    private static boolean finiteAndNotNegative(double d) {
        return Double.isFinite(d) && d >= 0;
    }

    private static <T> T read(Deserializer<T> deserializer, String topic, byte[] bytes) {
        try {
            return deserializer.deserialize(topic, bytes);
        } catch (RegistryUnavailableException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new Refused(DeadLetter.undecodable(e));
        }
    }

    /**
     * {@code time} (a {@code what} of the record) must not lie more than {@code max-future-skew}
     * ahead of this process's clock ({@code future}), nor more than {@code node-expiry} behind the
     * latest time this task has read ({@code late}): by then the coordinator has forgotten the nodes
     * such a record could speak of, and one from years ago tells it nothing. The clock bounds nothing
     * from below: catching up after downtime (or in a simulation running ahead), the times read are
     * as old as the records. The latest time counts at most up to the clock and is kept in memory
     * only: after a restart the first record read sets it again.
     */
    private void inTime(String what, long time) {
        long now = context.currentSystemTimeMs();
        futureSkew.check(what, time, now).ifPresent(InputDecoder::refuse);
        if (latestTime != Long.MIN_VALUE && time < latestTime - maxLatenessMs) {
            refuse("late: " + what + " " + Instant.ofEpochMilli(time) + " is "
                    + Durations.format(Duration.ofMillis(latestTime - time)) + " behind the latest time read "
                    + Instant.ofEpochMilli(latestTime) + " (node-expiry " + Durations.format(Duration.ofMillis(maxLatenessMs)) + ")");
        }
        latestTime = Math.max(latestTime, FutureSkew.bounded(time, now));
    }

    private void requireCluster(String cluster) {
        StateLimits.checkId("cluster", cluster).ifPresent(InputDecoder::refuse);
        if (!clusters.isEmpty() && !clusters.contains(cluster)) {
            refuse("unknown-cluster: cluster " + DeadLetter.quote(cluster) + " is not one of the clusters served " + clusters);
        }
    }

    private static void refuse(String reason) {
        throw new Refused(reason);
    }

    private static void require(boolean ok, String reason) {
        if (!ok) {
            throw invalid(reason);
        }
    }

    /**
     * The refusal of an invalid record. Checks whose reason names the record's figures test first and
     * build the reason only for a refusal: a capacity report's shards and a report's nodes are checked
     * on every record, and building their reasons cost more than the checks.
     */
    private static Refused invalid(String reason) {
        return new Refused("invalid: " + reason);
    }

    /** A record the decoder refuses, with the whole dead-letter reason (code first). */
    private static final class Refused extends RuntimeException {
        Refused(String reason) {
            super(reason, null, false, false);
        }
    }

    private void reject(Record<byte[], byte[]> record, String topic, String reason) {
        Optional<RecordMetadata> meta = context.recordMetadata();
        int partition = meta.map(RecordMetadata::partition).orElse(-1);
        long offset = meta.map(RecordMetadata::offset).orElse(-1L);
        LOG.warn("dead-lettering {}-{}@{}: {}", topic, partition, offset, reason);
        deadLetters.record();
        DeadLetterCounter.count(reason);
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
