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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.metrics.Sensor;
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
 * <p>Stores: {@code repair} (cluster → state), {@code capacity} (cluster/node → latest
 * CapacityEvent), {@code reports} (cluster → latest SkewReport), {@code slot-table}
 * (cluster/slot → SlotAssignment, the table this app writes).
 */
final class CoordinatorProcessor implements Processor<String, MigratorInput, String, MigratorOutput> {

    static final String REPAIR_STORE = "repair";
    static final String CAPACITY_STORE = "capacity";
    static final String REPORT_STORE = "reports";
    static final String SLOT_STORE = "slot-table";

    /** Node named in the repair status records the migrator itself writes. */
    static final String MIGRATOR_NODE = "migrator";

    private static final Logger LOG = LoggerFactory.getLogger(CoordinatorProcessor.class);

    private final MigratorSettings settings;
    private final RepairCoordinator coordinator;
    private ProcessorContext<String, MigratorOutput> context;
    private KeyValueStore<String, RepairState> repairs;
    private KeyValueStore<String, CapacityEvent> capacity;
    private KeyValueStore<String, SkewReport> reports;
    private KeyValueStore<String, SlotAssignment> slots;
    private Sensor budget;
    private Sensor committed;
    private Sensor aborted;
    private Sensor switchStep;
    private Sensor stoppedEarly;
    /** Clusters seen in the repair store since {@link #init} (see {@link #remember}). */
    private final Set<String> known = new HashSet<>();

    CoordinatorProcessor(MigratorSettings settings) {
        this.settings = settings;
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
        this.budget = MigratorMetrics.budget(context);
        this.committed = MigratorMetrics.committed(context);
        this.aborted = MigratorMetrics.aborted(context);
        this.switchStep = MigratorMetrics.switchStep(context);
        this.stoppedEarly = MigratorMetrics.stoppedEarly(context);
        context.schedule(settings.tickInterval(), PunctuationType.WALL_CLOCK_TIME, this::tick);
    }

    @Override
    public void process(Record<String, MigratorInput> record) {
        MigratorInput input = record.value();
        if (input == null) {
            return;
        }
        String cluster = input.cluster();
        long now = context.currentSystemTimeMs();
        if (input instanceof MigratorInput.Capacity c) {
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
            result = coordinator.onCapacityConfirmed(state, alert.getValue(), now, view);
        } else if (input instanceof MigratorInput.Report r) {
            SkewReport report = r.value();
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
     * store (a JSON state) is read once per cluster after {@link #init}, not once per report: the
     * store never forgets a cluster, so what was seen there since stays true.
     */
    private void remember(String cluster) {
        if (known.add(cluster) && repairs.get(cluster) == null) {
            repairs.put(cluster, RepairState.fresh(cluster, settings.maxBytesPerSec()));
        }
    }

    private void tick(long now) {
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

    /** Carries out the effects and saves the state; {@code before} is the stored state the result came from (null: none). */
    private void apply(RepairState before, RepairCoordinator.Result result, long now) {
        RepairState state = result.state();
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
        String key = slotKey(row.getCluster(), row.getSlot());
        slots.put(key, row);
        context.forward(new Record<>(key, new MigratorOutput.Assignment(row), now));
    }

    private static void clearInFlight(SlotAssignment row) {
        row.setInFlightTarget(null);
        row.setInFlightSource(null);
        row.setMigrationId(null);
    }

    private SlotAssignment row(String cluster, int slot) {
        SlotAssignment row = slots.get(slotKey(cluster, slot));
        if (row == null) {
            throw new IllegalStateException("no slot-table row for slot " + slot + " of " + cluster);
        }
        return row;
    }

    private void keepLatest(CapacityEvent event) {
        String key = event.getCluster() + "/" + event.getNode();
        CapacityEvent known = capacity.get(key);
        if (known == null || !known.getEventTime().isAfter(event.getEventTime())) {
            capacity.put(key, event);
        }
    }

    /** The cluster's figures for a plan; builds and publishes the slot table from the ring on first need. */
    private ClusterView view(String cluster, long now) {
        List<CapacityReading> readings = new ArrayList<>();
        try (KeyValueIterator<String, CapacityEvent> it = capacity.prefixScan(cluster + "/", new StringSerializer())) {
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
        try (KeyValueIterator<String, SlotAssignment> it = slots.prefixScan(cluster + "/", new StringSerializer())) {
            while (it.hasNext()) {
                SlotAssignment row = it.next().value;
                sets.put(row.getSlot(), List.copyOf(row.getCandidates()));
            }
        }
        if (sets.isEmpty() && !readings.isEmpty()) {
            sets = buildFromRing(cluster, readings, now);
        }
        return new ClusterView(readings, heat, sets);
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
            slots.put(slotKey(cluster, slot), row);
            context.forward(new Record<>(slotKey(cluster, slot), new MigratorOutput.Assignment(row), now));
            sets.put(slot, List.copyOf(row.getCandidates()));
        }
        LOG.info("{}: built the slot table from the ring of {} nodes: {} slots, {} candidates each", cluster, nodes.size(),
                table.slotCount(), settings.candidates());
        return sets;
    }

    static String slotKey(String cluster, int slot) {
        return cluster + "/" + slot;
    }

    static String repairId(String cluster) {
        return cluster + "/repair";
    }

    private static StatusEvent statusEvent(MigrationStatus s) {
        return new StatusEvent(s.getMigrationId(), s.getNode(), s.getPhase(), s.getOutcome(), s.getBytesCopied(), s.getMessage(),
                s.getEventTime().toEpochMilli());
    }
}
