package io.skewguard.migrator;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.migrator.policy.CapacityReading;
import io.skewguard.migrator.policy.ClusterView;
import io.skewguard.migrator.policy.Effect;
import io.skewguard.migrator.policy.LostParticipants;
import io.skewguard.migrator.policy.Member;
import io.skewguard.migrator.policy.MembershipChanges;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.migrator.policy.Migration;
import io.skewguard.migrator.policy.MigrationState;
import io.skewguard.migrator.policy.RepairCoordinator;
import io.skewguard.migrator.policy.RepairState;
import io.skewguard.migrator.policy.SpreadPolicy;
import io.skewguard.migrator.policy.SpreadState;
import io.skewguard.migrator.policy.StatusEvent;
import io.skewguard.runtime.control.ClusterControls;
import io.skewguard.runtime.control.ControlRecords;
import io.skewguard.runtime.control.DecisionLog;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.ProposedMove;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import java.time.Duration;
import java.time.Instant;
import io.skewguard.runtime.metrics.DeadLetterCounter;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.runtime.streams.PoisonPills;
import io.skewguard.schemas.DeadLetter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
    static final String MEMBERSHIP_STORE = "membership";
    /** The operators' controls: key cluster, {@link #SEP}, the control key's rest ({@code pause}, {@code exclude/n7}). */
    static final String CONTROL_STORE = "controls";
    /** The app's name in the decision log and on proposals. */
    static final String APP = "migrator";
    /** Cluster → {@link SpreadState}: the slots the spread rule watches (docs/design.md §3.5). */
    static final String SPREAD_STORE = "spread";

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
    private final StoreMirror<CapacityEvent> capacity = new StoreMirror<>();
    private KeyValueStore<String, SkewReport> reports;
    private KeyValueStore<String, SlotAssignment> slots;
    /** {@link #rows}' copy of each cluster's slot table, dropped on every write of the cluster's rows and on init. */
    private final Map<String, List<MembershipChanges.Row>> rowCache = new HashMap<>();
    /** Per cluster, the spread rule's view of {@link #rowCache}'s rows and the capacities it was worked out from. */
    private final Map<String, SpreadStep.Writers> writersCache = new HashMap<>();
    private KeyValueStore<String, byte[]> published;
    private final StoreMirror<Member> members = new StoreMirror<>();
    private KeyValueStore<String, OperatorControl> controlStore;
    /** Each cluster's controls as folded from {@link #controlStore}, since {@link #init}. */
    private final Map<String, ClusterControls> controls = new HashMap<>();
    private DecisionLog decisionLog;
    private KeyValueStore<String, SpreadState> spreads;
    private final SpreadPolicy spreadPolicy;
    private Sensor budget;
    private Sensor committed;
    private Sensor aborted;
    private Sensor switchStep;
    private Sensor stoppedEarly;
    private Sensor deadLetters;
    /** Clusters seen in the repair store since {@link #init} (see {@link #remember}). */
    private final Set<String> known = new HashSet<>();
    /** Clusters whose slot table is in the {@code slot-table} store since {@link #init}. */
    private final Set<String> tabled = new HashSet<>();
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
        this.spreadPolicy = new SpreadPolicy(settings.spreadRule());
    }

    @Override
    public void init(ProcessorContext<String, MigratorOutput> context) {
        this.context = context;
        this.tabled.clear();
        this.known.clear(); // a re-initialised task may have restored less than this instance saw
        this.rowCache.clear(); // so may its slot table: an aborted transaction's rows are not in the store
        this.writersCache.clear();
        this.repairs = context.getStateStore(REPAIR_STORE);
        this.capacity.attach(context.getStateStore(CAPACITY_STORE));
        this.reports = context.getStateStore(REPORT_STORE);
        this.slots = context.getStateStore(SLOT_STORE);
        this.published = context.getStateStore(PUBLISHED_STORE);
        this.adoptedEpochs.clear();
        this.removedHere.clear();
        this.members.attach(context.getStateStore(MEMBERSHIP_STORE));
        this.controlStore = context.getStateStore(CONTROL_STORE);
        this.controls.clear();
        this.decisionLog = new DecisionLog(APP, settings.decisionInterval().toMillis());
        this.spreads = context.getStateStore(SPREAD_STORE);
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
        if (!tabled.contains(cluster)) {
            // a table on the topic is adopted before anything is decided: a capacity report is then
            // judged against it (member or joined), and a plan starts from its routing epoch and batch number
            if (hasTable(cluster) || !adopt(cluster, now).isEmpty()) {
                tabled.add(cluster);
            }
        }
        if (input instanceof MigratorInput.Capacity c) {
            if (refusedAsNewCluster(record, cluster) || refusedAsNewNode(record, c.value())) {
                return;
            }
            boolean first = capacity.get(cluster, c.value().getNode()) == null;
            keepLatest(c.value());
            remember(cluster);
            followCapacity(c.value(), first, now);
            return;
        }
        if (input instanceof MigratorInput.Membership m) {
            if (!refusedAsNewCluster(record, cluster)) {
                onOperator(record, m.value(), now);
            }
            return;
        }
        if (input instanceof MigratorInput.Control c) {
            if (!refusedAsNewCluster(record, cluster)) {
                onControl(record, c.value(), now);
            }
            return;
        }
        RepairState stored = repairs.get(cluster);
        RepairState state = stored != null ? stored : RepairState.fresh(cluster, settings.maxBytesPerSec());
        Supplier<ClusterView> view = () -> planView(cluster, now);
        RepairCoordinator.Result result;
        if (input instanceof MigratorInput.Alert a) {
            SkewAlert alert = a.value();
            if (alert.getKind() != AlertKind.CAPACITY || alert.getState() != AlertState.CONFIRMED) {
                return; // CLEARED does not stop a repair: it runs to the target CV
            }
            if (refusedAsNewCluster(record, cluster)) {
                return;
            }
            result = coordinator.onCapacityConfirmed(state, alert.getValue(), now, view, controlsOf(cluster));
        } else if (input instanceof MigratorInput.Report r) {
            SkewReport report = r.value();
            if (refusedAsNewCluster(record, cluster)) {
                return;
            }
            reports.put(cluster, report);
            double seconds = Duration.between(report.getWindowStart(), report.getWindowEnd()).toMillis() / 1000.0;
            result = coordinator.onReport(state, report.getTotalWriteBytes() / seconds, report.getCapacityCv(),
                    report.getWindowEnd().toEpochMilli(), now, view, controlsOf(cluster));
            budget.record(result.state().budgetBytesPerSec());
            if (result.effects().stream().noneMatch(e -> e instanceof Effect.Decide)) {
                result = new RepairCoordinator.Result(result.state(), withWatch(result, report));
            }
        } else if (input instanceof MigratorInput.Status s) {
            MigrationStatus status = s.value();
            if (status.getMigrationId().equals(repairId(cluster)) || stored == null) {
                return; // our own repair status, or a cluster we never planned for
            }
            result = coordinator.onStatus(state, statusEvent(status), now, view, controlsOf(cluster));
        } else {
            return;
        }
        apply(stored, result, now);
        if (input instanceof MigratorInput.Report r && hasTable(cluster)) {
            spread(cluster, r.value(), now);
        }
    }

    /**
     * The spread rule on a report (docs/design.md §3.5): the slots it spreads, widens or narrows are
     * published as one slot-table update (routing epoch + 1), each row with its reason. No data moves.
     */
    private void spread(String cluster, SkewReport report, long now) {
        SpreadState before = spreads.get(cluster);
        Map<String, Long> totals = new HashMap<>();
        for (CapacityEvent e : capacity.values(cluster)) {
            if (planned(cluster, e.getNode())) {
                totals.put(e.getNode(), e.getTotalBytes());
            }
        }
        Members live = members(cluster);
        ClusterControls c = controlsOf(cluster);
        Set<String> eligible = new HashSet<>(live.eligible());
        eligible.removeIf(c::excludes); // an excluded node takes no new data, as it is no migration target
        long[] heat = report.getSlotHeat().stream().mapToLong(Long::longValue).toArray();
        List<MembershipChanges.Row> rows = rows(cluster);
        SpreadStep.Writers writers = writersCache.get(cluster);
        if (writers == null || !writers.sameInputs(rows, totals)) {
            writers = SpreadStep.Writers.of(cluster, rows, totals);
            writersCache.put(cluster, writers);
        }
        SpreadStep.Result result = SpreadStep.decide(cluster, spreadPolicy, before == null ? SpreadState.empty() : before,
                report.getWindowEnd().toEpochMilli(), heat, writers, live.racks(), eligible,
                settings.slotCount(), settings.vnodesPerUnit());
        if (!result.changed().isEmpty() && (c.paused() || c.dryRun())) {
            // paused or in dry run, the slot table does not change: the decision is logged, the watch kept as it
            // was, so that the same decision comes again on the next report and is carried out once resumed
            RepairState state = repairs.get(cluster);
            for (MembershipChanges.Row r : result.changed().values()) {
                decide(state, false, c.paused() ? "PAUSED" : "DRY_RUN", (c.paused() ? "paused, not carried out: " : "dry run, not carried out: ")
                        + r.spreadReason(), spreadFigures(r), now);
            }
            return;
        }
        if (before != null || !result.state().slots().isEmpty()) {
            spreads.put(cluster, result.state());
        }
        if (!result.changed().isEmpty()) {
            step(cluster, now, state -> {
                RepairState next = publishUpdate(cluster, result.changed(), state, now);
                LOG.info("{}: spread of {} slot(s) changed at routing epoch {}", cluster, result.changed().size(), next.routingEpoch());
                for (MembershipChanges.Row r : result.changed().values()) {
                    decide(next, true, r.spread().isEmpty() ? "NARROWED" : "SPREAD", r.spreadReason(), spreadFigures(r), now);
                }
                return new RepairCoordinator.Result(next, List.of());
            });
        }
    }

    private static Map<String, Double> spreadFigures(MembershipChanges.Row r) {
        Map<String, Double> figures = new java.util.LinkedHashMap<>();
        figures.put("slot", (double) r.slot());
        figures.put("spreadNodes", (double) r.spread().size());
        figures.put("heldNodes", (double) r.held().size());
        return figures;
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
            RepairState current = answerForGoneNodes(state, now);
            if (current.batch() != null) {
                apply(current, coordinator.onTick(current, now, () -> planView(current.cluster(), now), controlsOf(current.cluster())), now);
            }
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
        if (capacity.get(event.getCluster(), event.getNode()) != null) {
            return false;
        }
        long held = capacity.size(event.getCluster());
        return limits.overNodes(event.getCluster(), event.getNode(), held).map(reason -> refuse(record, reason)).orElse(false);
    }

    private boolean refuse(Record<String, MigratorInput> record, String reason) {
        String topic = header(record, DeadLetter.SOURCE_TOPIC, "?");
        int partition = Integer.parseInt(header(record, DeadLetter.SOURCE_PARTITION, "-1"));
        long offset = Long.parseLong(header(record, DeadLetter.SOURCE_OFFSET, "-1"));
        LOG.warn("dead-lettering {}-{}@{}: {}", topic, partition, offset, reason);
        deadLetters.record();
        DeadLetterCounter.count(reason);
        MigratorInput input = record.value();
        byte[] value;
        if (input instanceof MigratorInput.Capacity c) {
            value = serdes.capacity().serializer().serialize(topic, c.value());
        } else if (input instanceof MigratorInput.Report r) {
            value = serdes.report().serializer().serialize(topic, r.value());
        } else if (input instanceof MigratorInput.Alert a) {
            value = serdes.alert().serializer().serialize(topic, a.value());
        } else if (input instanceof MigratorInput.Membership m) {
            value = serdes.membership().serializer().serialize(topic, m.value());
        } else if (input instanceof MigratorInput.Control c) {
            value = serdes.control().serializer().serialize(topic, c.value());
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
            boolean autoLoss = settings.autoLoss();
            Set<String> busy = new HashSet<>();
            if (state.batch() != null) {
                for (Migration m : state.batch().migrations()) {
                    busy.add(m.source());
                    busy.add(m.target());
                }
            }
            Set<String> gone = new HashSet<>();
            int left = 0;
            for (CapacityEvent e : capacity.values(cluster)) {
                // with auto-loss a member in a running batch is lost too: the batch stops waiting for it
                if (limits.expired(e.getEventTime().toEpochMilli(), now) && (!busy.contains(e.getNode())
                        || autoLoss && planned(cluster, e.getNode()))) {
                    gone.add(e.getNode());
                } else {
                    left++;
                }
            }
            Set<String> silent = autoLoss ? silentMembers(cluster, now) : Set.of();
            for (String node : silent) {
                leave(cluster, node, Member.Standing.LOST, "lost: named in the slot table but no capacity report for "
                        + io.skewguard.runtime.settings.Durations.format(limits.nodeExpiry()), now);
            }
            for (String node : new java.util.TreeSet<>(gone)) {
                if (autoLoss && planned(cluster, node)) {
                    leave(cluster, node, Member.Standing.LOST, "lost: no capacity report for "
                            + io.skewguard.runtime.settings.Durations.format(limits.nodeExpiry()), now);
                }
                capacity.delete(cluster, node);
                LOG.info("{}: node {} sent no capacity report for {}; removed from the migrator's state",
                        cluster, node, limits.nodeExpiry());
            }
            state = repairs.get(cluster); // a loss changed it
            if (left == 0 && state.batch() == null) {
                removeCluster(cluster, now);
            } else if (!gone.isEmpty()) {
                repairs.put(cluster, state.withoutMovesOf(gone));
            }
        }
    }

    /**
     * Members named in the cluster's slot table that never sent this migrator a capacity report (a
     * table adopted from the topic names nodes that may have failed before this deployment started):
     * silent from the sweep that first sees them on, and lost after {@code node-expiry} of it.
     */
    private Set<String> silentMembers(String cluster, long now) {
        Set<String> named = new java.util.TreeSet<>();
        for (MembershipChanges.Row row : rows(cluster)) {
            named.addAll(row.candidates());
        }
        Set<String> silent = new java.util.TreeSet<>();
        for (String node : named) {
            if (capacity.get(cluster, node) != null) {
                continue;
            }
            Member m = members.get(cluster, node);
            if (m == null) {
                members.put(cluster, node, Member.active(node, null, now)); // silent from now on
            } else if (m.standing().planned() && limits.expired(m.since(), now)) {
                silent.add(node);
            }
        }
        return silent;
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
        tabled.remove(cluster);
        members.deleteAll(cluster);
        reports.delete(cluster);
        spreads.delete(cluster);
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
        try (KeyValueIterator<String, CapacityEvent> it = capacity.store().all()) {
            while (it.hasNext()) {
                KeyValue<String, CapacityEvent> kv = it.next();
                if (!kv.key.equals(storeKey(kv.value.getCluster(), kv.value.getNode()))) {
                    capacityRows.put(kv.key, kv.value);
                }
            }
        }
        capacityRows.keySet().forEach(capacity.store()::delete);
        capacity.forget();
        capacityRows.values().forEach(this::keepLatest);
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
            putSlot(row.getCluster(), row.getSlot(), row);
        });
        rowCache.clear();
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
        Effect.Propose proposal = null;
        for (Effect effect : result.effects()) {
            if (effect instanceof Effect.Propose p) {
                proposal = p; // published with the decision that follows it, when that one is due
                continue;
            }
            if (effect instanceof Effect.Decide d) {
                if (decide(state, d.acted(), d.reason(), d.message(), d.figures(), now) && proposal != null) {
                    propose(state, proposal, now);
                }
                proposal = null;
                continue;
            }
            if (effect instanceof Effect.MarkInFlight e) {
                Migration m = e.migration();
                publish(row(state.cluster(), m.slot()), now, row -> row.setInFlightTarget(m.target()),
                        row -> row.setInFlightSource(m.source()), row -> row.setMigrationId(m.id()));
            } else if (effect instanceof Effect.ClearInFlight e) {
                publish(row(state.cluster(), e.migration().slot()), now, CoordinatorProcessor::clearInFlight);
            } else if (effect instanceof Effect.SwitchSlot e) {
                Migration m = e.migration();
                long epoch = state.routingEpoch() + 1;
                state = state.withRoutingEpoch(epoch).withSwitchEpoch(m.id(), epoch);
                SlotAssignment row = row(state.cluster(), m.slot());
                List<String> candidates = new ArrayList<>(row.getCandidates());
                int at = candidates.indexOf(m.source());
                if (at < 0 && (row.getSpread().contains(m.source()) || row.getSpreadHeld().contains(m.source()))) {
                    // a draining node's spread or held shard: the target holds it in its place (docs/design.md §3.5)
                    List<String> spread = new ArrayList<>(row.getSpread());
                    List<String> held = new ArrayList<>(row.getSpreadHeld());
                    boolean inSpread = spread.contains(m.source());
                    List<String> list = inSpread ? spread : held;
                    list.set(list.indexOf(m.source()), m.target());
                    publish(row, now, r -> r.setSpread(spread), r -> r.setSpreadHeld(held), r -> r.setRoutingEpoch(epoch),
                            r -> r.setSpreadReason("node " + m.source() + " draining: its " + (inSpread ? "spread" : "held")
                                    + " shard moved to " + m.target() + " (" + m.id() + ")"), CoordinatorProcessor::clearInFlight);
                    committed.record();
                    switched = true;
                    LOG.info("{}: switched the {} shard of slot {} from {} to {} at routing epoch {}", state.cluster(),
                            inSpread ? "spread" : "held", m.slot(), m.source(), m.target(), epoch);
                    continue;
                }
                if (at < 0) {
                    // the table changed under the migration: nothing else writes it, so this is a bug
                    throw new IllegalStateException("slot " + m.slot() + " of " + state.cluster() + " no longer names " + m.source());
                }
                candidates.set(at, m.target());
                // a draining source leaves the set, so its read-only mark goes with it; a target is never a
                // spread or held node of the slot (the plan sees them in the set), but if it were, it is a candidate now
                List<String> readOnly = new ArrayList<>(row.getReadOnly());
                readOnly.remove(m.source());
                List<String> spread = new ArrayList<>(row.getSpread());
                List<String> held = new ArrayList<>(row.getSpreadHeld());
                spread.remove(m.target());
                held.remove(m.target());
                publish(row, now, r -> r.setCandidates(candidates), r -> r.setReadOnly(readOnly), r -> r.setSpread(spread),
                        r -> r.setSpreadHeld(held), r -> r.setRoutingEpoch(epoch), CoordinatorProcessor::clearInFlight);
                committed.record();
                switched = true;
                LOG.info("{}: switched slot {} from {} to {} at routing epoch {}", state.cluster(), m.slot(), m.source(), m.target(), epoch);
            } else if (effect instanceof Effect.SendCommand e) {
                context.forward(new Record<>(e.node(), new MigratorOutput.Command(command(state, e, now)), now));
                MigratorSeries.command(state.cluster(), e.phase());
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
        MigratorSeries.repair(before, state);
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
                .setRoutingEpoch(e.phase() == MigrationPhase.COMMIT || e.phase() == MigrationPhase.CLEANUP
                        ? switchEpoch(state, m) : row(state.cluster(), m.slot()).getRoutingEpoch())
                .setIssuedAt(Instant.ofEpochMilli(now))
                .build();
    }

    /**
     * The routing epoch a COMMIT or CLEANUP names: the switch's, which the agent checks them against.
     * Not the row's: a membership update (a drain's read-only mark, a replacement) may have raised it
     * since the switch. The row's only for a state saved before the switch's epoch was kept.
     */
    private long switchEpoch(RepairState state, Migration m) {
        long epoch = MigrationState.switchEpochOf(m.state());
        if (epoch == MigrationState.UNKNOWN_EPOCH && state.batch() != null) {
            epoch = state.batch().find(m.id()).map(x -> MigrationState.switchEpochOf(x.state())).orElse(MigrationState.UNKNOWN_EPOCH);
        }
        return epoch != MigrationState.UNKNOWN_EPOCH ? epoch : row(state.cluster(), m.slot()).getRoutingEpoch();
    }

    /** Writes a changed copy of a slot-table row to the store and the compacted topic. */
    @SafeVarargs
    private void publish(SlotAssignment current, long now, Consumer<SlotAssignment>... changes) {
        SlotAssignment row = SlotAssignment.newBuilder(current).build();
        for (Consumer<SlotAssignment> change : changes) {
            change.accept(row);
        }
        row.setUpdatedAt(Instant.ofEpochMilli(now));
        putSlot(row.getCluster(), row.getSlot(), row);
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
        CapacityEvent known = capacity.get(event.getCluster(), event.getNode());
        if (known == null || !known.getEventTime().isAfter(event.getEventTime())) {
            capacity.put(event.getCluster(), event.getNode(), event);
        }
    }

    /**
     * The cluster's figures for a plan. Without a slot table in its store the coordinator adopts the
     * one on the topic ({@link #adopt}) and builds one from the ring only for a cluster that has no
     * rows there.
     */
    private ClusterView view(String cluster, long now) {
        List<CapacityReading> readings = new ArrayList<>();
        for (CapacityEvent e : capacity.values(cluster)) {
            Map<Integer, Long> shards = new HashMap<>();
            for (ShardUsage s : e.getShards()) {
                shards.merge(s.getSlot(), s.getUsedBytes(), Long::sum);
            }
            readings.add(new CapacityReading(e.getNode(), e.getUsedBytes(), e.getTotalBytes(), e.getRack(), shards,
                    e.getEventTime().toEpochMilli()));
        }
        SkewReport report = reports.get(cluster);
        long[] heat = report == null ? new long[0] : report.getSlotHeat().stream().mapToLong(Long::longValue).toArray();
        Map<Integer, List<String>> sets = new HashMap<>();
        Map<String, Set<Integer>> spreadShards = new HashMap<>();
        try (KeyValueIterator<String, SlotAssignment> it = slots.prefixScan(clusterPrefix(cluster), new StringSerializer())) {
            while (it.hasNext()) {
                SlotAssignment row = it.next().value;
                if (row.getSpread().isEmpty() && row.getSpreadHeld().isEmpty()) {
                    sets.put(row.getSlot(), List.copyOf(row.getCandidates()));
                    continue;
                }
                // a slot's spread and held nodes are in the set the plan sees, so that no migration targets one
                // (an aborted copy would drop what it received); their shards of it are no migration's source
                // (they stay where they were written, docs/design.md §3.5), but a draining node's: a drain moves
                // everything the node holds, and its switch replaces it in the list that names it
                List<String> holders = new ArrayList<>(row.getCandidates());
                for (String node : concat(row.getSpread(), row.getSpreadHeld())) {
                    holders.add(node);
                    spreadShards.computeIfAbsent(node, n -> new HashSet<>()).add(row.getSlot());
                }
                sets.put(row.getSlot(), List.copyOf(holders));
            }
        }
        if (!spreadShards.isEmpty()) {
            List<CapacityReading> planned = new ArrayList<>();
            for (CapacityReading r : readings) {
                Set<Integer> out = spreadShards.get(r.node());
                Member member = members.get(cluster, r.node());
                if (out == null || member != null && member.standing() == Member.Standing.DRAINING) {
                    planned.add(r);
                } else {
                    Map<Integer, Long> shards = new HashMap<>(r.shardBytes());
                    shards.keySet().removeAll(out);
                    planned.add(new CapacityReading(r.node(), r.usedBytes(), r.totalBytes(), r.rack(), shards, r.eventTime()));
                }
            }
            readings = planned;
        }
        if (sets.isEmpty()) {
            sets = adopt(cluster, now);
        }
        if (sets.isEmpty() && !readings.isEmpty()) {
            List<String> unread = capacityNotReadYet(report, readings);
            if (!unread.isEmpty()) {
                // the detector has read capacity reports this task has not (its input lags, e.g. at a start on a
                // backlog): a table built now would leave those nodes out, while writers start from the ring of
                // every node, so their keys would sit on nodes no candidate set names. The plan waits for them.
                if (waitingForCapacity.add(cluster)) {
                    LOG.info("{}: the slot table waits for the capacity reports of {}, which the latest report counts", cluster,
                            unread);
                }
                return new ClusterView(List.of(), heat, sets);
            }
            waitingForCapacity.remove(cluster);
            sets = buildFromRing(cluster, readings, now);
        }
        return new ClusterView(readings, heat, sets);
    }

    /** Clusters whose first slot table waits for capacity reports (logged once per wait). */
    private final Set<String> waitingForCapacity = new HashSet<>();

    /** The nodes {@code report} has capacity figures of (the detector read their reports) that {@code readings} lack. */
    static List<String> capacityNotReadYet(SkewReport report, List<CapacityReading> readings) {
        if (report == null) {
            return List.of();
        }
        Set<String> read = new HashSet<>();
        readings.forEach(r -> read.add(r.node()));
        List<String> unread = new ArrayList<>();
        for (NodeFigures n : report.getNodes()) {
            if (n.getTotalBytes() > 0 && !read.contains(n.getNode())) {
                unread.add(n.getNode());
            }
        }
        return unread;
    }

    private boolean readOnlyInTable(String cluster, String node) {
        for (MembershipChanges.Row row : rows(cluster)) {
            if (row.readOnly().contains(node)) {
                return true;
            }
        }
        return false;
    }

    private boolean namedInTable(String cluster, String node) {
        for (MembershipChanges.Row row : rows(cluster)) {
            if (row.candidates().contains(node)) {
                return true;
            }
        }
        return false;
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
                putSlot(cluster, row.getSlot(), row);
            }
        }
        // saved now as well as in apply: the table is in the store from here on, and a switch must
        // never start again from epoch 0 even if this input ends up dead-lettered
        // batch numbers go on from the clock in seconds: the deployment before this one numbered its
        // batches from 1 as well, and an agent remembers finished migrations by id for days; a new
        // migration under an old id could be answered from that memory
        repairs.put(cluster, state.withRoutingEpoch(Math.max(state.routingEpoch(), epoch))
                .withBatchSeq(Math.max(state.batchSeq(), now / 1000)));
        if (stored == null && clusterCount >= 0) {
            clusterCount++;
        }
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
            MigratorSeries.command(abort.getCluster(), MigrationPhase.ABORT);
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
            putSlot(cluster, slot, row);
            context.forward(new Record<>(slotKey(cluster, slot), new MigratorOutput.Assignment(row), now));
            sets.put(slot, List.copyOf(row.getCandidates()));
        }
        LOG.info("{}: built the slot table from the ring of {} nodes: {} slots, {} candidates each", cluster, nodes.size(),
                table.slotCount(), settings.candidates());
        return sets;
    }

    // ---------------------------------------------------------------- operator control (docs/operations.md, "Operator control")

    /** The cluster's controls as they stand: folded once per cluster from the store, then kept in step with it. */
    private ClusterControls controlsOf(String cluster) {
        ClusterControls c = controls.get(cluster);
        if (c == null) {
            List<OperatorControl> records = new ArrayList<>();
            try (KeyValueIterator<String, OperatorControl> it = controlStore.prefixScan(clusterPrefix(cluster), new StringSerializer())) {
                while (it.hasNext()) {
                    records.add(it.next().value);
                }
            }
            c = ClusterControls.of(records);
            controls.put(cluster, c);
        }
        return c;
    }

    /**
     * An operator's control record (checked by the decoder): taken into the store, put in the
     * decision log, and acted on at once ({@link RepairCoordinator#onControls}: a throttle re-rates
     * the running copies, a resume starts what was held). A throttle below the budget's floor is
     * refused (dead letter, decision CONTROL_REFUSED): the control keeps its setting.
     */
    private void onControl(Record<String, MigratorInput> record, OperatorControl c, long now) {
        String cluster = c.getCluster();
        String who = c.getOperator() + (c.getReason() == null || c.getReason().isBlank() ? "" : " (\"" + c.getReason() + "\")");
        RepairState stored = repairs.get(cluster);
        RepairState state = stored != null ? stored : RepairState.fresh(cluster, settings.maxBytesPerSec());
        if (c.getControl() == ControlKind.THROTTLE && c.getEnabled() && c.getBytesPerSec() < settings.throttleFloor()) {
            String reason = "invalid: throttle " + c.getBytesPerSec() + " B/s (" + ClusterControls.rate(c.getBytesPerSec())
                    + ") is below the budget's floor " + settings.throttleFloor() + " B/s (" + ClusterControls.rate(settings.throttleFloor())
                    + ", budget-floor × max-bytes-per-sec)";
            refuse(record, reason);
            decide(state, false, "CONTROL_REFUSED", "throttle of " + who + " refused: " + reason.substring("invalid: ".length())
                    + "; the budget stays " + (controlsOf(cluster).throttled() ? ClusterControls.rate(controlsOf(cluster).throttleBytesPerSec())
                    : "auto"), Map.of(), now);
            return;
        }
        ClusterControls before = controlsOf(cluster);
        String key = ControlRecords.key(cluster, c.getControl(), c.getNode());
        controlStore.put(storeKey(cluster, key.substring(cluster.length() + 1)), c);
        ClusterControls after = before.with(c);
        controls.put(cluster, after);
        String what = switch (c.getControl()) {
            case DRY_RUN -> c.getEnabled() ? "dry run on: plans are proposed, no batch starts" : "dry run off: plans run again";
            case PAUSE -> c.getEnabled() ? "paused: no new batch; running copies finish their step and hold before their switch"
                    : "resumed: held switches and plans go on";
            case THROTTLE -> c.getEnabled() ? "throttle " + ClusterControls.rate(c.getBytesPerSec()) + ": the budget is fixed"
                    : "throttle auto: the budget follows the write load again";
            case EXCLUDE -> (c.getEnabled() ? "node " + c.getNode() + " excluded: never a migration source or target"
                    : "node " + c.getNode() + " included again");
        };
        LOG.info("{}: {} by {}", cluster, what, who);
        decide(state, false, "CONTROL", what + " (by " + who + "); controls now: " + after.describe(), Map.of(), now);
        if (stored == null) {
            return; // nothing runs for a cluster this migrator has no state of
        }
        apply(stored, coordinator.onControls(stored, before, after, now, () -> planView(cluster, now)), now);
    }

    /**
     * The decision of a report that no planning step explained: a running batch's progress (held
     * while paused, slowed when the budget is at its floor), or why no repair runs.
     */
    private List<Effect> withWatch(RepairCoordinator.Result result, SkewReport report) {
        RepairState state = result.state();
        ClusterControls c = controlsOf(state.cluster());
        List<Effect> effects = new ArrayList<>(result.effects());
        Map<String, Double> figures = Map.of("capacityCv", report.getCapacityCv());
        if (state.batch() != null) {
            long held = state.batch().migrations().stream().filter(m -> m.state() instanceof MigrationState.Copied).count();
            long copying = state.batch().migrations().stream().filter(m -> m.state() instanceof MigrationState.Copying).count();
            String progress = String.format(java.util.Locale.ROOT, "batch %s: %d migration%s, %d copying, %d complete; budget %s",
                    state.batch().batchId(), state.batch().migrations().size(), state.batch().migrations().size() == 1 ? "" : "s",
                    copying, held, ClusterControls.rate(state.budgetBytesPerSec()));
            if (c.paused() && state.batch().phase() instanceof io.skewguard.migrator.policy.BatchPhase.Copying) {
                effects.add(new Effect.Decide(false, "PAUSED", "paused by an operator: " + progress + "; complete copies hold before "
                        + "their switch", figures));
            } else if (!c.throttled() && state.budgetBytesPerSec() <= settings.throttleFloor() && copying > 0) {
                effects.add(new Effect.Decide(false, "BUDGET_AT_FLOOR", progress + ": the write load is at its peak, so copies "
                        + "yield to writes at the budget's floor", figures));
            } else {
                effects.add(new Effect.Decide(true, "BATCH_RUNNING", progress, figures));
            }
        } else if (!state.repairing()) {
            boolean cooling = report.getCapacityState() == AlertState.OBSERVING;
            effects.add(new Effect.Decide(false, cooling ? "COOLDOWN" : "BELOW_THRESHOLD", cooling
                    ? String.format(java.util.Locale.ROOT, "capacity CV %.4f is above the CAPACITY threshold; the alert is OBSERVING and "
                            + "a repair starts once it is CONFIRMED after the cooldown", report.getCapacityCv())
                    : String.format(java.util.Locale.ROOT, "no repair: the CAPACITY alert is %s (capacity CV %.4f)%s", report.getCapacityState(),
                            report.getCapacityCv(), state.maintenanceLevel() > 0 ? String.format(java.util.Locale.ROOT,
                                    "; a maintenance repair starts above %.4f", state.maintenanceLevel()) : ""), figures));
        }
        return effects;
    }

    /** Publishes a decision of {@code state}'s cluster, with the cluster's figures, when the log says it is due; true if it did. */
    private boolean decide(RepairState state, boolean acted, String reason, String message, Map<String, Double> extra, long now) {
        Map<String, Double> figures = new java.util.LinkedHashMap<>(extra);
        SkewReport report = reports.get(state.cluster());
        if (report != null) {
            figures.putIfAbsent("capacityCv", report.getCapacityCv());
        }
        ClusterControls c = controlsOf(state.cluster());
        figures.put("targetCv", settings.targetCv());
        figures.put("routingEpoch", (double) state.routingEpoch());
        figures.put("budgetBytesPerSec", (double) state.budgetBytesPerSec());
        figures.put("throttleBytesPerSec", (double) c.throttleBytesPerSec());
        figures.put("budgetFloorBytesPerSec", (double) settings.throttleFloor());
        figures.put("repairing", state.repairing() ? 1.0 : 0.0);
        figures.put("bytesMoved", (double) state.bytesMoved());
        figures.put("batchesCommitted", (double) state.batchesCommitted());
        figures.put("batchesAborted", (double) state.batchesAborted());
        Map<String, Double> phases = new java.util.TreeMap<>();
        for (String phase : List.of("copying", "copied", "preparing", "committing", "cleaningUp", "aborting")) {
            phases.put("migrations." + phase, 0.0);
        }
        if (state.batch() != null) {
            for (Migration m : state.batch().migrations()) {
                String name = m.state().getClass().getSimpleName();
                String phase = switch (name) {
                    case "Copying", "CopyFailed" -> "copying";
                    case "Copied" -> "copied";
                    case "Preparing", "Prepared" -> "preparing";
                    case "Committing" -> "committing";
                    case "CleaningUp" -> "cleaningUp";
                    case "Aborting" -> "aborting";
                    default -> null; // cleaned and aborted: over
                };
                if (phase != null) {
                    phases.merge("migrations." + phase, 1.0, Double::sum);
                }
            }
        }
        figures.putAll(phases);
        Optional<Decision> d = decisionLog.decide(state.cluster(), acted, reason, message, figures, now);
        d.ifPresent(decision -> context.forward(new Record<>(state.cluster(), new MigratorOutput.Decision(decision), now)));
        return d.isPresent();
    }

    /** Publishes a dry run's plan. */
    private void propose(RepairState state, Effect.Propose p, long now) {
        List<ProposedMove> moves = new ArrayList<>();
        for (io.skewguard.migrator.policy.Move m : p.plan().moves()) {
            moves.add(new ProposedMove(m.slot(), m.source(), m.target(), m.bytes()));
        }
        Proposal proposal = Proposal.newBuilder()
                .setCluster(state.cluster())
                .setApp(APP)
                .setMoves(moves)
                .setMetric("capacity CV")
                .setCurrent(p.plan().currentCv())
                .setExpected(p.plan().projectedCv())
                .setBytesToMove(p.plan().bytesMoved())
                .setFirstBatch(p.firstBatch().size())
                .setProposedAt(Instant.ofEpochMilli(now))
                .build();
        context.forward(new Record<>(state.cluster(), new MigratorOutput.Proposal(proposal), now));
    }

    // ---------------------------------------------------------------- membership (docs/migrator.md, "Membership")

    /** The view a plan is made from: only nodes that are members (or never had a record), draining ones marked. */
    private ClusterView planView(String cluster, long now) {
        ClusterView v = view(cluster, now);
        Set<String> draining = new HashSet<>();
        Set<String> left = new HashSet<>();
        for (Member m : members.values(cluster)) {
            if (m.standing() == Member.Standing.DRAINING) {
                draining.add(m.node());
            } else if (!m.standing().planned()) {
                left.add(m.node());
            }
        }
        return v.planning(node -> !left.contains(node), draining, controlsOf(cluster).excluded());
    }

    /** True when {@code node} counts in plans: a member, or a node from before membership was kept. */
    private boolean planned(String cluster, String node) {
        Member m = members.get(cluster, node);
        return m == null || m.standing().planned();
    }

    /** A node's first capacity report may be a join; a draining node's report may end its drain. */
    private void followCapacity(CapacityEvent event, boolean first, long now) {
        String cluster = event.getCluster();
        String node = event.getNode();
        Member m = members.get(cluster, node);
        if (first && (m == null || m.standing() == Member.Standing.LOST)) {
            if (!hasTable(cluster) || m == null && namedInTable(cluster, node)) {
                members.put(cluster, node, Member.active(node, event.getRack(), now));
                if (readOnlyInTable(cluster, node)) {
                    // an adopted table in the middle of a drain: the operator's DRAINING record is the
                    // node's latest on the compacted membership topic, and this input brings it again;
                    // an ACTIVE of ours would replace it there, and a later migrator without state
                    // would never learn of the drain (its read-only marks would stay for good)
                    LOG.info("{}: node {} is read-only in the slot table: a member being drained; its operator record stands",
                            cluster, node);
                } else {
                    publishMembership(cluster, node, MembershipState.ACTIVE, event.getRack(), event.getTotalBytes(),
                            hasTable(cluster) ? "member: named in the slot table"
                                    : "member: reported capacity before the slot table was built", null, now);
                }
            } else if (settings.autoJoin()) {
                String reason = "joined: first capacity report" + (event.getRack() == null ? "" : ", rack " + event.getRack())
                        + ", " + MembershipChanges.bytes(event.getTotalBytes()) + " capacity";
                LOG.info("{}: node {} {}", cluster, node, reason);
                members.put(cluster, node, Member.active(node, event.getRack(), now));
                publishMembership(cluster, node, MembershipState.ACTIVE, event.getRack(), event.getTotalBytes(), reason, null, now);
                step(cluster, now, state -> coordinator.startRepair(state, "repair started: node " + node + " joined", now,
                        () -> planView(cluster, now), controlsOf(cluster)));
            } else {
                LOG.warn("{}: node {} reports capacity but is not a member (auto-join is off): left out of plans until an "
                        + "operator adds it", cluster, node);
                members.put(cluster, node, new Member(node, Member.Standing.WAITING, event.getRack(), now, 0, 0, 0));
            }
        } else if (m != null && m.standing() == Member.Standing.DRAINING) {
            finishDrainIfDone(cluster, m, now);
        }
        if (first) {
            resumeDrains(cluster, now);
        }
    }

    /**
     * Starts a repair for a drain whose node still holds bytes in sets naming it when none runs:
     * its repair may have ended before this state had the figures it needs (a migrator without
     * state reads the operator's DRAINING and the capacity reports in no fixed order, and a plan
     * without the draining node's report, or without a node to move to, has no move). Called on a
     * node's first report, so at most once per node and state.
     */
    private void resumeDrains(String cluster, long now) {
        RepairState state = repairs.get(cluster);
        if (state == null || state.repairing() || !hasTable(cluster)) {
            return;
        }
        List<MembershipChanges.Row> rows = rows(cluster);
        List<Member> pending = new ArrayList<>();
        for (Member m : members.values(cluster)) {
            if (m.standing() == Member.Standing.DRAINING) {
                pending.add(m);
            }
        }
        for (Member m : pending) {
            Map<Integer, Long> held = MembershipChanges.held(m.node(), reading(cluster, m.node()), rows);
            int shards = (int) held.values().stream().filter(b -> b > 0).count();
            long bytes = held.values().stream().mapToLong(Long::longValue).sum();
            if (shards == 0) {
                continue;
            }
            if (m.drainShards() == 0) { // counted now, for the DRAINED reason
                members.put(cluster, m.node(), new Member(m.node(), m.standing(), m.rack(), m.since(), m.drainMarkedAt(),
                        shards, bytes));
            }
            step(cluster, now, s -> coordinator.startRepair(s, "repair started: node " + m.node() + " draining (" + shards + " shards, "
                    + MembershipChanges.bytes(bytes) + " to move)", now, () -> planView(cluster, now), controlsOf(cluster)));
        }
    }

    /** An operator's ACTIVE (add, or cancel a drain), DRAINING or REMOVED. */
    private void onOperator(Record<String, MigratorInput> record, NodeMembership request, long now) {
        String cluster = request.getCluster();
        String node = request.getNode();
        Member m = members.get(cluster, node);
        boolean known = m != null || capacity.get(cluster, node) != null || rows(cluster).stream().anyMatch(r -> r.candidates().contains(node));
        if (request.getState() != MembershipState.ACTIVE && !known) {
            refuse(record, "invalid: node " + DeadLetter.quote(node) + " is not a node of cluster " + DeadLetter.quote(cluster)
                    + " (no capacity report, membership or candidate set names it): cannot set it " + request.getState());
            return;
        }
        Member.Standing standing = m == null ? Member.Standing.ACTIVE : m.standing();
        switch (request.getState()) {
            case ACTIVE -> {
                if (m != null && standing == Member.Standing.DRAINING) {
                    cancelDrain(cluster, m, now);
                } else if (m == null || standing != Member.Standing.ACTIVE) {
                    String rack = request.getRack() != null ? request.getRack() : m != null ? m.rack() : null;
                    members.put(cluster, node, Member.active(node, rack, now));
                    LOG.info("{}: node {} added by an operator (was {})", cluster, node, m == null ? "unknown" : standing);
                    if (capacity.get(cluster, node) != null && hasTable(cluster)) {
                        step(cluster, now, state -> coordinator.startRepair(state, "repair started: node " + node
                                + " added by an operator", now, () -> planView(cluster, now), controlsOf(cluster)));
                    }
                }
            }
            case DRAINING -> {
                if (standing == Member.Standing.ACTIVE || standing == Member.Standing.WAITING) {
                    startDrain(cluster, node, m, now);
                } else {
                    LOG.info("{}: drain of node {} ignored: it is {}", cluster, node, standing);
                }
            }
            case REMOVED -> {
                if (standing == Member.Standing.LOST) {
                    members.put(cluster, node, m.with(Member.Standing.REMOVED, now));
                    publishMembership(cluster, node, MembershipState.REMOVED, m.rack(), null,
                            "removed by an operator after it was lost (already replaced)", null, now);
                } else if (standing != Member.Standing.REMOVED) {
                    leave(cluster, node, Member.Standing.REMOVED, "removed by an operator", now);
                }
            }
            default -> LOG.warn("{}: operator record {} for node {} ignored", cluster, request.getState(), node);
        }
    }

    /** One update marks the node read-only in every set holding it; then a repair moves its shards away. */
    private void startDrain(String cluster, String node, Member m, long now) {
        List<MembershipChanges.Row> rows = rows(cluster);
        Map<Integer, MembershipChanges.Row> marked = MembershipChanges.markReadOnly(rows, node);
        Map<Integer, Long> held = MembershipChanges.held(node, reading(cluster, node), rows);
        int shards = (int) held.values().stream().filter(b -> b > 0).count();
        long bytes = held.values().stream().mapToLong(Long::longValue).sum();
        String rack = m != null ? m.rack() : capacity.get(cluster, node) != null ? capacity.get(cluster, node).getRack() : null;
        members.put(cluster, node, (m != null ? m : Member.active(node, rack, now)).draining(now, shards, bytes));
        step(cluster, now, state -> {
            RepairState next = publishUpdate(cluster, marked, state, now);
            LOG.info("{}: draining node {}: read-only in {} candidate sets at routing epoch {}; {} shards ({}) to move", cluster, node,
                    marked.size(), next.routingEpoch(), shards, MembershipChanges.bytes(bytes));
            return coordinator.startRepair(next, "repair started: node " + node + " draining (" + shards + " shards, "
                    + MembershipChanges.bytes(bytes) + " to move)", now, () -> planView(cluster, now), controlsOf(cluster));
        });
    }

    private void cancelDrain(String cluster, Member m, long now) {
        Map<Integer, MembershipChanges.Row> cleared = MembershipChanges.clearReadOnly(rows(cluster), m.node());
        members.put(cluster, m.node(), m.with(Member.Standing.ACTIVE, now));
        step(cluster, now, state -> {
            RepairState next = publishUpdate(cluster, cleared, state, now);
            String reason = "drain cancelled by an operator: read-only marks cleared in " + cleared.size()
                    + " candidate sets at routing epoch " + next.routingEpoch();
            LOG.info("{}: node {} {}", cluster, m.node(), reason);
            publishMembership(cluster, m.node(), MembershipState.ACTIVE, m.rack(), null, reason, next.routingEpoch(), now);
            return new RepairCoordinator.Result(next, List.of());
        });
    }

    /** A draining node whose latest report shows nothing left in its sets is replaced in every one: DRAINED. */
    private void finishDrainIfDone(String cluster, Member m, long now) {
        RepairState state = repairs.get(cluster);
        List<MembershipChanges.Row> rows = rows(cluster);
        if (state == null || !MembershipChanges.drained(m, reading(cluster, m.node()), rows,
                LostParticipants.touches(state.batch(), m.node()))) {
            return;
        }
        // it holds nothing of the slots it spread or held either (their shards moved like the others): it leaves them
        Map<Integer, MembershipChanges.Row> replaced = new java.util.TreeMap<>(MembershipChanges.dropFromSpread(rows, m.node()));
        replaced.putAll(replacing(cluster, rows, m.node(), Set.of(), false));
        members.put(cluster, m.node(), m.with(Member.Standing.DRAINED, now));
        step(cluster, now, s -> {
            RepairState next = publishUpdate(cluster, replaced, s, now);
            String reason = "drained: " + m.drainShards() + " shards (" + MembershipChanges.bytes(m.drainBytes()) + ") moved, replaced in "
                    + replaced.size() + " candidate sets at routing epoch " + next.routingEpoch();
            LOG.info("{}: node {} {}", cluster, m.node(), reason);
            publishMembership(cluster, m.node(), MembershipState.DRAINED, m.rack(), null, reason, next.routingEpoch(), now);
            return new RepairCoordinator.Result(next, List.of());
        });
    }

    /**
     * A node lost or removed: one update replaces it in every candidate set (a set whose switch the
     * running batch will still make keeps it until then), the batch stops waiting for it, the
     * membership record names what the storage layer must rebuild, and a repair starts.
     */
    private void leave(String cluster, String node, Member.Standing standing, String why, long now) {
        List<MembershipChanges.Row> rows = rows(cluster);
        Map<Integer, Long> held = MembershipChanges.held(node, reading(cluster, node), rows);
        RepairState before = repairs.get(cluster);
        Set<Integer> keep = before == null ? Set.of() : LostParticipants.switchesStillToCome(before.batch(), node);
        Map<Integer, MembershipChanges.Row> replaced = replacing(cluster, rows, node, keep, true);
        Member m = members.get(cluster, node);
        CapacityEvent latest = capacity.get(cluster, node);
        String rack = m != null ? m.rack() : latest != null ? latest.getRack() : null;
        members.put(cluster, node, m != null ? m.with(standing, now) : new Member(node, standing, rack, now, 0, 0, 0));
        String[] reason = new String[1];
        step(cluster, now, state -> {
            RepairState next = publishUpdate(cluster, replaced, state, now);
            reason[0] = why + "; replaced in " + replaced.size() + " candidate sets at routing epoch " + next.routingEpoch() + "; "
                    + MembershipChanges.rebuild(held);
            LOG.warn("{}: node {} {}", cluster, node, reason[0]);
            publishMembership(cluster, node, standing == Member.Standing.LOST ? MembershipState.LOST : MembershipState.REMOVED, rack,
                    latest == null ? null : latest.getTotalBytes(), reason[0], next.routingEpoch(), now);
            return new RepairCoordinator.Result(next, List.of(new Effect.ReportRepair(StepResult.PROGRESS, "node " + node + " " + reason[0])));
        });
        answerForGoneNodes(repairs.get(cluster), now);
        step(cluster, now, state -> coordinator.startRepair(state, "repair started: node " + node + " "
                + (standing == Member.Standing.LOST ? "lost" : "removed"), now, () -> planView(cluster, now), controlsOf(cluster)));
    }

    /** Feeds the running batch the answers its gone participants will never send (see {@link LostParticipants}). */
    private RepairState answerForGoneNodes(RepairState state, long now) {
        RepairState current = state;
        for (int round = 0; round < 4 && current != null && current.batch() != null; round++) {
            Set<String> gone = new HashSet<>();
            for (Migration mig : current.batch().migrations()) {
                for (String node : mig.participants()) {
                    Member m = members.get(current.cluster(), node);
                    if (m != null && (m.standing() == Member.Standing.LOST || m.standing() == Member.Standing.REMOVED)) {
                        gone.add(node);
                    }
                }
            }
            List<StatusEvent> answers = LostParticipants.answers(current.batch(), gone, "lost or removed", now);
            if (answers.isEmpty()) {
                break;
            }
            for (StatusEvent answer : answers) {
                RepairState from = current;
                String cluster = from.cluster();
                RepairCoordinator.Result result = coordinator.onStatus(from, answer, now, () -> planView(cluster, now), controlsOf(cluster));
                apply(from, result, now);
                current = result.state();
            }
        }
        return current;
    }

    /** Replacements of {@code node} in every set holding it, on the ring of the cluster's members. */
    private Map<Integer, MembershipChanges.Row> replacing(String cluster, List<MembershipChanges.Row> rows, String node, Set<Integer> keep,
            boolean spreadAndHeld) {
        Members live = members(cluster);
        Set<String> eligible = new HashSet<>(live.eligible());
        eligible.remove(node);
        return MembershipChanges.replace(rows, node, live.racks(), eligible, keep, settings.slotCount(), settings.vnodesPerUnit(),
                spreadAndHeld);
    }

    /** A cluster's members with their racks (for the ring), and the nodes that may take writes (active, reporting). */
    private record Members(Map<String, String> racks, Set<String> eligible) {}

    private Members members(String cluster) {
        Map<String, String> racks = new HashMap<>();
        Set<String> eligible = new HashSet<>();
        for (CapacityEvent e : capacity.values(cluster)) {
            racks.put(e.getNode(), e.getRack());
            eligible.add(e.getNode());
        }
        for (Member m : members.values(cluster)) {
            if (m.standing().planned()) {
                racks.putIfAbsent(m.node(), m.rack());
            }
            if (m.standing() == Member.Standing.ACTIVE) {
                eligible.add(m.node());
            } else {
                racks.remove(m.node());
                eligible.remove(m.node());
            }
        }
        return new Members(racks, eligible);
    }

    /** Publishes {@code changed} rows as one slot-table update (routing epoch + 1); nothing when empty. */
    private RepairState publishUpdate(String cluster, Map<Integer, MembershipChanges.Row> changed, RepairState state, long now) {
        if (changed.isEmpty()) {
            return state;
        }
        long epoch = state.routingEpoch() + 1;
        for (MembershipChanges.Row r : changed.values()) {
            publish(row(cluster, r.slot()), now, row -> row.setCandidates(new ArrayList<>(r.candidates())),
                    row -> row.setReadOnly(new ArrayList<>(r.readOnly())), row -> row.setSpread(new ArrayList<>(r.spread())),
                    row -> row.setSpreadHeld(new ArrayList<>(r.held())), row -> row.setSpreadReason(r.spreadReason()),
                    row -> row.setRoutingEpoch(epoch));
        }
        return state.withRoutingEpoch(epoch);
    }

    private void step(String cluster, long now, java.util.function.Function<RepairState, RepairCoordinator.Result> change) {
        RepairState stored = repairs.get(cluster);
        apply(stored, change.apply(stored != null ? stored : RepairState.fresh(cluster, settings.maxBytesPerSec())), now);
    }

    private void publishMembership(String cluster, String node, MembershipState state, String rack, Long capacityBytes, String reason,
            Long epoch, long now) {
        NodeMembership record = NodeMembership.newBuilder()
                .setCluster(cluster)
                .setNode(node)
                .setState(state)
                .setRack(rack)
                .setCapacityBytes(capacityBytes)
                .setSource(InputDecoder.MIGRATOR_SOURCE)
                .setReason(reason)
                .setRoutingEpoch(epoch)
                .setUpdatedAt(Instant.ofEpochMilli(now))
                .build();
        context.forward(new Record<>(cluster + "/" + node, new MigratorOutput.Membership(record), now));
    }

    private boolean hasTable(String cluster) {
        List<MembershipChanges.Row> cached = rowCache.get(cluster);
        if (cached != null) {
            return !cached.isEmpty();
        }
        try (KeyValueIterator<String, SlotAssignment> it = slots.prefixScan(clusterPrefix(cluster), new StringSerializer())) {
            return it.hasNext();
        }
    }

    /**
     * The cluster's slot-table rows, read from the store once and then kept until this processor next
     * writes one of the cluster's rows ({@link #putSlot}): it is the store's only writer, and every
     * report asks for all the rows (the spread rule), so they are not decoded again per report.
     */
    private List<MembershipChanges.Row> rows(String cluster) {
        List<MembershipChanges.Row> cached = rowCache.get(cluster);
        if (cached != null) {
            return cached;
        }
        List<MembershipChanges.Row> rows = new ArrayList<>();
        try (KeyValueIterator<String, SlotAssignment> it = slots.prefixScan(clusterPrefix(cluster), new StringSerializer())) {
            while (it.hasNext()) {
                SlotAssignment row = it.next().value;
                rows.add(new MembershipChanges.Row(row.getSlot(), row.getCandidates(), row.getReadOnly(), row.getInFlightTarget(),
                        row.getSpread(), row.getSpreadHeld(), row.getSpreadReason()));
            }
        }
        List<MembershipChanges.Row> read = List.copyOf(rows);
        rowCache.put(cluster, read);
        return read;
    }

    /** Writes one slot-table row; the cluster's rows are read from the store again next time. */
    private void putSlot(String cluster, int slot, SlotAssignment row) {
        slots.put(slotStoreKey(cluster, slot), row);
        rowCache.remove(cluster);
    }

    private CapacityReading reading(String cluster, String node) {
        CapacityEvent e = capacity.get(cluster, node);
        if (e == null) {
            return null;
        }
        Map<Integer, Long> shards = new HashMap<>();
        for (ShardUsage s : e.getShards()) {
            shards.merge(s.getSlot(), s.getUsedBytes(), Long::sum);
        }
        return new CapacityReading(e.getNode(), e.getUsedBytes(), e.getTotalBytes(), e.getRack(), shards, e.getEventTime().toEpochMilli());
    }


    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
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
