package io.skewguard.migrator.policy;

import io.skewguard.runtime.control.ClusterControls;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.StepResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The repair loop of one cluster (docs/design.md §8): starts on CONFIRMED CAPACITY, then plans,
 * runs one switch batch, re-plans from fresh figures, and so on until the planner finds the CV at
 * its target — also after the alert has cleared — or finds no move that improves it.
 *
 * <p>Batches overlap through their copies: a batch switches the migrations whose copies are
 * complete while the others keep copying; when it is finished they are carried into the next
 * batch, which is completed with moves of a fresh plan on the nodes and slots they leave free (the
 * plan sees their bytes as already moved), up to {@code maxParallel} migrations in all.
 *
 * <p>Operator controls ({@link ClusterControls}, given with each call): while paused no batch starts
 * and no switch starts (complete copies hold, a started switch finishes); in dry run no batch starts
 * and each planning step proposes its plan instead ({@link Effect.Propose}); a throttle fixes the
 * budget; excluded nodes are left out of the plan by the view ({@link ClusterView#excluded()}).
 * Migrations already running when a control is set run to their end. Every planning step says why it
 * acted or did not ({@link Effect.Decide}).
 *
 * <p>Pure apart from logging: each call takes the cluster's {@link RepairState} and returns the next
 * one with the effects to carry out. The cluster's figures are read through a supplier only when a
 * plan is due, so that answering a status costs no store scan.
 */
public final class RepairCoordinator {

    private static final Logger LOG = LoggerFactory.getLogger(RepairCoordinator.class);

    private final MigrationPlanner planner;
    private final BatchStateMachine machine;
    private final AdaptiveRateLimiter limiter;
    private final int maxParallel;
    private final int maxConsecutiveAborts;
    private final double maintenanceFactor;
    private final long maintenanceHoldMillis;

    /**
     * @param maxParallel most migrations of one batch
     * @param maxConsecutiveAborts a repair whose last this many batches all aborted stops (FAILED
     *     status) instead of retrying a move that keeps failing; a new CONFIRMED alert restarts it
     */
    public RepairCoordinator(MigrationPlanner planner, BatchStateMachine machine, AdaptiveRateLimiter limiter, int maxParallel,
            int maxConsecutiveAborts) {
        this(planner, machine, limiter, maxParallel, maxConsecutiveAborts, 0, 0);
    }

    /**
     * @param maintenanceFactor after a repair ended without failing, a capacity CV above this × the
     *     larger of its target and the CV it ended at, for {@code maintenanceHoldMillis} (report time),
     *     starts a maintenance repair without waiting for the detector's alert (whose threshold sits
     *     far above the planner's target); 0 disables
     */
    public RepairCoordinator(MigrationPlanner planner, BatchStateMachine machine, AdaptiveRateLimiter limiter, int maxParallel,
            int maxConsecutiveAborts, double maintenanceFactor, long maintenanceHoldMillis) {
        if (!(maintenanceFactor == 0 || maintenanceFactor >= 1) || maintenanceHoldMillis < 0) {
            throw new IllegalArgumentException("maintenanceFactor must be 0 or >= 1 and maintenanceHoldMillis >= 0");
        }
        this.maintenanceFactor = maintenanceFactor;
        this.maintenanceHoldMillis = maintenanceHoldMillis;
        if (maxParallel < 1 || maxConsecutiveAborts < 1) {
            throw new IllegalArgumentException("maxParallel and maxConsecutiveAborts must be >= 1");
        }
        this.maxConsecutiveAborts = maxConsecutiveAborts;
        this.planner = planner;
        this.machine = machine;
        this.limiter = limiter;
        this.maxParallel = maxParallel;
    }

    /** Next state and effects. */
    public record Result(RepairState state, List<Effect> effects) {
        public Result {
            effects = List.copyOf(effects);
        }
    }

    /** A CONFIRMED CAPACITY alert: starts a repair unless one runs. Other alerts change nothing. */
    public Result onCapacityConfirmed(RepairState state, double capacityCv, long now, Supplier<ClusterView> view) {
        return onCapacityConfirmed(state, capacityCv, now, view, ClusterControls.NONE);
    }

    /** As above, under the operator's {@code controls}. */
    public Result onCapacityConfirmed(RepairState state, double capacityCv, long now, Supplier<ClusterView> view,
            ClusterControls controls) {
        if (state.repairing()) {
            return new Result(state, List.of());
        }
        return startRepair(state, String.format(Locale.ROOT, "repair started: capacity CV %.4f confirmed above threshold", capacityCv),
                now, view, controls);
    }

    /**
     * Starts a repair for the reason {@code message} (a node joined, is draining, was lost or
     * removed) unless one runs; the message is the repair status's.
     */
    public Result startRepair(RepairState state, String message, long now, Supplier<ClusterView> view) {
        return startRepair(state, message, now, view, ClusterControls.NONE);
    }

    /** As above, under the operator's {@code controls}. */
    public Result startRepair(RepairState state, String message, long now, Supplier<ClusterView> view, ClusterControls controls) {
        if (state.repairing()) {
            return new Result(state, List.of());
        }
        LOG.info("{}: {}", state.cluster(), message);
        RepairState started = new RepairState(state.cluster(), true, state.batchSeq(), state.batch(), state.unreported(),
                state.writeLoad(), state.budgetBytesPerSec(), state.bytesMoved(), state.batchesCommitted(), state.batchesAborted(), message, state.routingEpoch(), 0,
                state.copyBytesPerSec(), 0, RepairState.NEVER);
        List<Effect> effects = new ArrayList<>();
        effects.add(new Effect.ReportRepair(StepResult.PROGRESS, message));
        return planIfIdle(started, now, view, effects, controls);
    }

    /**
     * A report: the write load moves the budget; an idle repair gets another chance to plan; a
     * settled cluster whose capacity CV ({@code NaN} if unknown) has drifted above the maintenance
     * level for the hold time starts a maintenance repair.
     */
    public Result onReport(RepairState state, double writeBytesPerSec, double capacityCv, long reportTime, long now,
            Supplier<ClusterView> view) {
        return onReport(state, writeBytesPerSec, capacityCv, reportTime, now, view, ClusterControls.NONE);
    }

    /** As above, under the operator's {@code controls}: a throttle fixes the budget instead of the write load. */
    public Result onReport(RepairState state, double writeBytesPerSec, double capacityCv, long reportTime, long now,
            Supplier<ClusterView> view, ClusterControls controls) {
        AdaptiveRateLimiter.WriteLoad load = limiter.observe(state.writeLoad(), writeBytesPerSec, reportTime);
        RepairState next = new RepairState(state.cluster(), state.repairing(), state.batchSeq(), state.batch(), state.unreported(),
                load, budget(load, controls), state.bytesMoved(), state.batchesCommitted(), state.batchesAborted(), state.lastMessage(), state.routingEpoch(), state.consecutiveAborts(),
                state.copyBytesPerSec(), state.maintenanceLevel(), state.driftSince());
        if (next.batch() != null) {
            return rerateCopies(next);
        }
        double level = next.maintenanceLevel();
        if (!next.repairing() && level > 0 && !Double.isNaN(capacityCv)) {
            if (capacityCv <= level) {
                next = next.withDriftSince(RepairState.NEVER);
            } else {
                long since = next.driftSince() == RepairState.NEVER ? reportTime : next.driftSince();
                next = next.withDriftSince(since);
                if (reportTime - since >= maintenanceHoldMillis) {
                    String message = String.format(Locale.ROOT,
                            "maintenance repair started: capacity CV %.4f above %.4f for %d s since the last repair",
                            capacityCv, level, (reportTime - since) / 1000);
                    LOG.info("{}: {}", next.cluster(), message);
                    RepairState started = new RepairState(next.cluster(), true, next.batchSeq(), null, next.unreported(),
                            next.writeLoad(), next.budgetBytesPerSec(), next.bytesMoved(), next.batchesCommitted(),
                            next.batchesAborted(), message, next.routingEpoch(), 0, 0, 0, RepairState.NEVER);
                    List<Effect> effects = new ArrayList<>();
                    effects.add(new Effect.ReportRepair(StepResult.PROGRESS, message));
                    return planIfIdle(started, now, view, effects, controls);
                }
            }
        }
        return planIfIdle(next, now, view, new ArrayList<>(), controls);
    }

    /** The cluster's budget: the operator's throttle, or what the limiter makes of the write load. */
    private long budget(AdaptiveRateLimiter.WriteLoad load, ClusterControls controls) {
        return controls.throttled() ? controls.throttleBytesPerSec() : limiter.budget(load);
    }

    /**
     * The operator changed the cluster's controls from {@code before} to {@code after}: a new
     * throttle (or {@code auto} again) re-rates every running copy at once; a resume starts the held
     * switch, or plans when no batch runs; the end of a dry run plans at once. Pausing, dry run and
     * exclusions need nothing here: every later step follows them.
     */
    public Result onControls(RepairState state, ClusterControls before, ClusterControls after, long now, Supplier<ClusterView> view) {
        List<Effect> effects = new ArrayList<>();
        RepairState next = state;
        if (before.throttleBytesPerSec() != after.throttleBytesPerSec()) {
            next = next.withBudget(budget(next.writeLoad(), after));
            if (next.batch() != null) {
                Result rerated = rerateCopies(next, null, true);
                next = rerated.state();
                effects.addAll(rerated.effects());
            }
        }
        boolean resumed = before.paused() && !after.paused();
        boolean dryRunOver = before.dryRun() && !after.dryRun();
        if (resumed && next.batch() != null && !after.paused()) {
            BatchStateMachine.Transition released = machine.release(next.batch(), now);
            effects.addAll(released.effects());
            next = next.withBatch(released.batch());
        }
        if ((resumed || dryRunOver) && next.batch() == null) {
            return planIfIdle(next, now, view, effects, after);
        }
        return new Result(next, effects);
    }

    /** An agent's answer. */
    public Result onStatus(RepairState state, StatusEvent status, long now, Supplier<ClusterView> view) {
        return onStatus(state, status, now, view, ClusterControls.NONE);
    }

    /** As above, under the operator's {@code controls} (paused: a completed copy holds before its switch). */
    public Result onStatus(RepairState state, StatusEvent status, long now, Supplier<ClusterView> view, ClusterControls controls) {
        if (state.batch() == null) {
            return new Result(state, List.of());
        }
        return afterTransition(state, machine.on(state.batch(), status, now, controls.paused()), now, view, controls);
    }

    /** The clock. */
    public Result onTick(RepairState state, long now, Supplier<ClusterView> view) {
        return onTick(state, now, view, ClusterControls.NONE);
    }

    /** As above, under the operator's {@code controls}. */
    public Result onTick(RepairState state, long now, Supplier<ClusterView> view, ClusterControls controls) {
        if (state.batch() == null) {
            return new Result(state, List.of());
        }
        return afterTransition(state, machine.onTick(state.batch(), now, controls.paused()), now, view, controls);
    }

    /** How far the per-copy budget may drift from the rate the running copies were sent before they get the new one. */
    public static final double RERATE_FACTOR = 1.25;

    /**
     * COPY bandwidth of one migration: the cluster budget shared by the batch's copies still copying
     * (carried ones included),
     * at least 1 — a copy that is done leaves its share to the others (they get it through a re-sent
     * COPY, see {@link #RERATE_FACTOR}), so a batch is not held at a fraction of the budget by its one
     * large copy.
     */
    public static long copyBudget(RepairState state) {
        int copies = 0;
        if (state.batch() != null) {
            for (Migration m : state.batch().migrations()) {
                copies += m.state() instanceof MigrationState.Copying ? 1 : 0;
            }
        }
        return Math.max(1, state.budgetBytesPerSec() / Math.max(1, copies));
    }

    private Result afterTransition(RepairState state, BatchStateMachine.Transition t, long now, Supplier<ClusterView> view,
            ClusterControls controls) {
        List<Effect> effects = new ArrayList<>(t.effects());
        SwitchBatch batch = t.batch();
        if (!(batch.phase() instanceof BatchPhase.Finished finished)) {
            return new Result(state.withBatch(batch), effects);
        }
        List<AppliedMove> unreported = new ArrayList<>(state.unreported());
        boolean carrying = !batch.carried().isEmpty();
        long moved = 0;
        for (Migration m : batch.migrations()) {
            if (m.state() instanceof MigrationState.Cleaned c) {
                unreported.add(new AppliedMove(m.slot(), m.source(), m.target(), m.bytes(), c.targetCommittedAt(), c.sourceCleanedAt()));
                moved += m.bytes();
            }
        }
        LOG.info("{}: batch {} finished, {}: {} migrations, {} bytes moved", state.cluster(), batch.batchId(),
                finished.committed() ? "committed" : "aborted", batch.migrations().size(), moved);
        RepairState next = new RepairState(state.cluster(), state.repairing(), state.batchSeq(), null, unreported,
                state.writeLoad(), state.budgetBytesPerSec(), state.bytesMoved() + moved,
                state.batchesCommitted() + (finished.committed() ? 1 : 0),
                state.batchesAborted() + (finished.committed() ? 0 : 1),
                "batch " + batch.batchId() + " " + finished.reason(), state.routingEpoch(),
                finished.committed() ? 0 : state.consecutiveAborts() + 1, carrying ? state.copyBytesPerSec() : 0,
                state.maintenanceLevel(), state.driftSince());
        if (next.repairing() && next.consecutiveAborts() >= maxConsecutiveAborts) {
            String message = String.format(Locale.ROOT, "repair stopped early: %d batches in a row aborted, the last because %s",
                    next.consecutiveAborts(), finished.reason());
            LOG.warn("{}: {}", state.cluster(), message);
            effects.add(new Effect.ReportRepair(StepResult.FAILED, message));
            RepairState stopped = new RepairState(next.cluster(), false, next.batchSeq(), null, next.unreported(), next.writeLoad(),
                    next.budgetBytesPerSec(), next.bytesMoved(), next.batchesCommitted(), next.batchesAborted(), message,
                    next.routingEpoch(), next.consecutiveAborts(), next.copyBytesPerSec(), 0, RepairState.NEVER);
            // copies carried out of the batch are not abandoned: they go on in batches of their own
            return carrying ? carryOn(stopped, batch, now, view, effects, controls) : new Result(stopped.withCopyBytesPerSec(0), effects);
        }
        return carrying ? carryOn(next, batch, now, view, effects, controls) : planIfIdle(next, now, view, effects, controls);
    }

    /**
     * The batch after {@code finished}, whose carried migrations go on in it: completed, while the
     * repair runs and no carried copy failed, with the plan's moves on the nodes and slots the carried
     * migrations leave free. The planner sees the carried moves as done (their bytes off the source,
     * on the target, the target in the slot's set) so that it neither moves the same excess twice nor
     * fills a target twice. The repair does not end here, even when the plan has no move: it ends at
     * a plan made with nothing in flight.
     */
    private Result carryOn(RepairState state, SwitchBatch finished, long now, Supplier<ClusterView> view, List<Effect> effects,
            ClusterControls controls) {
        List<Migration> carried = finished.carried();
        int free = maxParallel - carried.size();
        boolean failed = carried.stream().anyMatch(m -> m.state() instanceof MigrationState.CopyFailed);
        List<Move> moves = List.of();
        List<AppliedMove> unreported = state.unreported();
        if (state.repairing() && !failed && free > 0 && (controls.paused() || controls.dryRun())) {
            String held = controls.paused() ? "PAUSED" : "DRY_RUN";
            effects.add(new Effect.Decide(false, held, String.format(Locale.ROOT, "%s: no new moves next to the %d carried cop%s, which "
                    + "go on%s", controls.paused() ? "paused by an operator" : "dry run", carried.size(), carried.size() == 1 ? "y" : "ies",
                    controls.paused() ? " and hold before their switch" : ""), Map.of()));
        } else if (state.repairing() && !failed && free > 0) {
            ClusterView v = view.get();
            if (!v.readings().isEmpty()) {
                unreported = SnapshotAssembler.stillUnreported(state.unreported(), v.readings());
                List<AppliedMove> projected = new ArrayList<>(unreported);
                Map<Integer, List<String>> sets = new HashMap<>(v.candidateSets());
                Set<String> busyNodes = new HashSet<>();
                Set<Integer> busySlots = new HashSet<>();
                for (Migration m : carried) {
                    // a report never shows an uncommitted move: MAX_VALUE keeps it applied
                    projected.add(new AppliedMove(m.slot(), m.source(), m.target(), m.bytes(), Long.MAX_VALUE, Long.MAX_VALUE));
                    List<String> set = sets.get(m.slot());
                    if (set != null && set.contains(m.source()) && !set.contains(m.target())) {
                        List<String> after = new ArrayList<>(set);
                        after.set(after.indexOf(m.source()), m.target());
                        sets.put(m.slot(), after);
                    }
                    busyNodes.add(m.source());
                    busyNodes.add(m.target());
                    busySlots.add(m.slot());
                }
                MigrationPlan plan = planner.plan(v.snapshot(sets, projected));
                moves = BatchSelection.select(plan.moves(), free, busyNodes, busySlots);
                LOG.info("{}: plan of {} moves ({} bytes) next to {} carried copies, CV {} → {} ({}); {} of them start",
                        state.cluster(), plan.moves().size(), plan.bytesMoved(), carried.size(), plan.currentCv(),
                        plan.projectedCv(), plan.outcome(), moves.size());
            }
        }
        long seq = state.batchSeq() + 1;
        String batchId = String.format(Locale.ROOT, "b%06d", seq);
        BatchStateMachine.Transition started = machine.carryOn(finished, batchId, moves, now, controls.paused());
        effects.addAll(started.effects());
        RepairState next = new RepairState(state.cluster(), state.repairing(), seq, started.batch(), unreported, state.writeLoad(),
                state.budgetBytesPerSec(), state.bytesMoved(), state.batchesCommitted(), state.batchesAborted(), state.lastMessage(),
                state.routingEpoch(), state.consecutiveAborts(), state.copyBytesPerSec(), state.maintenanceLevel(), state.driftSince());
        // the new COPYs carry the share of the new batch; the carried ones get it too if theirs is off by the re-rate factor
        Result rerated = rerateCopies(next, carried.stream().map(Migration::id).collect(Collectors.toSet()), false);
        effects.addAll(rerated.effects());
        return new Result(rerated.state().withCopyBytesPerSec(copyBudget(next)), effects);
    }

    /** Between batches of a running repair: plan and start the next batch, or end the repair. */
    private Result planIfIdle(RepairState state, long now, Supplier<ClusterView> view, List<Effect> effects, ClusterControls controls) {
        if (!state.repairing() || state.batch() != null) {
            return new Result(state, effects);
        }
        if (controls.paused()) {
            effects.add(new Effect.Decide(false, "PAUSED", "paused by an operator: no new batch while a repair is due ("
                    + state.lastMessage() + ")", Map.of()));
            return new Result(state, effects);
        }
        ClusterView v = view.get();
        if (v.readings().isEmpty()) {
            effects.add(new Effect.Decide(false, "UNMEASURABLE", "a repair is due but the capacity reports it plans from are not all "
                    + "read yet (none, or not those of every node the latest report counts): the plan waits",
                    Map.of()));
            return new Result(state, effects); // no capacity figures yet: wait for them
        }
        List<AppliedMove> unreported = SnapshotAssembler.stillUnreported(state.unreported(), v.readings());
        MigrationPlan plan = planner.plan(v.snapshot(v.candidateSets(), unreported));
        Map<String, Double> figures = Map.of("planCv", plan.currentCv(), "projectedCv", plan.projectedCv(), "targetCv", plan.targetCv(),
                "planMoves", (double) plan.moves().size(), "planBytes", (double) plan.bytesMoved());
        if (controls.dryRun()) {
            List<Move> first = plan.moves().isEmpty() ? List.of() : BatchSelection.select(plan.moves(), maxParallel);
            effects.add(new Effect.Propose(plan, first));
            effects.add(new Effect.Decide(false, "DRY_RUN", String.format(Locale.ROOT, "dry run: a plan of %d move%s (%s), capacity CV "
                            + "%.4f → %.4f (%s); its first batch would start %d of them; nothing is sent", plan.moves().size(),
                    plan.moves().size() == 1 ? "" : "s", MembershipChanges.bytes(plan.bytesMoved()), plan.currentCv(), plan.projectedCv(), plan.outcome(),
                    first.size()), figures));
            return new Result(state, effects); // repairing stays: the plan runs once the dry run ends
        }
        if (plan.moves().isEmpty()) {
            boolean reached = plan.outcome() != MigrationPlan.Outcome.NO_IMPROVING_MOVE;
            String message = reached
                    ? String.format(Locale.ROOT, "repair done: capacity CV %.4f at or below target %.4f", plan.currentCv(), plan.targetCv())
                    : String.format(Locale.ROOT, "repair stopped early: capacity CV %.4f above target %.4f but no move improves it",
                            plan.currentCv(), plan.targetCv());
            LOG.info("{}: {}", state.cluster(), message);
            effects.add(new Effect.ReportRepair(reached ? StepResult.DONE : StepResult.FAILED, message));
            boolean excludedStand = !reached && !v.excluded().isEmpty();
            effects.add(new Effect.Decide(false, reached ? "TARGET_REACHED" : excludedStand ? "EXCLUDED" : "NO_IMPROVING_MOVE",
                    excludedStand ? message + "; the excluded nodes " + String.join(", ", new java.util.TreeSet<>(v.excluded()))
                            + " give and take nothing" : message, figures));
            return new Result(new RepairState(state.cluster(), false, state.batchSeq(), null, unreported, state.writeLoad(),
                    state.budgetBytesPerSec(), state.bytesMoved(), state.batchesCommitted(), state.batchesAborted(), message, state.routingEpoch(), state.consecutiveAborts(), 0,
                    maintenanceFactor * Math.max(plan.targetCv(), plan.currentCv()), RepairState.NEVER), effects);
        }
        List<Move> moves = BatchSelection.select(plan.moves(), maxParallel);
        long seq = state.batchSeq() + 1;
        String batchId = String.format(Locale.ROOT, "b%06d", seq);
        BatchStateMachine.Transition started = machine.start(state.cluster(), batchId, moves, now);
        effects.addAll(started.effects());
        LOG.info("{}: plan of {} moves ({} bytes), CV {} → {} ({}); batch {} starts {} of them", state.cluster(), plan.moves().size(),
                plan.bytesMoved(), plan.currentCv(), plan.projectedCv(), plan.outcome(), batchId, moves.size());
        effects.add(new Effect.Decide(true, "BATCH_STARTED", String.format(Locale.ROOT, "batch %s starts %d of a plan of %d move%s (%s), "
                        + "capacity CV %.4f → %.4f (%s)", batchId, moves.size(), plan.moves().size(), plan.moves().size() == 1 ? "" : "s",
                MembershipChanges.bytes(plan.bytesMoved()), plan.currentCv(), plan.projectedCv(), plan.outcome()), figures));
        RepairState next = new RepairState(state.cluster(), true, seq, started.batch(), unreported, state.writeLoad(),
                state.budgetBytesPerSec(), state.bytesMoved(), state.batchesCommitted(), state.batchesAborted(), state.lastMessage(), state.routingEpoch(), state.consecutiveAborts(), 0,
                0, RepairState.NEVER);
        next = next.withCopyBytesPerSec(copyBudget(next)); // the rate the batch's COPY commands carry
        return new Result(next, effects);
    }

    /**
     * A running batch's copies follow the budget: when the per-copy share moved by more than
     * {@link #RERATE_FACTOR} either way since the COPYs were sent, every migration still copying
     * (carried ones too, whatever phase the batch is in) gets
     * its COPY again with the new rate (a repeated COPY changes only the rate of a running copy).
     */
    private Result rerateCopies(RepairState state) {
        return rerateCopies(state, null, false);
    }

    /**
     * As {@link #rerateCopies(RepairState)}, for the copies among {@code ids} only (null: every copy);
     * {@code force}: whatever the drift (an operator's throttle takes effect at once).
     */
    private Result rerateCopies(RepairState state, Set<String> ids, boolean force) {
        long now = copyBudget(state);
        long sent = state.copyBytesPerSec();
        if (state.batch().finished() || now == sent || !force && (sent <= 0 || (now <= sent * RERATE_FACTOR && now * RERATE_FACTOR >= sent))) {
            return new Result(state, List.of());
        }
        List<Effect> effects = new ArrayList<>();
        for (Migration m : state.batch().migrations()) {
            if (m.state() instanceof MigrationState.Copying && (ids == null || ids.contains(m.id()))) {
                effects.add(new Effect.SendCommand(MigrationPhase.COPY, m, m.target(), state.batch().batchId()));
            }
        }
        LOG.debug("{}: copy rate {} -> {} B/s for {} running copies", state.cluster(), sent, now, effects.size());
        return new Result(state.withCopyBytesPerSec(now), effects);
    }

}
