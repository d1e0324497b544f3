package io.skewguard.migrator;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.migrator.policy.CapacityReading;
import io.skewguard.migrator.policy.ClusterView;
import io.skewguard.migrator.policy.Effect;
import io.skewguard.migrator.policy.Migration;
import io.skewguard.migrator.policy.RepairCoordinator;
import io.skewguard.migrator.policy.RepairState;
import io.skewguard.migrator.policy.StatusEvent;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import java.time.Duration;
import java.time.Instant;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.runtime.streams.PoisonPills;
import io.skewguard.schemas.DeadLetter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.header.Header;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Wiring between the stores, the clock and the pure {@link RepairCoordinator}: loads a cluster's
 * {@link RepairState}, hands it the input, saves the result and carries out the effects (slot-table
 * rows, commands, repair status) — all inside one exactly-once transaction per input.
 *
 * <p>Stores: {@code repair} (cluster → state), {@code capacity} (cluster, node → latest
 * CapacityEvent), {@code reports} (cluster → latest SkewReport), {@code slot-table}
 * (cluster, slot → SlotAssignment, the table this app writes). Keys of the last two join the
 * cluster and the rest with {@link #SEP}, which no id may hold, so that the prefix scan of cluster
 * {@code a} never sees cluster {@code a/b}. The global store {@code published-slot-table} holds the
 * rows on the slot-table topic; a cluster's table is adopted from it when this task has none.
 *
 * <p>Bounds ({@link StateLimits}): a record that would add a cluster past {@code max-clusters} or a
 * node past {@code max-nodes-per-cluster} is dead-lettered ({@code over-capacity}); a node without a
 * capacity report for {@code node-expiry} is removed by a wall-clock sweep (the clock every other
 * decision of the coordinator runs on; capacity event times are the agents' clocks), unless a
 * running batch moves a shard to or from it; a cluster left without nodes and batch is removed
 * from every store and its slot-table rows are deleted (tombstones).
 */
final class CoordinatorProcessor implements Processor<String, MigratorInput, String, MigratorOutput> {

    static final String REPAIR_STORE = "repair";
    static final String CAPACITY_STORE = "capacity";
    static final String REPORT_STORE = "reports";
    static final String SLOT_STORE = "slot-table";
    /** Global store: the rows on the slot-table topic, key {@code <cluster>/<slot>}, value as published (bytes). */
    static final String PUBLISHED_STORE = "published-slot-table";

    /** Node named in the repair status records the migrator itself writes. */
    static final String MIGRATOR_NODE = "migrator";

    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorProcessor.class);
    /** Joins the cluster and the rest of a store key; {@link StateLimits#checkId} refuses ids holding it. */
    static final char SEP = '\u0000';

    private final MigratorSettings settings;
    private final RepairCoordinator coordinator;
    private final MigratorSerdes serdes;
    private final StateLimits limits;
    private long clusterCount = -1; // of the repair store; counted on first need
    private boolean rekeyed;
    private ProcessorContext<String, MigratorOutput> context;
    private KeyValueStore<String, RepairState> repairs;
    private KeyValueStore<String, CapacityEvent> capacity;
    private KeyValueStore<String, SkewReport> reports;
    private KeyValueStore<String, SlotAssignment> slots;
    private KeyValueStore<String, byte[]> published;
    private Sensor budget;
    private Sensor committed;
    private Sensor aborted;
    private Sensor switchStep;
    private Sensor stoppedEarly;
    private Sensor deadLetters;
    /** Clusters seen in the repair store since {@link #init} (see {@link #remember}). */
    private final Set<String> known = new HashSet<>();
    /** Routing epoch of a table adopted while the coordinator decided, for the state it returns (see {@link #apply}). */
    private final Map<String, Long> adoptedEpochs = new HashMap<>();
    /**
     * Clusters removed since {@link #init}: their tombstones may not have reached the global store yet,
     * and such a cluster starts afresh (a restarted task's global store holds the tombstones).
     */
    private final Set<String> removedHere = new HashSet<>();

    CoordinatorProcessor(MigratorSettings settings, MigratorSerdes serdes) {
        this.settings = settings;
        this.serdes = serdes;
        this.limits = settings.limits();
        this.coordinator = new RepairCoordinator(settings.planner(),
                new io.skewguard.migrator.policy.BatchStateMachine(settings.timeouts()), settings.rateLimiter(), settings.maxParallel(),
                settings.maxConsecutiveAborts(), settings.maintenanceFactor(),
                settings.maintenanceHold().toMillis());
    }

    @Override
    public void init(ProcessorContext<String, MigratorOutput> context) {
        this.context = context;
        this.known.clear(); // a re-initialised task may have restored less than this instance saw
        this.repairs = context.getStateStore(REPAIR_STORE);
        this.capacity = context.getStateStore(CAPACITY_STORE);
        this.reports = context.getStateStore(REPORT_STORE);
        this.slots = context.getStateStore(SLOT_STORE);
        this.published = context.getStateStore(PUBLISHED_STORE);
        this.adoptedEpochs.clear();
        this.removedHere.clear();
        this.budget = MigratorMetrics.budget(context);
        this.committed = MigratorMetrics.committed(context);
        this.aborted = MigratorMetrics.aborted(context);
        this.switchStep = MigratorMetrics.switchStep(context);
        this.stoppedEarly = MigratorMetrics.stoppedEarly(context);
        this.deadLetters = MigratorMetrics.deadLetters(context);
        this.clusterCount = -1;
        this.rekeyed = false; // done at the first record or tick, not here (see rekeyOldRows)
        context.schedule(settings.tickInterval(), PunctuationType.WALL_CLOCK_TIME, this::tick);
        Duration sweep = settings.limits().nodeExpiry().dividedBy(4);
        context.schedule(sweep.compareTo(Duration.ofHours(1)) > 0 ? Duration.ofHours(1) : sweep,
                PunctuationType.WALL_CLOCK_TIME, this::expire);
    }

    @Override
    public void process(Record<String, MigratorInput> record) {
        rekeyOldRows();
        MigratorInput input = record.value();
        if (input == null) {
            return;
        }
        String cluster = input.cluster();
        long now = context.currentSystemTimeMs();
        if (input instanceof MigratorInput.Capacity c) {
            if (refusedAsNewCluster(record, cluster) || refusedAsNewNode(record, c.value())) {
                return;
            }
            keepLatest(c.value());
            remember(cluster);
            return;
        }
        RepairState stored = repairs.get(cluster);
        RepairState state = stored != null ? stored : RepairState.fresh(cluster, settings.maxBytesPerSec());
        Supplier<ClusterView> view = () -> view(cluster, now);
        RepairCoordinator.Result result;
        if (input instanceof MigratorInput.Alert a) {
            SkewAlert alert = a.value();
            if (alert.getKind() != AlertKind.CAPACITY || alert.getState() != AlertState.CONFIRMED) {
                return; // CLEARED does not stop a repair: it runs to the target CV
            }
            if (refusedAsNewCluster(record, cluster)) {
                return;
            }
            result = coordinator.onCapacityConfirmed(state, alert.getValue(), now, view);
        } else if (input instanceof MigratorInput.Report r) {
            SkewReport report = r.value();
            if (refusedAsNewCluster(record, cluster)) {
                return;
            }
            reports.put(cluster, report);
            double seconds = Duration.between(report.getWindowStart(), report.getWindowEnd()).toMillis() / 1000.0;
            result = coordinator.onReport(state, report.getTotalWriteBytes() / seconds, report.getCapacityCv(),
                    report.getWindowEnd().toEpochMilli(), now, view);
            budget.record(result.state().budgetBytesPerSec());
        } else if (input instanceof MigratorInput.Status s) {
            MigrationStatus status = s.value();
            if (status.getMigrationId().equals(repairId(cluster)) || stored == null) {
                return; // our own repair status, or a cluster we never planned for
            }
            result = coordinator.onStatus(state, statusEvent(status), now, view);
        } else {
            return;
        }
        apply(stored, result, now);
    }

    /**
     * A cluster that reports capacity is known from then on (a fresh state in the store). Capacity
     * reports come from every node every few seconds and need no repair state otherwise, so the
     * store (a JSON state) is read once per cluster after {@link #init}, not once per report; a
     * cluster removed on expiry is forgotten here too.
     */
    private void remember(String cluster) {
        if (known.add(cluster) && repairs.get(cluster) == null) {
            repairs.put(cluster, RepairState.fresh(cluster, settings.maxBytesPerSec()));
            if (clusterCount >= 0) {
                clusterCount++;
            }
        }
    }

    private void tick(long now) {
        rekeyOldRows();
        List<RepairState> running = new ArrayList<>();
        try (KeyValueIterator<String, RepairState> it = repairs.all()) {
            while (it.hasNext()) {
                RepairState state = it.next().value;
                if (state.batch() != null) {
                    running.add(state);
                }
            }
        }
        for (RepairState state : running) {
            apply(state, coordinator.onTick(state, now, () -> view(state.cluster(), now)), now);
        }
    }

    /** Dead-letters {@code record} when its cluster is new and the task keeps {@code max-clusters} already. */
    private boolean refusedAsNewCluster(Record<String, MigratorInput> record, String cluster) {
        if (known.contains(cluster) || repairs.get(cluster) != null) {
            return false;
        }
        if (clusterCount < 0) {
            clusterCount = 0;
            try (KeyValueIterator<String, RepairState> it = repairs.all()) {
                while (it.hasNext()) {
                    it.next();
                    clusterCount++;
                }
            }
        }
        return limits.overClusters(cluster, clusterCount).map(reason -> refuse(record, reason)).orElse(false);
    }

    /** Dead-letters a capacity report of a new node when its cluster has {@code max-nodes-per-cluster} already. */
    private boolean refusedAsNewNode(Record<String, MigratorInput> record, CapacityEvent event) {
        if (capacity.get(storeKey(event.getCluster(), event.getNode())) != null) {
            return false;
        }
        long held = 0;
        try (KeyValueIterator<String, CapacityEvent> it = capacity.prefixScan(clusterPrefix(event.getCluster()), new StringSerializer())) {
            while (it.hasNext()) {
                it.next();
                held++;
            }
        }
        return limits.overNodes(event.getCluster(), event.getNode(), held).map(reason -> refuse(record, reason)).orElse(false);
    }

    private boolean refuse(Record<String, MigratorInput> record, String reason) {
        String topic = header(record, DeadLetter.SOURCE_TOPIC, "?");
        int partition = Integer.parseInt(header(record, DeadLetter.SOURCE_PARTITION, "-1"));
        long offset = Long.parseLong(header(record, DeadLetter.SOURCE_OFFSET, "-1"));
        LOG.warn("dead-lettering {}-{}@{}: {}", topic, partition, offset, reason);
        deadLetters.record();
        MigratorInput input = record.value();
        byte[] value;
        if (input instanceof MigratorInput.Capacity c) {
            value = serdes.capacity().serializer().serialize(topic, c.value());
        } else if (input instanceof MigratorInput.Report r) {
            value = serdes.report().serializer().serialize(topic, r.value());
        } else if (input instanceof MigratorInput.Alert a) {
            value = serdes.alert().serializer().serialize(topic, a.value());
        } else {
            value = serdes.status().serializer().serialize(topic, ((MigratorInput.Status) input).value());
        }
        context.forward(new Record<>(input.cluster(), new MigratorOutput.Refused(value,
                DeadLetter.headers(topic, partition, offset, reason)), record.timestamp()));
        return true;
    }

    private static String header(Record<?, ?> record, String name, String otherwise) {
        Header h = record.headers().lastHeader(name);
        return h == null || h.value() == null ? otherwise : new String(h.value(), StandardCharsets.UTF_8);
    }

    /**
     * Removes nodes without a capacity report for {@code node-expiry} (by the wall clock) from the
     * capacity store and the committed moves still waiting for their reports, except nodes a
     * running batch moves a shard to or from (the batch runs to its end, commit or abort, on its own
     * timeouts); then clusters left without nodes and without a batch, from every store.
     */
    private void expire(long now) {
        rekeyOldRows();
        List<String> clusters = new ArrayList<>();
        try (KeyValueIterator<String, RepairState> it = repairs.all()) {
            while (it.hasNext()) {
                clusters.add(it.next().key);
            }
        }
        for (String cluster : clusters) {
            RepairState state = repairs.get(cluster);
            Set<String> busy = new HashSet<>();
            if (state.batch() != null) {
                for (Migration m : state.batch().migrations()) {
                    busy.add(m.source());
                    busy.add(m.target());
                }
            }
            Set<String> gone = new HashSet<>();
            int left = 0;
            try (KeyValueIterator<String, CapacityEvent> it = capacity.prefixScan(clusterPrefix(cluster), new StringSerializer())) {
                while (it.hasNext()) {
                    CapacityEvent e = it.next().value;
                    if (limits.expired(e.getEventTime().toEpochMilli(), now) && !busy.contains(e.getNode())) {
                        gone.add(e.getNode());
                    } else {
                        left++;
                    }
                }
            }
            for (String node : gone) {
                capacity.delete(storeKey(cluster, node));
                LOG.info("{}: node {} sent no capacity report for {}; removed from the migrator's state",
                        cluster, node, limits.nodeExpiry());
            }
            if (left == 0 && state.batch() == null) {
                removeCluster(cluster, now);
            } else if (!gone.isEmpty()) {
                repairs.put(cluster, state.withoutMovesOf(gone));
            }
        }
    }

    private void removeCluster(String cluster, long now) {
        List<String> rows = new ArrayList<>();
        try (KeyValueIterator<String, SlotAssignment> it = slots.prefixScan(clusterPrefix(cluster), new StringSerializer())) {
            while (it.hasNext()) {
                KeyValue<String, SlotAssignment> kv = it.next();
                rows.add(kv.key);
                context.forward(new Record<>(slotKey(cluster, kv.value.getSlot()), new MigratorOutput.Assignment(null), now));
            }
        }
        rows.forEach(slots::delete);
        removedHere.add(cluster);
        reports.delete(cluster);
        repairs.delete(cluster);
        known.remove(cluster);
        if (clusterCount > 0) {
            clusterCount--;
        }
        LOG.info("{}: no node left; cluster removed from the migrator's state ({} slot-table rows deleted)", cluster, rows.size());
    }

    /**
     * Moves rows written under the keys of earlier versions ({@code cluster/node}, {@code
     * cluster/slot}) to the keys of this one, so that no row escapes the prefix scans and the expiry.
     * Once per task, at its first record or punctuation rather than in {@link #init}: reading the
     * rows needs the schema registry, and a task whose init fails while the registry is down leaves
     * its stores locked for the thread that replaces it.
     */
    private void rekeyOldRows() {
        if (rekeyed) {
            return;
        }
        Map<String, CapacityEvent> capacityRows = new HashMap<>();
        try (KeyValueIterator<String, CapacityEvent> it = capacity.all()) {
            while (it.hasNext()) {
                KeyValue<String, CapacityEvent> kv = it.next();
                if (!kv.key.equals(storeKey(kv.value.getCluster(), kv.value.getNode()))) {
                    capacityRows.put(kv.key, kv.value);
                }
            }
        }
        capacityRows.forEach((key, event) -> {
            capacity.delete(key);
            keepLatest(event);
        });
        Map<String, SlotAssignment> slotRows = new HashMap<>();
        try (KeyValueIterator<String, SlotAssignment> it = slots.all()) {
            while (it.hasNext()) {
                KeyValue<String, SlotAssignment> kv = it.next();
                if (!kv.key.equals(slotStoreKey(kv.value.getCluster(), kv.value.getSlot()))) {
                    slotRows.put(kv.key, kv.value);
                }
            }
        }
        slotRows.forEach((key, row) -> {
            slots.delete(key);
            slots.put(slotStoreKey(row.getCluster(), row.getSlot()), row);
        });
        if (!capacityRows.isEmpty() || !slotRows.isEmpty()) {
            LOG.info("moved {} capacity and {} slot-table rows to this version's store keys", capacityRows.size(), slotRows.size());
        }
        rekeyed = true;
    }

    /** Carries out the effects and saves the state; {@code before} is the stored state the result came from (null: none). */
    private void apply(RepairState before, RepairCoordinator.Result result, long now) {
        RepairState state = result.state();
        Long adopted = adoptedEpochs.remove(state.cluster());
        if (adopted != null && adopted > state.routingEpoch()) {
            state = state.withRoutingEpoch(adopted); // the table was adopted while the coordinator decided
        }
        long started = System.nanoTime();
        boolean switched = false;
        for (Effect effect : result.effects()) {
            if (effect instanceof Effect.MarkInFlight e) {
                Migration m = e.migration();
                publish(row(state.cluster(), m.slot()), now, row -> row.setInFlightTarget(m.target()),
                        row -> row.setInFlightSource(m.source()), row -> row.setMigrationId(m.id()));
            } else if (effect instanceof Effect.ClearInFlight e) {
                publish(row(state.cluster(), e.migration().slot()), now, CoordinatorProcessor::clearInFlight);
            } else if (effect instanceof Effect.SwitchSlot e) {
                Migration m = e.migration();
                long epoch = state.routingEpoch() + 1;
                state = state.withRoutingEpoch(epoch);
                SlotAssignment row = row(state.cluster(), m.slot());
                List<String> candidates = new ArrayList<>(row.getCandidates());
                int at = candidates.indexOf(m.source());
                if (at < 0) {
                    // the table changed under the migration: nothing else writes it, so this is a bug
                    throw new IllegalStateException("slot " + m.slot() + " of " + state.cluster() + " no longer names " + m.source());
                }
                candidates.set(at, m.target());
                publish(row, now, r -> r.setCandidates(candidates), r -> r.setRoutingEpoch(epoch), CoordinatorProcessor::clearInFlight);
                committed.record();
                switched = true;
                LOG.info("{}: switched slot {} from {} to {} at routing epoch {}", state.cluster(), m.slot(), m.source(), m.target(), epoch);
            } else if (effect instanceof Effect.SendCommand e) {
                context.forward(new Record<>(e.node(), new MigratorOutput.Command(command(state, e, now)), now));
            } else if (effect instanceof Effect.ReportRepair e) {
                if (e.outcome() == StepResult.FAILED) {
                    stoppedEarly.record();
                }
                MigrationStatus status = MigrationStatus.newBuilder()
                        .setCluster(state.cluster())
                        .setMigrationId(repairId(state.cluster()))
                        .setCommandId(repairId(state.cluster()) + "/" + state.batchSeq() + "/" + e.outcome())
                        .setNode(MIGRATOR_NODE)
                        .setPhase(MigrationPhase.CLEANUP)
                        .setOutcome(e.outcome())
                        .setBytesCopied(state.bytesMoved())
                        .setMessage(e.message())
                        .setEventTime(Instant.ofEpochMilli(now))
                        .build();
                context.forward(new Record<>(status.getMigrationId(), new MigratorOutput.RepairStatus(status), now));
            }
        }
        if (before == null && clusterCount >= 0) {
            clusterCount++;
        }
        if (before != null && before.batchesAborted() < state.batchesAborted()) {
            aborted.record();
        }
        repairs.put(state.cluster(), state);
        if (switched) {
            switchStep.record((System.nanoTime() - started) / 1e6);
        }
    }

    private MigrationCommand command(RepairState state, Effect.SendCommand e, long now) {
        Migration m = e.migration();
        boolean batchStep = e.phase() == MigrationPhase.PREPARE || e.phase() == MigrationPhase.COMMIT || e.phase() == MigrationPhase.ABORT;
        return MigrationCommand.newBuilder()
                .setCommandId(m.id() + "/" + e.phase() + "/" + e.node())
                .setCluster(state.cluster())
                .setMigrationId(m.id())
                .setBatchId(batchStep ? e.batchId() : null)
                .setPhase(e.phase())
                .setNode(e.node())
                .setSlot(m.slot())
                .setSourceNode(m.source())
                .setTargetNode(m.target())
                .setShardBytes(m.bytes())
                .setMaxBytesPerSec(e.phase() == MigrationPhase.COPY ? RepairCoordinator.copyBudget(state) : 0)
                .setRoutingEpoch(row(state.cluster(), m.slot()).getRoutingEpoch())
                .setIssuedAt(Instant.ofEpochMilli(now))
                .build();
    }

    /** Writes a changed copy of a slot-table row to the store and the compacted topic. */
    @SafeVarargs
    private void publish(SlotAssignment current, long now, Consumer<SlotAssignment>... changes) {
        SlotAssignment row = SlotAssignment.newBuilder(current).build();
        for (Consumer<SlotAssignment> change : changes) {
            change.accept(row);
        }
        row.setUpdatedAt(Instant.ofEpochMilli(now));
        slots.put(slotStoreKey(row.getCluster(), row.getSlot()), row);
        context.forward(new Record<>(slotKey(row.getCluster(), row.getSlot()), new MigratorOutput.Assignment(row), now));
    }

    private static void clearInFlight(SlotAssignment row) {
        row.setInFlightTarget(null);
        row.setInFlightSource(null);
        row.setMigrationId(null);
    }

    private SlotAssignment row(String cluster, int slot) {
        SlotAssignment row = slots.get(slotStoreKey(cluster, slot));
        if (row == null) {
            throw new IllegalStateException("no slot-table row for slot " + slot + " of " + cluster);
        }
        return row;
    }

    private void keepLatest(CapacityEvent event) {
        String key = storeKey(event.getCluster(), event.getNode());
        CapacityEvent known = capacity.get(key);
        if (known == null || !known.getEventTime().isAfter(event.getEventTime())) {
            capacity.put(key, event);
        }
    }

    /**
     * The cluster's figures for a plan. Without a slot table in its store the coordinator adopts the
     * one on the topic ({@link #adopt}) and builds one from the ring only for a cluster that has no
     * rows there.
     */
    private ClusterView view(String cluster, long now) {
        List<CapacityReading> readings = new ArrayList<>();
        try (KeyValueIterator<String, CapacityEvent> it = capacity.prefixScan(clusterPrefix(cluster), new StringSerializer())) {
            while (it.hasNext()) {
                CapacityEvent e = it.next().value;
                Map<Integer, Long> shards = new HashMap<>();
                for (ShardUsage s : e.getShards()) {
                    shards.merge(s.getSlot(), s.getUsedBytes(), Long::sum);
                }
                readings.add(new CapacityReading(e.getNode(), e.getUsedBytes(), e.getTotalBytes(), e.getRack(), shards,
                        e.getEventTime().toEpochMilli()));
            }
        }
        SkewReport report = reports.get(cluster);
        long[] heat = report == null ? new long[0] : report.getSlotHeat().stream().mapToLong(Long::longValue).toArray();
        Map<Integer, List<String>> sets = new HashMap<>();
        try (KeyValueIterator<String, SlotAssignment> it = slots.prefixScan(clusterPrefix(cluster), new StringSerializer())) {
            while (it.hasNext()) {
                SlotAssignment row = it.next().value;
                sets.put(row.getSlot(), List.copyOf(row.getCandidates()));
            }
        }
        if (sets.isEmpty()) {
            sets = adopt(cluster, now);
        }
        if (sets.isEmpty() && !readings.isEmpty()) {
            sets = buildFromRing(cluster, readings, now);
        }
        return new ClusterView(readings, heat, sets);
    }

    /**
     * Adopts the cluster's slot table as the topic holds it (a new deployment, a lost state
     * directory): its rows go to the {@code slot-table} store as they are (they are on the topic
     * already, so nothing is re-published), and the routing epoch continues from the highest row's.
     * A row naming a migration in flight that this state does not run has its mark cleared
     * (published, epoch unchanged) and ABORT sent to both participants, as an aborted batch would:
     * nobody would ever finish it, and writers would dual-write to its target for good.
     *
     * @return the adopted candidate sets; empty if the topic has no row of the cluster
     */
    private Map<Integer, List<String>> adopt(String cluster, long now) {
        if (removedHere.contains(cluster)) {
            return Map.of();
        }
        List<SlotAssignment> rows = publishedRows(cluster);
        if (rows.isEmpty()) {
            return Map.of();
        }
        RepairState stored = repairs.get(cluster);
        RepairState state = stored != null ? stored : RepairState.fresh(cluster, settings.maxBytesPerSec());
        Set<String> running = new HashSet<>();
        if (state.batch() != null) {
            state.batch().migrations().forEach(m -> running.add(m.id()));
        }
        long epoch = 0;
        Map<Integer, List<String>> sets = new HashMap<>();
        List<String> aborted = new ArrayList<>();
        for (SlotAssignment row : rows) {
            epoch = Math.max(epoch, row.getRoutingEpoch());
            sets.put(row.getSlot(), List.copyOf(row.getCandidates()));
            boolean inFlight = row.getInFlightTarget() != null || row.getInFlightSource() != null || row.getMigrationId() != null;
            if (inFlight && !running.contains(row.getMigrationId())) {
                abortUnknown(row, now);
                aborted.add(row.getMigrationId() == null ? "slot " + row.getSlot() : row.getMigrationId());
                publish(row, now, CoordinatorProcessor::clearInFlight);
            } else {
                slots.put(slotStoreKey(cluster, row.getSlot()), row);
            }
        }
        // saved now as well as in apply: the table is in the store from here on, and a switch must
        // never start again from epoch 0 even if this input ends up dead-lettered
        repairs.put(cluster, state.withRoutingEpoch(Math.max(state.routingEpoch(), epoch)));
        adoptedEpochs.put(cluster, epoch);
        LOG.info("adopted the slot table of cluster {} from the topic: {} slots at routing epoch {}", cluster, rows.size(), epoch);
        if (rows.size() != settings.slotCount()) {
            LOG.warn("{}: the adopted slot table has {} slots, slot-count is {}; the table on the topic is kept as it is",
                    cluster, rows.size(), settings.slotCount());
        }
        if (!aborted.isEmpty()) {
            LOG.info("{}: the adopted table named {} migration(s) in flight that this migrator has no state for; marks cleared, "
                    + "ABORT sent to both participants: {}", cluster, aborted.size(), aborted);
        }
        return sets;
    }

    /** The cluster's rows in the global store of the published table; rows that cannot be read are logged and left out. */
    private List<SlotAssignment> publishedRows(String cluster) {
        String topic = settings.topics().slotTable();
        List<SlotAssignment> rows = new ArrayList<>();
        try (KeyValueIterator<String, byte[]> it = published.prefixScan(cluster + "/", new StringSerializer())) {
            while (it.hasNext()) {
                KeyValue<String, byte[]> kv = it.next();
                SlotAssignment row;
                try {
                    row = serdes.assignment().deserializer().deserialize(topic, kv.value);
                } catch (RuntimeException e) {
                    if (PoisonPills.registryOutage(e)) {
                        throw e; // not the row's fault: read again once the registry answers
                    }
                    LOG.warn("{}: slot-table row {} on {} cannot be read, left out of the adopted table: {}", cluster, kv.key, topic,
                            e.toString());
                    continue;
                }
                // the prefix of cluster a also matches the rows of cluster a/b
                if (row != null && row.getCluster().equals(cluster) && kv.key.equals(slotKey(cluster, row.getSlot()))) {
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    /** ABORT, as {@code BatchStateMachine} words it, to both participants of the migration a published row names. */
    private void abortUnknown(SlotAssignment row, long now) {
        String id = row.getMigrationId();
        String source = row.getInFlightSource();
        String target = row.getInFlightTarget();
        if (id == null || source == null || target == null || source.equals(target)) {
            return; // no migration a node could know: the mark alone is cleared
        }
        String prefix = row.getCluster() + "/";
        String rest = id.startsWith(prefix) ? id.substring(prefix.length()) : "";
        String batchId = rest.indexOf('/') > 0 ? rest.substring(0, rest.indexOf('/')) : null;
        for (String node : List.of(source, target)) {
            MigrationCommand abort = MigrationCommand.newBuilder()
                    .setCommandId(id + "/" + MigrationPhase.ABORT + "/" + node)
                    .setCluster(row.getCluster())
                    .setMigrationId(id)
                    .setBatchId(batchId)
                    .setPhase(MigrationPhase.ABORT)
                    .setNode(node)
                    .setSlot(row.getSlot())
                    .setSourceNode(source)
                    .setTargetNode(target)
                    .setShardBytes(0) // unknown here; an agent aborts by migration id
                    .setMaxBytesPerSec(0)
                    .setRoutingEpoch(row.getRoutingEpoch())
                    .setIssuedAt(Instant.ofEpochMilli(now))
                    .build();
            context.forward(new Record<>(node, new MigratorOutput.Command(abort), now));
        }
    }

    private Map<Integer, List<String>> buildFromRing(String cluster, List<CapacityReading> readings, long now) {
        List<Node> nodes = new ArrayList<>();
        readings.stream().sorted((a, b) -> a.node().compareTo(b.node()))
                .forEach(r -> nodes.add(new Node(r.node(), r.rack(), 1.0)));
        SlotTable table = SlotTable.fromRing(HashRing.of(nodes, settings.vnodesPerUnit()), settings.candidates(), settings.slotCount());
        Map<Integer, List<String>> sets = new HashMap<>();
        for (int slot = 0; slot < table.slotCount(); slot++) {
            SlotAssignment row = SlotAssignment.newBuilder()
                    .setCluster(cluster)
                    .setSlot(slot)
                    .setRoutingEpoch(table.routingEpoch())
                    .setCandidates(table.candidateIds(slot))
                    .setUpdatedAt(Instant.ofEpochMilli(now))
                    .build();
            slots.put(slotStoreKey(cluster, slot), row);
            context.forward(new Record<>(slotKey(cluster, slot), new MigratorOutput.Assignment(row), now));
            sets.put(slot, List.copyOf(row.getCandidates()));
        }
        LOG.info("{}: built the slot table from the ring of {} nodes: {} slots, {} candidates each", cluster, nodes.size(),
                table.slotCount(), settings.candidates());
        return sets;
    }

    /** Key of a row in the slot-table topic (a public contract, so unchanged). */
    static String slotKey(String cluster, int slot) {
        return cluster + "/" + slot;
    }

    /** Key of a row in the slot-table store. */
    static String slotStoreKey(String cluster, int slot) {
        return storeKey(cluster, Integer.toString(slot));
    }

    static String storeKey(String cluster, String rest) {
        return clusterPrefix(cluster) + rest;
    }

    static String clusterPrefix(String cluster) {
        return cluster + SEP;
    }

    static String repairId(String cluster) {
        return cluster + "/repair";
    }

    private static StatusEvent statusEvent(MigrationStatus s) {
        return new StatusEvent(s.getMigrationId(), s.getNode(), s.getPhase(), s.getOutcome(), s.getBytesCopied(), s.getMessage(),
                s.getEventTime().toEpochMilli());
    }
}
