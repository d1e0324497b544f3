package io.skewguard.sim.policy;

import io.skewguard.balancer.policy.ControllerSettings;
import io.skewguard.balancer.policy.ControllerState;
import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.balancer.policy.Round;
import io.skewguard.balancer.policy.RoundOutcome;
import io.skewguard.balancer.policy.WeightChange;
import io.skewguard.balancer.policy.WeightController;
import io.skewguard.detector.policy.AlertStateMachine;
import io.skewguard.migrator.policy.AdaptiveRateLimiter;
import io.skewguard.migrator.policy.BatchStateMachine;
import io.skewguard.migrator.policy.CapacityReading;
import io.skewguard.migrator.policy.ClusterView;
import io.skewguard.migrator.policy.ColdestFirstPlanner;
import io.skewguard.migrator.policy.Effect;
import io.skewguard.migrator.policy.Migration;
import io.skewguard.migrator.policy.RepairCoordinator;
import io.skewguard.migrator.policy.RepairState;
import io.skewguard.migrator.policy.StatusEvent;
import io.skewguard.migrator.policy.Timeouts;
import io.skewguard.migrator.SpreadStep;
import io.skewguard.migrator.policy.MembershipChanges;
import io.skewguard.migrator.policy.SpreadPolicy;
import io.skewguard.migrator.policy.SpreadRule;
import io.skewguard.migrator.policy.SpreadState;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.StepResult;
import io.skewguard.sim.model.Cluster;
import io.skewguard.sim.model.ClusterFigures;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.SkewGuardSettings;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SkewGuard's loop built from the apps' own pure policy classes, called directly once per step — not
 * through their Kafka Streams topologies (that is "fast mode", which needs the topologies and the
 * node agents): the detector's {@link AlertStateMachine} (heat Gini and capacity CV, 5-minute
 * cooldown), the balancer's {@link WeightController}, and the migrator's {@link RepairCoordinator}
 * with {@link ColdestFirstPlanner}, {@link BatchStateMachine} and {@link AdaptiveRateLimiter}, and
 * its spread rule ({@link SpreadStep} with {@link SpreadPolicy}, the migrator's defaults; off for
 * {@code skewguard-nospread}). The
 * coordinator's effects are carried out on the cluster by simulated node agents: COPY takes
 * {@code bytes / copyBudget} of simulated time (reported as PROGRESS every step), PREPARE, COMMIT,
 * CLEANUP and ABORT are answered at once; a lost node never answers.
 *
 * <p>The figures the apps see are the step's: heat is the bytes written in the step (the detector's
 * sliding window is shorter than a step), capacity is every live node's used and total bytes with its
 * per-shard bytes, as a node's {@code CapacityEvent} would carry them.
 */
public final class SkewGuardLoop implements RepairPolicy {

    private static final Logger LOG = LoggerFactory.getLogger(SkewGuardLoop.class);
    private static final String CLUSTER = "sim";
    /** The migrator's defaults: its rate limiter's loads, floor and peak half-life. */
    private static final io.skewguard.migrator.MigratorSettings MIGRATOR =
            io.skewguard.migrator.MigratorSettings.from(io.skewguard.migrator.MigratorSettings.MODEL.defaults());

    private final SkewGuardSettings settings;
    private final long stepMillis;
    private final AlertStateMachine heatAlert;
    private final AlertStateMachine capacityAlert;
    private final WeightController controller;
    private final RepairCoordinator coordinator;
    private ControllerState weights = ControllerState.initial();
    private RepairState repair;
    private final Map<String, Copy> copies = new LinkedHashMap<>();
    private final Deque<StatusEvent> answers = new ArrayDeque<>();
    private final List<String> notes = new ArrayList<>();
    private long weightRepairStarted = -1;
    private long weightPhaseEnd = -1;
    private boolean floorNoted;
    private final String name;
    private final SpreadPolicy spreadPolicy;
    private SpreadState spreadState = SpreadState.empty();
    /** The rows the spread rule last saw, by slot, and the routing epoch each was read at. */
    private MembershipChanges.Row[] rows;
    private long[] rowEpoch;

