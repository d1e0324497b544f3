package io.skewguard.balancer;

import io.skewguard.balancer.policy.ControllerSettings;
import io.skewguard.balancer.policy.ControllerState;
import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.Round;
import io.skewguard.balancer.policy.RoundOutcome;
import io.skewguard.balancer.policy.WeightChange;
import io.skewguard.balancer.policy.WeightPolicy;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.ProposedWeight;
import io.skewguard.runtime.control.ClusterControls;
import io.skewguard.runtime.control.DecisionLog;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.charset.StandardCharsets;
import io.skewguard.runtime.metrics.DeadLetterCounter;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.balancer.policy.NodeLoad;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.state.KeyValueIterator;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the weight rounds: reads reports and alerts of a cluster (both keyed by cluster, so one task
 * sees all of a cluster's records), keeps the cluster's {@link ControllerState} in a state store,
 * and on every round that opens an epoch writes one {@code WeightCommand} per changed node and the
 * whole weight table.
 *
 * <p>Under exactly_once_v2 the state update and the outputs of one input record commit in the same
 * transaction; and the round is a pure function of (stored state, report), so a report replayed
 * after a crash before the commit produces the very same epoch, command ids and weights, and a
 * report replayed after the commit finds the round already done (less than the round interval ago).
 *
 * <p>Input that cannot be decoded or fails validation goes to the dead-letter topic with the
 * {@link DeadLetter} headers, is counted in the {@code dead-letter} sensor, and processing goes on.
 */
final class WeightRoundProcessor implements Processor<byte[], byte[], byte[], byte[]> {

    private static final Logger LOG = LoggerFactory.getLogger(WeightRoundProcessor.class);
    /** Joins cluster and node in the seen store's keys; {@link StateLimits#checkId} refuses ids holding it. */
    private static final char SEP = '\u0000';

    static final String COMMANDS_SINK = "weight-commands-sink";
    static final String WEIGHTS_SINK = "node-weights-sink";
    static final String DLQ_SINK = "dlq-sink";
    static final String PROPOSALS_SINK = "proposals-sink";
    static final String DECISIONS_SINK = "decisions-sink";
    static final String APP = "balancer";

    private final Topics topics;
    private final Map<String, Object> serdeConfig;
    private final WeightPolicy policy;
    private final ReportReader reader;
    private final StateLimits limits;
    private KeyValueStore<String, Long> seen;
    private long clusterCount = -1; // clusters in the seen store; counted on first need

    private ProcessorContext<byte[], byte[]> context;
    private KeyValueStore<String, ControllerState> store;
    private SchemaRegistrySerde<SkewReport> reports;
    private SchemaRegistrySerde<SkewAlert> alerts;
    private SchemaRegistrySerde<WeightCommand> commands;
    private SchemaRegistrySerde<NodeWeight> weights;
    private SchemaRegistrySerde<OperatorControl> controlSerde;
    private SchemaRegistrySerde<Proposal> proposals;
    private SchemaRegistrySerde<Decision> decisions;
    private KeyValueStore<String, byte[]> controls;
    private DecisionLog decisionLog;
    private final ControllerSettings controller;
    private final long decisionIntervalMs;
    private Sensor deadLetters;

    WeightRoundProcessor(BalancerSettings settings, WeightPolicy policy) {
        this.topics = settings.topics();
        this.serdeConfig = settings.serdeConfig();
        this.policy = policy;
        this.reader = new ReportReader(settings.clusters(), settings.futureSkew(), settings.maxEventAge());
        this.limits = settings.limits();
        this.controller = settings.controller();
        this.decisionIntervalMs = settings.decisionInterval().toMillis();
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        this.store = context.getStateStore(BalancerTopology.STATE_STORE);
        this.seen = context.getStateStore(BalancerTopology.SEEN_STORE);
        this.clusterCount = -1;
        Duration sweep = limits.nodeExpiry().dividedBy(4);
        context.schedule(sweep.compareTo(Duration.ofHours(1)) > 0 ? Duration.ofHours(1) : sweep,
                PunctuationType.STREAM_TIME, this::expire);
        this.reports = SchemaRegistrySerde.of(SkewReport.class, serdeConfig, false);
        this.alerts = SchemaRegistrySerde.of(SkewAlert.class, serdeConfig, false);
        this.commands = SchemaRegistrySerde.of(WeightCommand.class, serdeConfig, false);
        this.weights = SchemaRegistrySerde.of(NodeWeight.class, serdeConfig, false);
        this.controlSerde = SchemaRegistrySerde.of(OperatorControl.class, serdeConfig, false);
        this.proposals = SchemaRegistrySerde.of(Proposal.class, serdeConfig, false);
        this.decisions = SchemaRegistrySerde.of(Decision.class, serdeConfig, false);
        this.controls = context.getStateStore(BalancerTopology.CONTROL_STORE);
        this.decisionLog = new DecisionLog(APP, decisionIntervalMs);
        this.deadLetters = context.metrics().addRateTotalSensor(
                "balancer", context.taskId().toString(), "dead-letter", Sensor.RecordingLevel.INFO);
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        RecordMetadata source = context.recordMetadata().orElseThrow();
        try {
            String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
            if (key == null) {
                throw new RejectedInput("invalid: record without key (the cluster id)");
            }
            if (source.topic().equals(topics.reports())) {
                onReport(key, decode(reports, source.topic(), record), record.timestamp());
            } else if (source.topic().equals(topics.alerts())) {
                onAlert(key, decode(alerts, source.topic(), record), record.timestamp());
            } else {
                throw new IllegalStateException("balancer does not read topic " + source.topic());
            }
        } catch (RejectedInput e) {
            deadLetter(record, source, e.getMessage());
        }
    }

    private static <T extends org.apache.avro.specific.SpecificRecord> T decode(
            SchemaRegistrySerde<T> serde, String topic, Record<byte[], byte[]> record) throws RejectedInput {
        if (record.value() == null) {
            throw new RejectedInput("invalid: record without value");
        }
        try {
            return serde.deserializer().deserialize(topic, record.headers(), record.value());
        } catch (SerializationException e) {
            // a registry outage is no SerializationException: it fails the stream thread, which
            // StreamsService replaces after a back-off, so the record is read again (docs/design.md §5)
            throw new RejectedInput(DeadLetter.undecodable(e), e);
        }
    }

    private void onAlert(String key, SkewAlert alert, long timestamp) throws RejectedInput {
        reader.checkAlert(key, alert, context.currentSystemTimeMs());
        admit(alert.getCluster(), List.of(), timestamp);
        if (alert.getKind() != AlertKind.HEAT) {
            return; // capacity skew is the migrator's
        }
        String cluster = alert.getCluster();
        ControllerState before = stateOf(cluster);
        if (alert.getState() == AlertState.CONFIRMED) {
            ControllerState after = policy.onHeatConfirmed(before, alert.getSince().toEpochMilli());
            if (!after.equals(before)) {
                store.put(cluster, after);
                if (!before.repairing()) {
                    LOG.info("cluster {}: HEAT alert CONFIRMED (heat Gini {}), repair starts at epoch {}",
                            cluster, fmt(alert.getValue()), after.epoch());
                }
            }
        } else if (alert.getState() == AlertState.CLEARED && before.repairing()) {
            LOG.info("cluster {}: HEAT alert CLEARED (heat Gini {}); the repair goes on down to its target",
                    cluster, fmt(alert.getValue()));
        }
    }

    private void onReport(String key, SkewReport report, long timestamp) throws RejectedInput {
        LoadSnapshot snapshot = reader.snapshot(key, report, context.currentSystemTimeMs());
        String cluster = snapshot.cluster();
        admit(cluster, snapshot.nodes().stream().map(NodeLoad::node).toList(), timestamp);
        ControllerState before = stateOf(cluster);
        ClusterControls held = ControlTable.controls(controls, cluster, controlSerde, topics.control());
        if (held.paused()) {
            // no round at all: the state stays as it is, so a resume goes on where it stopped
            decide(cluster, false, "PAUSED", String.format(Locale.ROOT, "paused by an operator: no weight round; heat Gini %.3f, "
                    + "weights epoch %d%s", report.getHeatGini(), before.epoch(), before.repairing() ? ", a repair is armed" : ""),
                    figures(report, before, 0), snapshot.time(), timestamp);
            return;
        }
        Round round = policy.onReport(before, snapshot.holding(held.excluded()));
        if (round.outcome().opensEpoch() && held.dryRun()) {
            // what the round would do, published instead of done: nothing is stored or sent, so the
            // next report proposes again from the same state (at most once per decision-interval)
            propose(cluster, report, round, snapshot, timestamp);
            return;
        }
        if (!round.state().equals(before)) {
            store.put(cluster, round.state());
        }
        log(cluster, before, round);
        BalancerSeries.round(cluster, round);
        if (round.outcome().opensEpoch()) {
            publish(cluster, round, timestamp);
        }
        explain(cluster, report, before, round, held, snapshot.time(), timestamp);
    }

    /** The decision log's line for a round the controller decided (docs/operations.md, "Operator control"). */
    private void explain(String cluster, SkewReport report, ControllerState before, Round round, ClusterControls held, long time,
            long timestamp) {
        ControllerState after = round.state();
        double gini = round.heatGini();
        String reason = round.outcome().name();
        String message;
        switch (round.outcome()) {
            case ADJUSTED, DECAYED -> message = String.format(Locale.ROOT, "weights epoch %d: %d weight%s %s (%s); heat Gini %.3f",
                    after.epoch(), round.changes().size(), round.changes().size() == 1 ? "" : "s",
                    round.outcome() == RoundOutcome.ADJUSTED ? "changed" : "decayed toward 1.0", changes(round.changes()), gini);
            case TOO_SOON -> message = String.format(Locale.ROOT, "next round at %s (round-interval %s after the last one); heat Gini %.3f",
                    Instant.ofEpochMilli(before.lastRoundAt() + controller.minRoundInterval().toMillis()),
                    io.skewguard.runtime.settings.Durations.format(controller.minRoundInterval()), gini);
            case TARGET_REACHED -> message = String.format(Locale.ROOT, "repair done: heat Gini %.3f at or below the repair target %.3f; "
                    + "weights stay", gini, controller.repairTarget());
            case INSIDE_DEADBAND -> message = String.format(Locale.ROOT, "repair done: every node's load ratio is within 1 ± %.2f; "
                    + "heat Gini %.3f", controller.deadband(), gini);
            case FLOOR_REACHED -> message = String.format(Locale.ROOT, "weights reached their floor: heat Gini %.3f is above the repair "
                    + "target %.3f, but every node outside the deadband sits at its bound (%d at %.2f, %d at %.2f); only migration "
                    + "can do more", gini, controller.repairTarget(), atWeight(after, controller.minWeight()), controller.minWeight(),
                    atWeight(after, controller.maxWeight()), controller.maxWeight());
            case UNMEASURABLE -> message = "no node has both heat and a capacity report: the round waits";
            case EXCLUDED -> message = String.format(Locale.ROOT, "only excluded nodes (%s) would change: their weights stay as they "
                    + "are; heat Gini %.3f", String.join(", ", held.excluded()), gini);
            case IDLE -> {
                boolean cooling = report.getHeatState() == AlertState.OBSERVING;
                reason = cooling ? "COOLDOWN" : "BELOW_THRESHOLD";
                message = cooling
                        ? String.format(Locale.ROOT, "heat Gini %.3f is above the HEAT threshold; the alert is OBSERVING and a repair "
                                + "starts once it is CONFIRMED after the cooldown", gini)
                        : String.format(Locale.ROOT, "no repair: the HEAT alert is %s (heat Gini %.3f)", report.getHeatState(), gini);
                if (!cooling && after.aboveTargetSince() != ControllerState.NEVER) {
                    reason = "FOLLOW_UP_PENDING";
                    message = String.format(Locale.ROOT, "heat Gini %.3f is above the repair target %.3f since %s (the HEAT alert is %s): "
                                    + "a follow-up repair starts at %s if it stays there", gini, controller.repairTarget(),
                            Instant.ofEpochMilli(after.aboveTargetSince()), report.getHeatState(),
                            Instant.ofEpochMilli(after.aboveTargetSince() + controller.followUp().toMillis()));
                }
            }
            default -> throw new IllegalStateException("unknown outcome " + round.outcome());
        }
        if (!before.repairing() && after.repairing()) {
            message = String.format(Locale.ROOT, "follow-up repair: the heat Gini stayed above the repair target %.3f for follow-up %s "
                    + "after the last repair; ", controller.repairTarget(),
                    io.skewguard.runtime.settings.Durations.format(controller.followUp())) + message;
        }
        decide(cluster, round.outcome().opensEpoch(), reason, message, figures(report, after, round.changes().size()), time, timestamp);
    }

    /** A round that would open an epoch, in dry run: a proposal and a DRY_RUN decision, once per decision-interval. */
    private void propose(String cluster, SkewReport report, Round round, LoadSnapshot snapshot, long timestamp) {
        double expected = expectedGini(snapshot, round.changes());
        String message = String.format(Locale.ROOT, "dry run: would open weights epoch %d changing %d weight%s (%s); heat Gini %.3f, "
                        + "expected %.3f", round.state().epoch(), round.changes().size(), round.changes().size() == 1 ? "" : "s",
                changes(round.changes()), round.heatGini(), expected);
        Map<String, Double> figures = figures(report, stateOf(cluster), round.changes().size());
        figures.put("expectedHeatGini", expected);
        if (!decide(cluster, false, "DRY_RUN", message, figures, snapshot.time(), timestamp)) {
            return;
        }
        List<ProposedWeight> proposed = new ArrayList<>();
        for (WeightChange c : round.changes()) {
            proposed.add(new ProposedWeight(c.node(), c.oldWeight(), c.newWeight(), c.loadRatio()));
        }
        Proposal proposal = Proposal.newBuilder()
                .setCluster(cluster)
                .setApp(APP)
                .setWeights(proposed)
                .setMetric("heat Gini")
                .setCurrent(round.heatGini())
                .setExpected(expected)
                .setBytesToMove(0)
                .setProposedAt(Instant.ofEpochMilli(snapshot.time()))
                .build();
        forward(PROPOSALS_SINK, topics.proposals(), cluster, proposals.serializer().serialize(topics.proposals(), proposal), timestamp);
    }

    /**
     * The heat Gini the changes are expected to give: each node's heat scaled by its weight change
     * (new / old), then the Gini of heat over capacity share as the detector computes it. A
     * first-order estimate — a node's share of a slot's writes is its effective weight over the sum
     * of its candidates', so the scale is exact only for a node whose fellow candidates keep theirs.
     */
    static double expectedGini(LoadSnapshot snapshot, List<WeightChange> changes) {
        Map<String, Double> factor = new HashMap<>();
        for (WeightChange c : changes) {
            factor.put(c.node(), c.newWeight() / c.oldWeight());
        }
        double[] perCapacity = new double[snapshot.nodes().size()];
        int i = 0;
        for (NodeLoad n : snapshot.nodes()) {
            double heat = n.heat() * factor.getOrDefault(n.node(), 1.0);
            perCapacity[i++] = n.capacity() > 0 ? heat / n.capacity() : 0;
        }
        return io.skewguard.core.stats.Gini.of(perCapacity);
    }

    private static Map<String, Double> figures(SkewReport report, ControllerState state, int changed) {
        Map<String, Double> f = new java.util.LinkedHashMap<>();
        f.put("heatGini", report.getHeatGini());
        f.put("weightsEpoch", (double) state.epoch());
        f.put("repairing", state.repairing() ? 1.0 : 0.0);
        f.put("changed", (double) changed);
        return f;
    }

    private static int atWeight(ControllerState state, double weight) {
        int n = 0;
        for (var c : state.nodes().values()) {
            n += Math.abs(c.weight() - weight) < 1e-9 ? 1 : 0;
        }
        return n;
    }

    private static String changes(List<WeightChange> changes) {
        List<String> shown = new ArrayList<>();
        for (WeightChange c : changes) {
            if (shown.size() == 6) {
                shown.add("… " + (changes.size() - 6) + " more");
                break;
            }
            shown.add(String.format(Locale.ROOT, "%s %.2f→%.2f", c.node(), c.oldWeight(), c.newWeight()));
        }
        return String.join(", ", shown);
    }

    /** Publishes the decision when the log says it is due; true if it did. */
    private boolean decide(String cluster, boolean acted, String reason, String message, Map<String, Double> figures, long time,
            long timestamp) {
        Optional<Decision> d = decisionLog.decide(cluster, acted, reason, message, figures, time);
        d.ifPresent(decision -> forward(DECISIONS_SINK, topics.decisions(), cluster,
                decisions.serializer().serialize(topics.decisions(), decision), timestamp));
        return d.isPresent();
    }

    /**
     * Refuses a record that names a cluster past {@code max-clusters} or would bring its cluster
     * past {@code max-nodes-per-cluster}, or an invalid id; else notes that the cluster and the
     * named nodes were seen at {@code time} (the record's timestamp: stream time).
     */
    private void admit(String cluster, List<String> nodes, long time) throws RejectedInput {
        Optional<String> invalid = StateLimits.checkId("cluster", cluster);
        for (String node : nodes) {
            invalid = invalid.or(() -> StateLimits.checkId("node", node));
        }
        if (invalid.isPresent()) {
            throw new RejectedInput(invalid.get());
        }
        String clusterKey = seenKey(cluster, "");
        boolean newCluster = seen.get(clusterKey) == null;
        if (newCluster) {
            Optional<String> over = limits.overClusters(cluster, clusterCount());
            if (over.isPresent()) {
                throw new RejectedInput(over.get());
            }
        }
        List<String> fresh = new ArrayList<>();
        for (String node : nodes) {
            if (seen.get(seenKey(cluster, node)) == null) {
                fresh.add(node);
            }
        }
        if (!fresh.isEmpty()) {
            long held = nodesSeen(cluster);
            // the first new node that would not fit
            int first = (int) Math.max(0, Math.min(fresh.size() - 1, limits.maxNodesPerCluster() - held));
            Optional<String> over = limits.overNodes(cluster, fresh.get(first), held + first);
            if (over.isPresent()) {
                throw new RejectedInput(over.get() + " (the record names " + fresh.size() + " new node(s))");
            }
        }
        if (newCluster) {
            clusterCount++;
        }
        note(clusterKey, time);
        for (String node : nodes) {
            note(seenKey(cluster, node), time);
        }
    }

    /**
     * Stores {@code time} as last seen unless the stored time is less than 1/24 of node-expiry older:
     * expiry is that much less exact, and a report writes its nodes' rows (and changelog records)
     * about 24 times per node-expiry instead of every tick.
     */
    private void note(String key, long time) {
        Long last = seen.get(key);
        if (last == null || last < time - limits.nodeExpiryMs() / 24) {
            seen.put(key, time);
        }
    }

    private long clusterCount() {
        if (clusterCount < 0) {
            clusterCount = 0;
            try (KeyValueIterator<String, Long> it = seen.all()) {
                while (it.hasNext()) {
                    if (it.next().key.endsWith(String.valueOf(SEP))) {
                        clusterCount++;
                    }
                }
            }
        }
        return clusterCount;
    }

    private long nodesSeen(String cluster) {
        long n = 0;
        try (KeyValueIterator<String, Long> it = seen.prefixScan(seenKey(cluster, ""), new StringSerializer())) {
            while (it.hasNext()) {
                n++;
                it.next();
            }
        }
        return n - 1; // the cluster's own row
    }

    /**
     * On stream time (the records' timestamps: the reports' window ends): drops the controller
     * memory of nodes no report named for {@code node-expiry}, and forgets clusters without any
     * record for that long. Stream time, not the wall clock, so that a balancer catching up on a
     * backlog does not forget nodes whose newer reports it has not read yet.
     */
    private void expire(long streamTime) {
        Map<String, Set<String>> goneNodes = new HashMap<>();
        Set<String> goneClusters = new HashSet<>();
        List<String> expiredKeys = new ArrayList<>();
        try (KeyValueIterator<String, Long> it = seen.all()) {
            while (it.hasNext()) {
                KeyValue<String, Long> kv = it.next();
                if (limits.expired(kv.value, streamTime)) {
                    int at = kv.key.indexOf(SEP);
                    String cluster = kv.key.substring(0, at);
                    String node = kv.key.substring(at + 1);
                    expiredKeys.add(kv.key);
                    if (node.isEmpty()) {
                        goneClusters.add(cluster);
                    } else {
                        goneNodes.computeIfAbsent(cluster, c -> new TreeSet<>()).add(node);
                    }
                }
            }
        }
        expiredKeys.forEach(seen::delete);
        goneNodes.forEach((cluster, nodes) -> {
            ControllerState state = store.get(cluster);
            if (state != null && !goneClusters.contains(cluster)) {
                store.put(cluster, state.without(nodes));
            }
            LOG.info("cluster {}: node(s) {} in no report for {}; their weights and controller memory are dropped",
                    cluster, nodes, limits.nodeExpiry());
        });
        for (String cluster : goneClusters) {
            List<String> rows = new ArrayList<>();
            try (KeyValueIterator<String, Long> it = seen.prefixScan(seenKey(cluster, ""), new StringSerializer())) {
                while (it.hasNext()) {
                    rows.add(it.next().key);
                }
            }
            rows.forEach(seen::delete);
            store.delete(cluster);
            decisionLog.forget(cluster);
            if (clusterCount > 0) {
                clusterCount--;
            }
            LOG.info("cluster {}: no report or alert for {}; its controller state is dropped", cluster, limits.nodeExpiry());
        }
    }

    private static String seenKey(String cluster, String node) {
        return cluster + SEP + node;
    }

    private void publish(String cluster, Round round, long timestamp) {
        ControllerState state = round.state();
        long epoch = state.epoch();
        Instant at = Instant.ofEpochMilli(state.lastRoundAt());
        for (WeightChange change : round.changes()) {
            WeightCommand command = WeightCommand.newBuilder()
                    .setCommandId(commandId(cluster, epoch, change.node()))
                    .setCluster(cluster)
                    .setNode(change.node())
                    .setEpoch(epoch)
                    .setOldWeight(change.oldWeight())
                    .setNewWeight(change.newWeight())
                    .setReason(reason(round, change))
                    .setIssuedAt(at)
                    .build();
            forward(COMMANDS_SINK, topics.weightCommands(), change.node(), commands.serializer()
                    .serialize(topics.weightCommands(), command), timestamp);
        }
        for (Map.Entry<String, Double> row : state.weights().entrySet()) {
            NodeWeight weight = NodeWeight.newBuilder()
                    .setCluster(cluster)
                    .setNode(row.getKey())
                    .setEpoch(epoch)
                    .setWeight(row.getValue())
                    .setUpdatedAt(at)
                    .build();
            forward(WEIGHTS_SINK, topics.nodeWeights(), cluster + "/" + row.getKey(), weights.serializer()
                    .serialize(topics.nodeWeights(), weight), timestamp);
        }
    }

    /** Deterministic id of the command for {@code node} in {@code epoch} of {@code cluster}. */
    static String commandId(String cluster, long epoch, String node) {
        return "weight/" + cluster + "/" + epoch + "/" + node;
    }

    private static String reason(Round round, WeightChange change) {
        double r = change.loadRatio();
        if (Double.isNaN(r)) {
            return String.format(Locale.ROOT, "decay toward 1.0 after the repair; heat Gini %.3f", round.heatGini());
        }
        return String.format(Locale.ROOT, "%s: load ratio %.3f; heat Gini %.3f",
                r > 1 ? "overloaded" : "underloaded", r, round.heatGini());
    }

    private void forward(String sink, String topic, String key, byte[] value, long timestamp) {
        context.forward(new Record<>(key.getBytes(StandardCharsets.UTF_8), value, timestamp), sink);
    }

    private void deadLetter(Record<byte[], byte[]> record, RecordMetadata source, String reason) {
        LOG.warn("dead-lettering {}-{}@{}: {}", source.topic(), source.partition(), source.offset(), reason);
        deadLetters.record();
        DeadLetterCounter.count(reason);
        Record<byte[], byte[]> letter = new Record<>(record.key(), record.value(), record.timestamp(),
                DeadLetter.headers(source.topic(), source.partition(), source.offset(), reason));
        context.forward(letter, DLQ_SINK);
    }

    private ControllerState stateOf(String cluster) {
        return Objects.requireNonNullElseGet(store.get(cluster), ControllerState::initial);
    }

    private static void log(String cluster, ControllerState before, Round round) {
        RoundOutcome outcome = round.outcome();
        if (!before.repairing() && round.state().repairing()) {
            LOG.info("cluster {}: heat Gini {} stayed above the repair target for the follow-up time; a follow-up repair starts "
                    + "at epoch {}", cluster, fmt(round.heatGini()), before.epoch());
        }
        switch (outcome) {
            case ADJUSTED, DECAYED -> LOG.info("cluster {}: epoch {} ({}), {} weight(s) changed, heat Gini {}",
                    cluster, round.state().epoch(), outcome, round.changes().size(), fmt(round.heatGini()));
            case TARGET_REACHED, INSIDE_DEADBAND -> LOG.info(
                    "cluster {}: repair done ({}) at epoch {}, heat Gini {}; weights stay",
                    cluster, outcome, round.state().epoch(), fmt(round.heatGini()));
            case FLOOR_REACHED -> {
                if (!before.floorReached()) {
                    LOG.warn("cluster {}: weights reached their floor at epoch {}, heat Gini {}: every node "
                                    + "outside the deadband sits at its bound; only migration can do more",
                            cluster, round.state().epoch(), fmt(round.heatGini()));
                }
            }
            case UNMEASURABLE -> LOG.info("cluster {}: no node has both heat and a capacity report; the round waits",
                    cluster);
            case EXCLUDED -> LOG.debug("cluster {}: only excluded nodes would change; their weights stay", cluster);
            case IDLE, TOO_SOON -> LOG.debug("cluster {}: {}", cluster, outcome);
        }
    }

    private static String fmt(double value) {
        return String.format(Locale.ROOT, "%.3f", value);
    }

    @Override
    public void close() {
        for (SchemaRegistrySerde<?> serde : new SchemaRegistrySerde<?>[] {reports, alerts, commands, weights, controlSerde, proposals,
                decisions}) {
            if (serde != null) {
                serde.close();
            }
        }
    }
}
