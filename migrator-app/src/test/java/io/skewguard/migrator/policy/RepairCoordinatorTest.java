package io.skewguard.migrator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.StepResult;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class RepairCoordinatorTest {

    private static final long GB = 1L << 30;

    private final RepairCoordinator coordinator = new RepairCoordinator(new ColdestFirstPlanner(),
            new BatchStateMachine(new Timeouts(60_000, 5_000, 10_000, 20_000)),
            new AdaptiveRateLimiter(1_000, 0.5, 0.9, 0.1, 3_600_000), 4, 2);

    /** a holds four 10 GB shards at 60 %; b and c are empty; every slot's candidate set is {a}. */
    private ClusterView view = new ClusterView(List.of(
            new CapacityReading("a", 40 * GB, 100 * GB, null, Map.of(0, 10 * GB, 1, 10 * GB, 2, 10 * GB, 3, 10 * GB), 0),
            new CapacityReading("b", 0, 100 * GB, null, Map.of(), 0),
            new CapacityReading("c", 0, 100 * GB, null, Map.of(), 0)),
            new long[] {9, 1, 5, 7},
            Map.of(0, List.of("a"), 1, List.of("a"), 2, List.of("a"), 3, List.of("a")));

    private final Supplier<ClusterView> views = () -> view;

    @Test
    void confirmedCapacityStartsARepairWithABatchOfTheColdestShardsOnDisjointNodes() {
        RepairCoordinator.Result r = coordinator.onCapacityConfirmed(RepairState.fresh("c1", 1_000), 0.9, 0, views);

        assertThat(r.state().repairing()).isTrue();
        assertThat(r.effects().get(0)).isEqualTo(new Effect.ReportRepair(StepResult.PROGRESS,
                "repair started: capacity CV 0.9000 confirmed above threshold"));
        // a is the only source: the serial queue lets one of its migrations run, the coldest (slot 1)
        assertThat(r.state().batch().migrations()).extracting(Migration::slot).containsExactly(1);
    }

    @Test
    void aSecondConfirmedAlertWhileRepairingChangesNothing() {
        RepairState running = coordinator.onCapacityConfirmed(RepairState.fresh("c1", 1_000), 0.9, 0, views).state();

        RepairCoordinator.Result again = coordinator.onCapacityConfirmed(running, 0.9, 1, views);

        assertThat(again.state()).isEqualTo(running);
        assertThat(again.effects()).isEmpty();
    }

    @Test
    void afterACommittedBatchItReplansFromFiguresCorrectedForTheMoveAndStartsTheNextBatch() {
        RepairState state = coordinator.onCapacityConfirmed(RepairState.fresh("c1", 1_000), 0.9, 0, views).state();
        state = finishBatch(state);

        assertThat(state.batch().batchId()).isEqualTo("b000002");
        assertThat(state.unreported()).hasSize(1);
        // the shard of slot 1 is not planned again although the (stale) report still lists it on a
        assertThat(state.batch().migrations()).extracting(Migration::slot).doesNotContain(1);
        assertThat(state.bytesMoved()).isEqualTo(10 * GB);
    }

    @Test
    void theRepairEndsWithDoneOnceTheFiguresAreAtTheTarget() {
        RepairState state = coordinator.onCapacityConfirmed(RepairState.fresh("c1", 1_000), 0.9, 0, views).state();
        view = new ClusterView(List.of(
                new CapacityReading("a", 14 * GB, 100 * GB, null, Map.of(), 5),
                new CapacityReading("b", 13 * GB, 100 * GB, null, Map.of(), 5),
                new CapacityReading("c", 13 * GB, 100 * GB, null, Map.of(), 5)),
                new long[0], view.candidateSets());

        RepairCoordinator.Result r = coordinator.onReport(state.withBatch(null), 10, Double.NaN, 5, 5, views);

        assertThat(r.state().repairing()).isFalse();
        assertThat(r.effects()).filteredOn(e -> !(e instanceof Effect.Decide)).singleElement()
                .isInstanceOfSatisfying(Effect.ReportRepair.class, e -> assertThat(e.outcome()).isEqualTo(StepResult.DONE));
        assertThat(r.effects()).filteredOn(e -> e instanceof Effect.Decide).singleElement()
                .isInstanceOfSatisfying(Effect.Decide.class, d -> {
                    assertThat(d.acted()).isFalse();
                    assertThat(d.reason()).isEqualTo("TARGET_REACHED");
                    assertThat(d.figures()).containsKeys("planCv", "targetCv");
                });
    }

    @Test
    void reportsMoveTheBudgetAndTheCopyShareIsTheBudgetOverTheBatch() {
        RepairState state = RepairState.fresh("c1", 1_000);
        state = coordinator.onReport(state, 100, Double.NaN, 0, 0, views).state(); // the peak
        assertThat(state.budgetBytesPerSec()).isEqualTo(100);
        state = coordinator.onReport(state, 10, Double.NaN, 1, 1, views).state(); // a trough
        assertThat(state.budgetBytesPerSec()).isEqualTo(1_000);
    }

    @Test
    void runningCopiesGetTheirCopyAgainWhenTheBudgetMovesByMoreThanAQuarterAndNotOtherwise() {
        RepairState state = coordinator.onReport(RepairState.fresh("c1", 1_000), 100, Double.NaN, 0, 0, views).state(); // a peak: 100 B/s
        state = coordinator.onCapacityConfirmed(state, 0.9, 0, views).state();
        assertThat(state.copyBytesPerSec()).isEqualTo(100); // one copy: the whole budget
        Migration m = state.batch().migrations().get(0);

        RepairCoordinator.Result small = coordinator.onReport(state, 90, Double.NaN, 1, 1, views); // budget within 25 %
        assertThat(small.effects()).isEmpty();
        assertThat(small.state().copyBytesPerSec()).isEqualTo(100);

        RepairCoordinator.Result trough = coordinator.onReport(small.state(), 10, Double.NaN, 2, 2, views); // the budget is back to 1 000
        assertThat(trough.effects()).singleElement().isEqualTo(
                new Effect.SendCommand(MigrationPhase.COPY, m, m.target(), state.batch().batchId()));
        assertThat(trough.state().copyBytesPerSec()).isEqualTo(1_000).isEqualTo(RepairCoordinator.copyBudget(trough.state()));

        // once the copy is done nothing is resent, whatever the budget does
        RepairState copied = coordinator.onStatus(trough.state(),
                new StatusEvent(m.id(), m.target(), MigrationPhase.COPY, StepResult.DONE, 10 * GB, null, 3), 3, views).state();
        assertThat(coordinator.onReport(copied, 100, Double.NaN, 4, 4, views).effects())
                .noneMatch(e -> e instanceof Effect.SendCommand c && c.phase() == MigrationPhase.COPY);
    }

    @Test
    void aCopyThatIsDoneLeavesItsShareOfTheBudgetToTheCopiesStillRunning() {
        Migration a = new Migration("m-a", 0, "a", "b", 10, new MigrationState.Copying(0, 0));
        Migration b = new Migration("m-b", 1, "c", "d", 10, new MigrationState.Copying(0, 0));
        RepairState two = RepairState.fresh("c1", 1_000).withBatch(new SwitchBatch("c1", "b1", List.of(a, b), new BatchPhase.Copying()));
        assertThat(RepairCoordinator.copyBudget(two)).isEqualTo(500);
        RepairState one = two.withBatch(new SwitchBatch("c1", "b1", List.of(a.with(new MigrationState.Copied()), b), new BatchPhase.Copying()));
        assertThat(RepairCoordinator.copyBudget(one)).isEqualTo(1_000);
    }

    @Test
    void afterARepairIsDoneDriftAboveTheMaintenanceLevelForTheHoldStartsAnotherWithoutAnAlert() {
        RepairCoordinator maintaining = new RepairCoordinator(new ColdestFirstPlanner(),
                new BatchStateMachine(new Timeouts(60_000, 5_000, 10_000, 20_000)),
                new AdaptiveRateLimiter(1_000, 0.5, 0.9, 0.1, 3_600_000), 4, 2, 1.5, 300_000);
        ClusterView balanced = new ClusterView(List.of(
                new CapacityReading("a", 14 * GB, 100 * GB, null, Map.of(0, 14 * GB), 0),
                new CapacityReading("b", 13 * GB, 100 * GB, null, Map.of(1, 13 * GB), 0),
                new CapacityReading("c", 13 * GB, 100 * GB, null, Map.of(2, 13 * GB), 0)),
                new long[] {1, 1, 1, 1}, view.candidateSets());
        RepairState running = maintaining.onCapacityConfirmed(RepairState.fresh("c1", 1_000), 0.9, 0, () -> balanced).state();
        assertThat(running.repairing()).isFalse(); // at the target at once: done
        double level = running.maintenanceLevel();
        assertThat(level).isGreaterThan(0);

        // under the level: nothing; above it, but not for the hold: nothing; for the hold: a repair starts
        assertThat(maintaining.onReport(running, 10, level * 0.9, 1_000, 1_000, views).state().repairing()).isFalse();
        RepairState drifting = maintaining.onReport(running, 10, level * 1.1, 2_000, 2_000, views).state();
        assertThat(drifting.repairing()).isFalse();
        assertThat(drifting.driftSince()).isEqualTo(2_000);
        assertThat(maintaining.onReport(drifting, 10, level * 0.9, 3_000, 3_000, views).state().driftSince())
                .isEqualTo(RepairState.NEVER); // back under: the hold starts again
        drifting = maintaining.onReport(drifting, 10, level * 1.1, 200_000, 200_000, views).state();
        RepairCoordinator.Result started = maintaining.onReport(drifting, 10, level * 1.1, 302_000, 302_000, views);
        assertThat(started.state().repairing()).isTrue();
        assertThat(started.state().batch()).isNotNull(); // the skewed view: a is over, b and c empty
        assertThat(started.effects().get(0)).isInstanceOfSatisfying(Effect.ReportRepair.class,
                e -> assertThat(e.message()).startsWith("maintenance repair started"));
    }

    @Test
    void noMaintenanceBeforeAnyRepairNorWhenItIsOff() {
        RepairState fresh = RepairState.fresh("c1", 1_000);
        assertThat(coordinator.onReport(fresh, 10, 0.9, 0, 0, views).state().repairing()).isFalse();
        assertThat(coordinator.onReport(fresh, 10, 0.9, 1_000_000, 1_000_000, views).state().repairing()).isFalse();
    }

    @Test
    void aRepairWhoseBatchesKeepAbortingStopsAndSaysWhy() {
        RepairState state = coordinator.onCapacityConfirmed(RepairState.fresh("c1", 1_000), 0.9, 0, views).state();
        List<Effect> last = List.of();
        for (int i = 0; i < 2; i++) {
            Migration m = state.batch().migrations().get(0);
            RepairCoordinator.Result r = coordinator.onStatus(state,
                    new StatusEvent(m.id(), m.target(), MigrationPhase.COPY, StepResult.FAILED, 0, "disk full", i), i, views);
            r = coordinator.onTick(r.state(), i + 20_000, views); // ABORT answers never come
            state = r.state();
            last = r.effects();
        }

        assertThat(state.repairing()).isFalse();
        assertThat(state.batchesAborted()).isEqualTo(2);
        assertThat(last).last().isInstanceOfSatisfying(Effect.ReportRepair.class, e -> {
            assertThat(e.outcome()).isEqualTo(StepResult.FAILED);
            assertThat(e.message()).contains("2 batches in a row aborted").contains("disk full");
        });
    }

    @Test
    void aSwitchedCopyFreesItsNodesForMovesOfAFreshPlanWhileTheCarriedCopyGoesOnUnderItsId() {
        // a and e hold four 10 GB shards each (40 %); b, c, d, f are empty: the first batch is a → b and e → c
        view = twoSources(4, "b", "c", "d", "f");
        RepairState state = coordinator.onCapacityConfirmed(RepairState.fresh("c1", 1_000), 0.9, 0, views).state();
        assertThat(state.batch().migrations()).extracting(Migration::id).containsExactly("c1/b000001/0000/a", "c1/b000001/0004/e");
        Migration carried = state.batch().migrations().get(1);

        RepairCoordinator.Result r = finish(state, state.batch().migrations().get(0));

        SwitchBatch next = r.state().batch();
        assertThat(next.batchId()).isEqualTo("b000002");
        assertThat(next.find(carried.id())).contains(carried); // same id, same state: nothing restarted
        // the plan counts e → c as done (e at 30 %, c at 10 %), so a, now the fullest free source, gives
        // its next shard to d; a plan blind to the carried copy would start with e and send a's shard to f
        assertThat(next.migrations()).extracting(Migration::id).containsExactly("c1/b000002/0001/a", "c1/b000001/0004/e");
        assertThat(next.migrations().get(0).target()).isEqualTo("d");
        assertThat(r.effects()).filteredOn(e -> e instanceof Effect.SendCommand c && c.phase() == MigrationPhase.COPY)
                .extracting(e -> ((Effect.SendCommand) e).migration().id()).containsExactly("c1/b000002/0001/a");
        assertThat(r.state().bytesMoved()).isEqualTo(10 * GB);
        assertThat(r.state().batchesCommitted()).isEqualTo(1);
    }

    @Test
    void theRepairDoesNotEndWhileCarriedCopiesRunAndEndsOnceTheyAreDone() {
        view = twoSources(2, "b", "c"); // a → b and e → c balance the cluster
        RepairState state = coordinator.onCapacityConfirmed(RepairState.fresh("c1", 1_000), 0.9, 0, views).state();
        Migration carried = state.batch().migrations().get(1);

        RepairCoordinator.Result first = finish(state, state.batch().migrations().get(0));
        assertThat(first.state().repairing()).isTrue();
        assertThat(first.effects()).noneMatch(e -> e instanceof Effect.ReportRepair);
        assertThat(first.state().batch().migrations()).containsExactly(carried); // nothing to add: balanced once it is done

        RepairCoordinator.Result last = finish(first.state(), carried);
        assertThat(last.state().repairing()).isFalse();
        assertThat(last.state().batch()).isNull();
        assertThat(last.effects()).filteredOn(e -> !(e instanceof Effect.Decide)).last().isInstanceOfSatisfying(Effect.ReportRepair.class,
                e -> assertThat(e.outcome()).isEqualTo(StepResult.DONE));
        assertThat(last.state().bytesMoved()).isEqualTo(20 * GB);
    }

    @Test
    void carriedCopiesKeepTheirShareOfTheBudgetAndAreReratedWhileTheBatchSwitches() {
        Migration switching = new Migration("m-a", 0, "a", "b", 10, new MigrationState.Preparing(java.util.Set.of()));
        Migration carried = new Migration("m-c", 1, "c", "d", 10, new MigrationState.Copying(0, 0));
        RepairState state = RepairState.fresh("c1", 1_000)
                .withBatch(new SwitchBatch("c1", "b2", List.of(switching, carried), new BatchPhase.Preparing(5_000)))
                .withCopyBytesPerSec(10);
        assertThat(RepairCoordinator.copyBudget(state)).isEqualTo(1_000); // the only copy running

        RepairCoordinator.Result r = coordinator.onReport(state, 10, Double.NaN, 1, 1, views); // the first report: the floor, 100

        assertThat(r.effects()).containsExactly(new Effect.SendCommand(MigrationPhase.COPY, carried, "d", "b2"));
        assertThat(r.state().copyBytesPerSec()).isEqualTo(100);
    }

    @Test
    void anAbortedSwitchCountsAsAnAbortButItsCarriedCopyGoesOnInTheNextBatch() {
        view = twoSources(2, "b", "c");
        RepairState state = coordinator.onCapacityConfirmed(RepairState.fresh("c1", 1_000), 0.9, 0, views).state();
        Migration m = state.batch().migrations().get(0);
        Migration carried = state.batch().migrations().get(1);
        state = coordinator.onStatus(state, new StatusEvent(m.id(), m.target(), MigrationPhase.COPY, StepResult.DONE, 0, null, 1), 1, views)
                .state();
        state = coordinator.onStatus(state, new StatusEvent(m.id(), m.source(), MigrationPhase.PREPARE, StepResult.FAILED, 0, "no", 2), 2,
                views).state();

        RepairCoordinator.Result r = coordinator.onTick(state, 2 + 20_000, views); // ABORT answers never come

        assertThat(r.state().batchesAborted()).isEqualTo(1);
        assertThat(r.state().consecutiveAborts()).isEqualTo(1);
        assertThat(r.state().batch().find(carried.id())).contains(carried);
    }

    /** Sources a and e with {@code shards} 10 GB shards each (slots 0… and 4…) and {@code empty} nodes; each slot's set is its holder. */
    private static ClusterView twoSources(int shards, String... empty) {
        Map<Integer, Long> a = new java.util.HashMap<>();
        Map<Integer, Long> e = new java.util.HashMap<>();
        Map<Integer, List<String>> sets = new java.util.HashMap<>();
        for (int i = 0; i < shards; i++) {
            a.put(i, 10 * GB);
            e.put(4 + i, 10 * GB);
            sets.put(i, List.of("a"));
            sets.put(4 + i, List.of("e"));
        }
        List<CapacityReading> readings = new java.util.ArrayList<>(List.of(
                new CapacityReading("a", shards * 10 * GB, 100 * GB, null, a, 0),
                new CapacityReading("e", shards * 10 * GB, 100 * GB, null, e, 0)));
        for (String node : empty) {
            readings.add(new CapacityReading(node, 0, 100 * GB, null, Map.of(), 0));
        }
        return new ClusterView(readings, new long[8], sets);
    }

    /** Answers every step of {@code m} from its COPY DONE to its CLEANUP DONE. */
    private RepairCoordinator.Result finish(RepairState state, Migration m) {
        RepairCoordinator.Result r = null;
        long t = 1;
        for (Object[] step : new Object[][] {
                {MigrationPhase.COPY, m.target()}, {MigrationPhase.PREPARE, m.target()}, {MigrationPhase.PREPARE, m.source()},
                {MigrationPhase.COMMIT, m.target()}, {MigrationPhase.COMMIT, m.source()}, {MigrationPhase.CLEANUP, m.source()}}) {
            StatusEvent done = new StatusEvent(m.id(), (String) step[1], (MigrationPhase) step[0], StepResult.DONE, 0, null, t);
            r = coordinator.onStatus(state, done, t++, views);
            state = r.state();
        }
        return r;
    }

    private RepairState finishBatch(RepairState state) {
        Migration m = state.batch().migrations().get(0);
        long t = 1;
        for (Object[] step : new Object[][] {
                {MigrationPhase.COPY, m.target()}, {MigrationPhase.PREPARE, m.target()}, {MigrationPhase.PREPARE, m.source()},
                {MigrationPhase.COMMIT, m.target()}, {MigrationPhase.COMMIT, m.source()}, {MigrationPhase.CLEANUP, m.source()}}) {
            StatusEvent done = new StatusEvent(m.id(), (String) step[1], (MigrationPhase) step[0], StepResult.DONE, 0, null, t);
            state = coordinator.onStatus(state, done, t++, views).state();
        }
        return state;
    }
}