    /** A COPY an agent is carrying out. */
    private static final class Copy {
        final Migration migration;
        double copied;

        Copy(Migration migration) {
            this.migration = migration;
        }
    }

    /** SkewGuard with spreading (the migrator's default). */
    public SkewGuardLoop(Scenario scenario) {
        this(scenario, true);
    }

    /** SkewGuard with spreading on or off ({@code skewguard-nospread}: weights and migrations only). */
    public SkewGuardLoop(Scenario scenario, boolean spread) {
        this.name = spread ? "skewguard" : "skewguard-nospread";
        SpreadRule r = SpreadRule.DEFAULTS;
        this.spreadPolicy = new SpreadPolicy(new SpreadRule(spread, r.spreadAt(), r.spreadHoldMs(), r.target(), r.maxExtra(),
                r.narrowAt(), r.narrowHoldMs()));
        this.settings = scenario.skewguard();
        this.stepMillis = scenario.stepMillis();
        this.heatAlert = new AlertStateMachine(settings.heatThreshold(), settings.hysteresis(), settings.cooldownMillis());
        this.capacityAlert = new AlertStateMachine(settings.capacityThreshold(), settings.hysteresis(), settings.cooldownMillis());
        ControllerSettings d = ControllerSettings.defaults();
        this.controller = new WeightController(new ControllerSettings(d.minWeight(), d.maxWeight(), d.maxStep(), d.deadband(),
                d.gain(), settings.repairTarget(), d.minRoundInterval(), d.decay(), Duration.ofMillis(settings.followUpMillis())));
        // the migrator's defaults, with the scenario's bandwidth and maintenance factor; 3 aborts in a row
        AdaptiveRateLimiter limiter = new AdaptiveRateLimiter(settings.maxBytesPerSec(), MIGRATOR.lowLoad(), MIGRATOR.highLoad(),
                MIGRATOR.budgetFloor(), MIGRATOR.peakHalfLife().toMillis());
        long copyStall = Math.max(10 * 60_000L, 3 * stepMillis);
        BatchStateMachine machine = new BatchStateMachine(new Timeouts(copyStall, Math.max(60_000L, 2 * stepMillis),
                Math.max(60_000L, 2 * stepMillis), Math.max(60_000L, 2 * stepMillis)));
        this.coordinator = new RepairCoordinator(
                new ColdestFirstPlanner(settings.migrationTargetCv(), settings.overshoot()), machine, limiter, settings.maxParallel(), 3,
                settings.maintenanceFactor(), settings.cooldownMillis());
        this.repair = RepairState.fresh(CLUSTER, settings.maxBytesPerSec());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void onStep(long now, Cluster cluster, ClusterFigures figures) {
        Supplier<ClusterView> view = () -> viewOf(cluster, now);
        // detector
        for (AlertStateMachine.Transition t : heatAlert.observe(figures.heatGini(), now)) {
            if (t.to() == AlertState.CONFIRMED) {
                weights = controller.onHeatConfirmed(weights, t.since());
                if (weightRepairStarted < 0) {
                    weightRepairStarted = now;
                }
                floorNoted = false;
            }
        }
        List<AlertStateMachine.Transition> capacity = capacityAlert.observe(figures.capacityCv(), now);
        // balancer
        balance(now, cluster, figures);
        // the migrator's spread rule, on the step's report
        spread(now, cluster);
        // migrator
        for (AlertStateMachine.Transition t : capacity) {
            if (t.to() == AlertState.CONFIRMED) {
                carryOut(coordinator.onCapacityConfirmed(repair, figures.capacityCv(), now, view), cluster, now, view);
            }
        }
        double writeRate = 0;
        for (int i = 0; i < cluster.maxNodes(); i++) {
            writeRate += cluster.alive(i) ? cluster.heat(i) : 0;
        }
        writeRate /= stepMillis / 1000.0;
        carryOut(coordinator.onReport(repair, writeRate, figures.capacityCv(), now, now, view), cluster, now, view);
        advanceCopies(cluster, now);
        deliverAnswers(cluster, now, view);
        carryOut(coordinator.onTick(repair, now, view), cluster, now, view);
    }

    private void balance(long now, Cluster cluster, ClusterFigures figures) {
        List<NodeLoad> loads = new ArrayList<>();
        for (int i = 0; i < cluster.maxNodes(); i++) {
            if (cluster.alive(i)) {
                loads.add(new NodeLoad(cluster.nodes().id(i), cluster.heat(i), cluster.capacity(i)));
            }
        }
        double gini = Math.min(1.0, Math.max(0.0, figures.heatGini()));
        Round round = controller.onReport(weights, new LoadSnapshot(CLUSTER, now, gini, loads));
        weights = round.state();
        for (WeightChange change : round.changes()) {
            cluster.setWeight(cluster.nodes().require(change.node()), change.newWeight());
        }
        RoundOutcome outcome = round.outcome();
        boolean ended = outcome == RoundOutcome.TARGET_REACHED || outcome == RoundOutcome.INSIDE_DEADBAND
                || outcome == RoundOutcome.FLOOR_REACHED;
        if (ended && weightRepairStarted >= 0 && weightPhaseEnd < 0) {
            weightPhaseEnd = now;
        }
        if (outcome == RoundOutcome.FLOOR_REACHED && !floorNoted) {
            floorNoted = true;
            int atMin = 0;
            int atMax = 0;
            for (int i = 0; i < cluster.maxNodes(); i++) {
                if (cluster.alive(i)) {
                    atMin += cluster.weight(i) <= controller.settings().minWeight() ? 1 : 0;
                    atMax += cluster.weight(i) >= controller.settings().maxWeight() ? 1 : 0;
                }
            }
            notes.add(floorNote(name, now, gini, settings.repairTarget(), atMin, controller.settings().minWeight(), atMax,
                    controller.settings().maxWeight()));
        }
    }

    /** The spread rule on the step's slot heat; its changes go to the writers' routing view. */
    private void spread(long now, Cluster cluster) {
        if (rows == null) {
            rows = new MembershipChanges.Row[cluster.slotCount()];
            rowEpoch = new long[cluster.slotCount()];
        }
        for (int s = 0; s < cluster.slotCount(); s++) {
            // a row changes with its routing epoch, or with its in-flight mark
            int target = cluster.inFlightTarget(s);
            String targetId = target < 0 ? null : cluster.nodes().id(target);
            if (rows[s] == null || rowEpoch[s] != cluster.routes().routingEpoch(s)
                    || !java.util.Objects.equals(rows[s].inFlightTarget(), targetId)) {
                rows[s] = row(cluster, s);
                rowEpoch[s] = cluster.routes().routingEpoch(s);
            }
        }
        Map<String, Long> capacity = new HashMap<>();
        Map<String, String> racks = new HashMap<>();
        for (int i = 0; i < cluster.maxNodes(); i++) {
            if (cluster.alive(i)) {
                capacity.put(cluster.nodes().id(i), Math.round(cluster.capacity(i)));
                racks.put(cluster.nodes().id(i), cluster.rack(i));
            }
        }
        long[] heat = new long[cluster.slotCount()];
        for (int s = 0; s < heat.length; s++) {
            heat[s] = Math.round(cluster.slotHeat(s));
        }
        SpreadStep.Result result = SpreadStep.decide(CLUSTER, spreadPolicy, spreadState, now, heat, List.of(rows), capacity, racks,
                capacity.keySet(), cluster.slotCount(), cluster.scenario().vnodesPerUnit());
        spreadState = result.state();
        result.changed().forEach((slot, row) -> {
            cluster.setSpread(slot, row.spread(), row.held(), row.spreadReason());
            notes.add(spreadNote(name, now, row.spreadReason()));
        });
    }

    private static MembershipChanges.Row row(Cluster cluster, int s) {
        List<String> candidates = cluster.slotTable().candidateIds(s);
        List<String> readOnly = new ArrayList<>();
        for (String id : candidates) {
            if (cluster.readOnly(s, cluster.nodes().require(id))) {
                readOnly.add(id);
            }
        }
        int target = cluster.inFlightTarget(s);
        return new MembershipChanges.Row(s, candidates, readOnly, target < 0 ? null : cluster.nodes().id(target),
                ids(cluster, cluster.spread(s)), ids(cluster, cluster.held(s)), cluster.routes().spreadReason(s));
    }

    private static List<String> ids(Cluster cluster, int[] nodes) {
        List<String> out = new ArrayList<>();
        for (int n : nodes) {
            out.add(cluster.nodes().id(n));
        }
        return out;
    }

    /** The report's line for a spread decision (both modes say it the same way). */
    public static String spreadNote(String policy, long at, String reason) {
        return String.format(Locale.ROOT, "%s: day %.2f: %s", policy, at / 86_400_000.0, reason);
    }

    /** The report's plain statement that the weight factors hit their floor (both modes say it the same way). */
    public static String floorNote(String policy, long at, double gini, double repairTarget, int atMin, double min, int atMax,
            double max) {
        return String.format(Locale.ROOT,
                "%s: at day %.2f the weight factors hit their floor: heat Gini %.3f is above the repair target "
                        + "%.2f, but every node outside the deadband sits at its bound (%d at %.1f, %d at %.1f); "
                        + "weights alone can do no more",
                policy, at / 86_400_000.0, gini, repairTarget, atMin, min, atMax, max);
    }

    /** What the migrator plans from, read off the model: every live node's capacity report, slot heat, the slot table. */
    public static ClusterView viewOf(Cluster cluster, long now) {
        List<CapacityReading> readings = new ArrayList<>();
        for (int i = 0; i < cluster.maxNodes(); i++) {
            if (!cluster.alive(i)) {
                continue;
            }
            Map<Integer, Long> shards = new HashMap<>();
            for (int s = 0; s < cluster.slotCount(); s++) {
                long bytes = Math.round(cluster.shardBytes(s, i));
                if (bytes > 0) {
                    shards.put(s, bytes);
                }
            }
            long total = Math.round(cluster.capacity(i));
            long used = Math.max(0, Math.min(total, Math.round(cluster.used(i))));
            readings.add(new CapacityReading(cluster.nodes().id(i), used, total, cluster.rack(i), shards, now));
        }
        long[] slotHeat = new long[cluster.slotCount()];
        Map<Integer, List<String>> sets = new TreeMap<>();
        for (int s = 0; s < cluster.slotCount(); s++) {
            slotHeat[s] = Math.round(cluster.slotHeat(s));
            // as the migrator plans: a slot's spread and held nodes are in its set (no migration targets them),
            // and their shards of it are no migration's source
            List<String> holders = new ArrayList<>(cluster.slotTable().candidateIds(s));
            for (int n : cluster.spread(s)) {
                holders.add(cluster.nodes().id(n));
            }
            for (int n : cluster.held(s)) {
                holders.add(cluster.nodes().id(n));
            }
            sets.put(s, holders);
        }
        for (int r = 0; r < readings.size(); r++) {
            CapacityReading reading = readings.get(r);
            int node = cluster.nodes().require(reading.node());
            Map<Integer, Long> shards = new HashMap<>(reading.shardBytes());
            if (shards.keySet().removeIf(s -> !cluster.slotTable().candidates(s).contains(node))) {
                readings.set(r, new CapacityReading(reading.node(), reading.usedBytes(), reading.totalBytes(), reading.rack(), shards,
                        reading.eventTime()));
            }
        }
        return new ClusterView(readings, slotHeat, sets);
    }

    /** The agents' COPY work of one step; PROGRESS while copying, DONE with the keys copied when complete. */
    private void advanceCopies(Cluster cluster, long now) {
        double budget = RepairCoordinator.copyBudget(repair) * (stepMillis / 1000.0);
        for (var it = copies.values().iterator(); it.hasNext(); ) {
            Copy copy = it.next();
            Migration m = copy.migration;
            int source = cluster.nodes().require(m.source());
            int target = cluster.nodes().require(m.target());
            if (!cluster.alive(source) || !cluster.alive(target)) {
                continue; // a lost node never answers; the coordinator's stall timeout aborts the batch
            }
            // writes during the copy are dual-written to the target, so the copy moves what the shard held
            // when it was planned
            double size = m.bytes();
            copy.copied = Math.min(size, copy.copied + budget);
            if (copy.copied >= size) {
                cluster.copyShard(m.slot(), source, target);
                answers.add(status(m, m.target(), MigrationPhase.COPY, StepResult.DONE, (long) size, now));
                it.remove();
            } else {
                answers.add(status(m, m.target(), MigrationPhase.COPY, StepResult.PROGRESS, (long) copy.copied, now));
            }
        }
    }

    private void deliverAnswers(Cluster cluster, long now, Supplier<ClusterView> view) {
        while (!answers.isEmpty()) {
            carryOut(coordinator.onStatus(repair, answers.poll(), now, view), cluster, now, view);
        }
    }

    private void carryOut(RepairCoordinator.Result result, Cluster cluster, long now, Supplier<ClusterView> view) {
        repair = result.state();
        for (Effect effect : result.effects()) {
            if (effect instanceof Effect.SendCommand send) {
                agent(send, cluster, now);
            } else if (effect instanceof Effect.MarkInFlight mark) {
                Migration m = mark.migration();
                cluster.markInFlight(m.slot(), cluster.nodes().require(m.source()), cluster.nodes().require(m.target()));
            } else if (effect instanceof Effect.ClearInFlight clear) {
                Migration m = clear.migration();
                cluster.dropCopy(m.slot(), cluster.nodes().require(m.target()));
            } else if (effect instanceof Effect.SwitchSlot sw) {
                Migration m = sw.migration();
                int source = cluster.nodes().require(m.source());
                int target = cluster.nodes().require(m.target());
                if (cluster.slotTable().candidates(m.slot()).contains(source)
                        && !cluster.slotTable().candidates(m.slot()).contains(target)) {
                    cluster.switchSlot(m.slot(), source, target);
                } else {
                    LOG.warn("switch of {} skipped: the slot table changed under it (node loss)", m.shardId());
                }
            } else if (effect instanceof Effect.ReportRepair report) {
                LOG.info("day {}: {}", String.format(Locale.ROOT, "%.2f", now / 86_400_000.0), report.message());
                if (report.outcome() == StepResult.FAILED) {
                    notes.add(String.format(Locale.ROOT, "%s: day %.2f: %s", name, now / 86_400_000.0, report.message()));
                }
            }
        }
        deliverAnswers(cluster, now, view);
    }

    /** A node agent applying one command; lost nodes never answer. */
    private void agent(Effect.SendCommand send, Cluster cluster, long now) {
        Migration m = send.migration();
        int node = cluster.nodes().require(send.node());
        if (!cluster.alive(node)) {
            return;
        }
        switch (send.phase()) {
            case COPY -> copies.putIfAbsent(m.id(), new Copy(m));
            case PREPARE, COMMIT -> answers.add(status(m, send.node(), send.phase(), StepResult.DONE, 0, now));
            case CLEANUP -> {
                cluster.cleanup(m.slot(), cluster.nodes().require(m.source()));
                answers.add(status(m, send.node(), send.phase(), StepResult.DONE, 0, now));
            }
            case ABORT -> {
                copies.remove(m.id());
                if (send.node().equals(m.target())) {
                    cluster.dropCopy(m.slot(), node);
                }
                answers.add(status(m, send.node(), send.phase(), StepResult.DONE, 0, now));
            }
        }
    }

    private static StatusEvent status(Migration m, String node, MigrationPhase phase, StepResult outcome, long bytes, long now) {
        return new StatusEvent(m.id(), node, phase, outcome, bytes, null, now);
    }

    @Override
    public int migrationsRunning() {
        return repair.batch() == null ? 0 : repair.batch().migrations().size();
    }

    @Override
    public long weightPhaseEnd() {
        return weightPhaseEnd;
    }

    @Override
    public boolean weightPhaseIsControlled() {
        return true;
    }

    @Override
    public List<String> notes() {
        return List.copyOf(notes);
    }
}
