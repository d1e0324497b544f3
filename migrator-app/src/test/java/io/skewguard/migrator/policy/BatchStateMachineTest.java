package io.skewguard.migrator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.StepResult;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchStateMachineTest {

    private static final Timeouts TIMEOUTS = new Timeouts(60_000, 5_000, 10_000, 20_000);

    private final BatchStateMachine machine = new BatchStateMachine(TIMEOUTS);

    // shard ids 0003/a and 0010/c: commit order is slot 3 then slot 10 whatever the plan order
    private final List<Move> moves = List.of(new Move(10, "c", "d", 100), new Move(3, "a", "b", 200));

    @Test
    void startMarksEachSlotInFlightThenSendsCopyToTheTarget() {
        BatchStateMachine.Transition t = machine.start("c1", "b1", moves, 0);

        assertThat(t.batch().phase()).isEqualTo(new BatchPhase.Copying());
        assertThat(t.effects()).hasSize(4);
        assertThat(t.effects().get(0)).isInstanceOf(Effect.MarkInFlight.class);
        assertThat(sends(t)).containsExactly("COPY 0003/a -> b", "COPY 0010/c -> d");
    }

    @Test
    void batchWithASharedNodeIsRefused() {
        List<Move> sharing = List.of(new Move(1, "a", "b", 1), new Move(2, "b", "c", 1));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> machine.start("c1", "b1", sharing, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theFirstCompleteCopyStartsTheSwitchOfTheCompleteCopiesWhileTheOthersKeepCopying() {
        SwitchBatch batch = machine.start("c1", "b1", moves, 0).batch();

        BatchStateMachine.Transition first = machine.on(batch, done(batch, 0, MigrationPhase.COPY, "b"), 1);

        assertThat(first.batch().phase()).isInstanceOf(BatchPhase.Preparing.class);
        assertThat(sends(first)).containsExactly("PREPARE 0003/a -> b", "PREPARE 0003/a -> a");
        assertThat(first.batch().carried()).extracting(Migration::shardId).containsExactly("0010/c");
        assertThat(first.batch().migrations().get(1).state()).isEqualTo(new MigrationState.Copying(0, 0));
    }

    @Test
    void completeCopiesSwitchTogetherInShardIdOrder() {
        BatchStateMachine.Transition t = machine.onTick(bothCopied(), 2);

        assertThat(t.batch().phase()).isEqualTo(new BatchPhase.Preparing(2 + 5_000));
        assertThat(sends(t)).containsExactly("PREPARE 0003/a -> b", "PREPARE 0003/a -> a", "PREPARE 0010/c -> d", "PREPARE 0010/c -> c");
        assertThat(t.batch().carried()).isEmpty();
    }

    @Test
    void aCarriedCopyKeepsTakingAnswersAndTheSwitchFinishesWithoutWaitingForIt() {
        SwitchBatch batch = machine.start("c1", "b1", moves, 0).batch();
        batch = machine.on(batch, done(batch, 0, MigrationPhase.COPY, "b"), 1).batch();
        batch = machine.on(batch, new StatusEvent(batch.migrations().get(1).id(), "d", MigrationPhase.COPY, StepResult.PROGRESS, 40,
                null, 2), 2).batch();
        assertThat(batch.migrations().get(1).state()).isEqualTo(new MigrationState.Copying(40, 2));
        for (Object[] step : new Object[][] {{MigrationPhase.PREPARE, "a"}, {MigrationPhase.PREPARE, "b"},
                {MigrationPhase.COMMIT, "a"}, {MigrationPhase.COMMIT, "b"}, {MigrationPhase.CLEANUP, "a"}}) {
            batch = machine.on(batch, done(batch, 0, (MigrationPhase) step[0], (String) step[1]), 3).batch();
        }

        assertThat(batch.phase()).isEqualTo(new BatchPhase.Finished(true, "committed"));
        assertThat(batch.migrations().get(0).state()).isInstanceOf(MigrationState.Cleaned.class);
        assertThat(batch.carried()).singleElement().satisfies(m -> {
            assertThat(m.shardId()).isEqualTo("0010/c");
            assertThat(m.state()).isEqualTo(new MigrationState.Copying(40, 2));
        });
    }

    @Test
    void aCarriedCopyCompletingDuringTheSwitchWaitsForTheNextOne() {
        SwitchBatch batch = machine.start("c1", "b1", moves, 0).batch();
        batch = machine.on(batch, done(batch, 0, MigrationPhase.COPY, "b"), 1).batch();

        BatchStateMachine.Transition t = machine.on(batch, done(batch, 1, MigrationPhase.COPY, "d"), 2);

        assertThat(t.effects()).isEmpty();
        assertThat(t.batch().migrations().get(1).state()).isEqualTo(new MigrationState.Copied());
        assertThat(t.batch().carried()).hasSize(1);
    }

    @Test
    void anAbortedSwitchLeavesTheCarriedCopiesRunning() {
        SwitchBatch batch = machine.start("c1", "b1", moves, 0).batch();
        batch = machine.on(batch, done(batch, 0, MigrationPhase.COPY, "b"), 1).batch();

        BatchStateMachine.Transition t = machine.on(batch, answer(batch, 0, MigrationPhase.PREPARE, "a", StepResult.FAILED), 2);
        SwitchBatch finished = t.batch();
        for (String node : List.of("a", "b")) {
            finished = machine.on(finished, done(batch, 0, MigrationPhase.ABORT, node), 3).batch();
        }

        assertThat(sends(t)).containsExactly("ABORT 0003/a -> b", "ABORT 0003/a -> a");
        assertThat(t.effects()).filteredOn(e -> e instanceof Effect.ClearInFlight).hasSize(1);
        assertThat(finished.phase()).isInstanceOfSatisfying(BatchPhase.Finished.class, f -> assertThat(f.committed()).isFalse());
        assertThat(finished.carried()).extracting(Migration::state).containsExactly(new MigrationState.Copying(0, 0));
    }

    @Test
    void aCarriedCopyThatFailsOrStallsDuringTheSwitchIsMarkedAndTheSwitchGoesOn() {
        SwitchBatch batch = machine.start("c1", "b1", List.of(new Move(10, "c", "d", 100), new Move(3, "a", "b", 200),
                new Move(20, "e", "f", 300)), 0).batch();
        batch = machine.on(batch, new StatusEvent(batch.migrations().get(2).id(), "f", MigrationPhase.COPY, StepResult.PROGRESS, 1,
                null, 58_000), 58_000).batch();
        batch = machine.on(batch, done(batch, 0, MigrationPhase.COPY, "b"), 58_000).batch(); // PREPARE deadline 63 000
        batch = machine.on(batch, done(batch, 0, MigrationPhase.PREPARE, "a"), 58_001).batch();

        SwitchBatch failed = machine.on(batch, answer(batch, 1, MigrationPhase.COPY, "d", StepResult.FAILED), 58_002).batch();
        BatchStateMachine.Transition stalled = machine.onTick(batch, 60_000); // 0010/c is 60 s without an answer; 0020/e is not

        assertThat(failed.phase()).isInstanceOf(BatchPhase.Preparing.class);
        assertThat(failed.migrations().get(1).state()).isEqualTo(new MigrationState.CopyFailed("copy of 0010/c to d failed: boom"));
        SwitchBatch marked = stalled.batch();
        assertThat(marked.phase()).isInstanceOf(BatchPhase.Preparing.class);
        assertThat(marked.migrations().get(1).state()).isInstanceOfSatisfying(MigrationState.CopyFailed.class,
                f -> assertThat(f.reason()).contains("0010/c").contains("stalled"));
        assertThat(marked.migrations().get(2).state()).isInstanceOf(MigrationState.Copying.class);
        assertThat(stalled.effects()).isEmpty();
    }

    @Test
    void theNextBatchKeepsTheCarriedIdsSendsThemNothingAndStartsItsNewMoves() {
        SwitchBatch finished = finishedWithCarried();

        BatchStateMachine.Transition t = machine.carryOn(finished, "b2", List.of(new Move(7, "a", "x", 50)), 100);

        assertThat(t.batch().batchId()).isEqualTo("b2");
        assertThat(t.batch().phase()).isEqualTo(new BatchPhase.Copying());
        assertThat(t.batch().migrations()).extracting(Migration::id).containsExactly("c1/b2/0007/a", "c1/b1/0010/c");
        assertThat(t.batch().migrations().get(1)).isEqualTo(finished.carried().get(0));
        assertThat(sends(t)).containsExactly("COPY 0007/a -> x");
        assertThat(t.effects()).filteredOn(e -> e instanceof Effect.MarkInFlight).singleElement()
                .isEqualTo(new Effect.MarkInFlight(t.batch().migrations().get(0)));
    }

    @Test
    void theNextBatchRefusesAMoveOnACarriedNodeOrSlot() {
        SwitchBatch finished = finishedWithCarried();

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> machine.carryOn(finished, "b2", List.of(new Move(7, "d", "x", 1)), 100))
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> machine.carryOn(finished, "b2", List.of(new Move(10, "a", "x", 1)), 100))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCarriedCopyThatIsCompleteSwitchesAsTheNextBatchStarts() {
        SwitchBatch finished = finishedWithCarried();
        finished = finished.with(List.of(finished.migrations().get(0), finished.migrations().get(1).with(new MigrationState.Copied())));

        BatchStateMachine.Transition t = machine.carryOn(finished, "b2", List.of(new Move(7, "a", "x", 50)), 100);

        assertThat(t.batch().phase()).isEqualTo(new BatchPhase.Preparing(100 + 5_000));
        assertThat(sends(t)).containsExactly("COPY 0007/a -> x", "PREPARE 0010/c -> d", "PREPARE 0010/c -> c");
        assertThat(t.batch().carried()).extracting(Migration::id).containsExactly("c1/b2/0007/a");
    }

    @Test
    void failedCarriedCopiesAreAbortedByThemselvesAndTheHealthyOnesRideAlong() {
        SwitchBatch finished = finishedWithCarried();
        Migration failed = finished.migrations().get(1).with(new MigrationState.CopyFailed("copy of 0010/c to d failed: disk"));
        Migration healthy = new Migration("c1/b1/0020/e", 20, "e", "f", 5, new MigrationState.Copying(3, 90));
        finished = finished.with(List.of(finished.migrations().get(0), failed, healthy));

        BatchStateMachine.Transition t = machine.carryOn(finished, "b2", List.of(), 100);

        assertThat(t.batch().phase()).isEqualTo(new BatchPhase.Aborting("copy of 0010/c to d failed: disk", 100 + 20_000));
        assertThat(sends(t)).containsExactly("ABORT 0010/c -> d", "ABORT 0010/c -> c");
        assertThat(t.batch().carried()).containsExactly(healthy);
        SwitchBatch done = t.batch();
        for (String node : List.of("c", "d")) {
            done = machine.on(done, new StatusEvent(failed.id(), node, MigrationPhase.ABORT, StepResult.DONE, 0, null, 101), 101).batch();
        }
        assertThat(done.phase()).isInstanceOf(BatchPhase.Finished.class);
        assertThat(done.carried()).containsExactly(healthy);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> machine.carryOn(finishedWith(failed), "b2",
                List.of(new Move(7, "a", "x", 1)), 100)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aCopyCarriedInStillStallsByTheTimeOfItsLastAnswer() {
        SwitchBatch next = machine.carryOn(finishedWithCarried(), "b2", List.of(new Move(7, "a", "x", 50)), 50_000).batch();

        assertThat(machine.onTick(next, 59_999).batch().phase()).isEqualTo(new BatchPhase.Copying()); // last answer at 0
        assertThat(machine.onTick(next, 60_000).batch().phase()).isInstanceOfSatisfying(BatchPhase.Aborting.class,
                a -> assertThat(a.reason()).contains("0010/c"));
    }

    @Test
    void commitsGoOneByOneInShardIdOrderEachAfterThePreviousIsAcknowledged() {
        SwitchBatch batch = prepared();
        BatchStateMachine.Transition last = machine.on(batch, done(batch, 1, MigrationPhase.PREPARE, "c"), 10);

        assertThat(last.batch().phase()).isEqualTo(new BatchPhase.Committing(0));
        assertThat(last.effects().get(0)).isEqualTo(new Effect.SwitchSlot(last.batch().migrations().get(0)));
        assertThat(sends(last)).containsExactly("COMMIT 0003/a -> b", "COMMIT 0003/a -> a");

        BatchStateMachine.Transition half = machine.on(last.batch(), done(batch, 0, MigrationPhase.COMMIT, "b"), 11);
        assertThat(half.effects()).isEmpty();
        BatchStateMachine.Transition next = machine.on(half.batch(), done(batch, 0, MigrationPhase.COMMIT, "a"), 12);

        assertThat(next.batch().phase()).isEqualTo(new BatchPhase.Committing(1));
        assertThat(sends(next)).containsExactly("CLEANUP 0003/a -> a", "COMMIT 0010/c -> d", "COMMIT 0010/c -> c");
        assertThat(next.effects()).filteredOn(e -> e instanceof Effect.SwitchSlot).hasSize(1);
    }

    @Test
    void theTargetsOwnCommitTimeIsKeptWhenTheSourceAnswersLast() {
        SwitchBatch batch = prepared();
        SwitchBatch committing = machine.on(batch, done(batch, 1, MigrationPhase.PREPARE, "c"), 10).batch();
        Migration m = committing.migrations().get(0);
        // the target answers at its own 7 777, the source at 8 888; the coordinator's clock says 50 000
        SwitchBatch half = machine.on(committing, new StatusEvent(m.id(), "b", MigrationPhase.COMMIT, StepResult.DONE, 0, null, 7_777),
                40_000).batch();
        SwitchBatch both = machine.on(half, new StatusEvent(m.id(), "a", MigrationPhase.COMMIT, StepResult.DONE, 0, null, 8_888),
                50_000).batch();

        assertThat(both.migrations().get(0).state()).isInstanceOfSatisfying(MigrationState.CleaningUp.class,
                c -> assertThat(c.targetCommittedAt()).isEqualTo(7_777));
    }

    @Test
    void batchFinishesCommittedWhenEverySourceCleanedUp() {
        SwitchBatch batch = committedBothWaitingForCleanup();

        SwitchBatch one = machine.on(batch, done(batch, 0, MigrationPhase.CLEANUP, "a"), 30).batch();
        SwitchBatch both = machine.on(one, done(batch, 1, MigrationPhase.CLEANUP, "c"), 31).batch();

        assertThat(one.finished()).isFalse();
        assertThat(both.phase()).isEqualTo(new BatchPhase.Finished(true, "committed"));
    }

    @Test
    void failedCopyWhileTheBatchCopiesAbortsTheWholeBatchAndClearsEveryInFlightMark() {
        SwitchBatch batch = machine.start("c1", "b1", moves, 0).batch();

        BatchStateMachine.Transition t = machine.on(batch, answer(batch, 1, MigrationPhase.COPY, "d", StepResult.FAILED), 2);

        assertThat(t.batch().phase()).isInstanceOf(BatchPhase.Aborting.class);
        assertThat(t.effects()).filteredOn(e -> e instanceof Effect.ClearInFlight).hasSize(2);
        assertThat(t.effects()).noneMatch(e -> e instanceof Effect.SwitchSlot);
        assertThat(sends(t)).containsExactly("ABORT 0003/a -> b", "ABORT 0003/a -> a", "ABORT 0010/c -> d", "ABORT 0010/c -> c");
    }

    @Test
    void rejectedPrepareAbortsTheWholeBatch() {
        SwitchBatch batch = prepared();

        BatchStateMachine.Transition t = machine.on(batch, answer(batch, 1, MigrationPhase.PREPARE, "c", StepResult.FAILED), 10);

        assertThat(t.batch().phase()).isInstanceOf(BatchPhase.Aborting.class);
        assertThat(t.effects()).noneMatch(e -> e instanceof Effect.SwitchSlot);
    }

    @Test
    void prepareDeadlineAbortsTheWholeBatchAndNamesTheSilentNodes() {
        SwitchBatch batch = prepared(); // c has not answered PREPARE; deadline = 2 + 5000

        assertThat(machine.onTick(batch, 5_001).batch()).isEqualTo(batch);
        BatchStateMachine.Transition t = machine.onTick(batch, 5_002);

        assertThat(t.batch().phase()).isInstanceOfSatisfying(BatchPhase.Aborting.class,
                a -> assertThat(a.reason()).contains("c (0010/c)"));
    }

    @Test
    void stalledCopyAbortsButProgressKeepsItAlive() {
        SwitchBatch batch = machine.start("c1", "b1", moves, 0).batch();
        SwitchBatch progressing = machine.on(batch, answer(batch, 0, MigrationPhase.COPY, "b", StepResult.PROGRESS), 50_000).batch();
        progressing = machine.on(progressing, answer(batch, 1, MigrationPhase.COPY, "d", StepResult.PROGRESS), 50_000).batch();

        assertThat(machine.onTick(progressing, 100_000).batch().phase()).isEqualTo(new BatchPhase.Copying());
        assertThat(machine.onTick(progressing, 110_000).batch().phase()).isInstanceOf(BatchPhase.Aborting.class);
    }

    @Test
    void pastTheCommitPointAFailureNeverAbortsAndTheCommitIsSentAgain() {
        SwitchBatch batch = prepared();
        SwitchBatch committing = machine.on(batch, done(batch, 1, MigrationPhase.PREPARE, "c"), 10).batch();

        SwitchBatch afterFailure = machine.on(committing, answer(batch, 0, MigrationPhase.COMMIT, "b", StepResult.FAILED), 11).batch();
        BatchStateMachine.Transition retry = machine.onTick(afterFailure, 10 + 10_000);

        assertThat(afterFailure.phase()).isEqualTo(new BatchPhase.Committing(0));
        assertThat(retry.batch().phase()).isEqualTo(new BatchPhase.Committing(0));
        assertThat(sends(retry)).containsExactly("COMMIT 0003/a -> b", "COMMIT 0003/a -> a");
    }

    @Test
    void abortedBatchFinishesWhenEveryParticipantAnsweredOrAtTheDeadline() {
        SwitchBatch batch = machine.start("c1", "b1", moves, 0).batch();
        SwitchBatch aborting = machine.on(batch, answer(batch, 0, MigrationPhase.COPY, "b", StepResult.FAILED), 1).batch();

        SwitchBatch acked = aborting;
        for (String[] p : new String[][] {{"0", "a"}, {"0", "b"}, {"1", "c"}, {"1", "d"}}) {
            acked = machine.on(acked, done(batch, Integer.parseInt(p[0]), MigrationPhase.ABORT, p[1]), 2).batch();
        }

        assertThat(acked.phase()).isInstanceOfSatisfying(BatchPhase.Finished.class, f -> assertThat(f.committed()).isFalse());
        assertThat(machine.onTick(aborting, 1 + 20_000).batch().phase()).isInstanceOf(BatchPhase.Finished.class);
    }

    @Test
    void duplicateAndStrayAnswersChangeNothing() {
        SwitchBatch batch = prepared();

        assertThat(machine.on(batch, done(batch, 0, MigrationPhase.COPY, "b"), 10).batch()).isEqualTo(batch);
        assertThat(machine.on(batch, done(batch, 0, MigrationPhase.PREPARE, "z"), 10).batch()).isEqualTo(batch);
        assertThat(machine.on(batch, new StatusEvent("c1/b9/0003/a", "a", MigrationPhase.PREPARE, StepResult.DONE, 0, null, 10), 10)
                .batch()).isEqualTo(batch);
    }

    /** Both copies complete before the batch switched (answers of one step; a state written before pipelining). */
    private SwitchBatch bothCopied() {
        SwitchBatch batch = machine.start("c1", "b1", moves, 0).batch();
        return batch.with(batch.migrations().stream().map(m -> m.with(new MigrationState.Copied())).toList());
    }

    /** b1 switched and cleaned up 0003/a; 0010/c is carried, still copying (last heard at 0). */
    private SwitchBatch finishedWithCarried() {
        SwitchBatch batch = machine.start("c1", "b1", moves, 0).batch();
        batch = machine.on(batch, done(batch, 0, MigrationPhase.COPY, "b"), 1).batch();
        for (Object[] step : new Object[][] {{MigrationPhase.PREPARE, "a"}, {MigrationPhase.PREPARE, "b"},
                {MigrationPhase.COMMIT, "a"}, {MigrationPhase.COMMIT, "b"}, {MigrationPhase.CLEANUP, "a"}}) {
            batch = machine.on(batch, done(batch, 0, (MigrationPhase) step[0], (String) step[1]), 3).batch();
        }
        assertThat(batch.finished()).isTrue();
        return batch;
    }

    private SwitchBatch finishedWith(Migration carried) {
        SwitchBatch batch = finishedWithCarried();
        return batch.with(List.of(batch.migrations().get(0), carried));
    }

    /** Every copy done, every PREPARE acknowledged except c's. */
    private SwitchBatch prepared() {
        SwitchBatch batch = machine.onTick(bothCopied(), 2).batch();
        batch = machine.on(batch, done(batch, 0, MigrationPhase.PREPARE, "a"), 3).batch();
        batch = machine.on(batch, done(batch, 0, MigrationPhase.PREPARE, "b"), 3).batch();
        return machine.on(batch, done(batch, 1, MigrationPhase.PREPARE, "d"), 3).batch();
    }

    private SwitchBatch committedBothWaitingForCleanup() {
        SwitchBatch batch = prepared();
        batch = machine.on(batch, done(batch, 1, MigrationPhase.PREPARE, "c"), 10).batch();
        for (int i = 0; i < 2; i++) {
            for (String node : batch.migrations().get(i).participants()) {
                batch = machine.on(batch, done(batch, i, MigrationPhase.COMMIT, node), 20).batch();
            }
        }
        assertThat(batch.phase()).isEqualTo(new BatchPhase.CleaningUp());
        return batch;
    }

    private static StatusEvent done(SwitchBatch batch, int index, MigrationPhase phase, String node) {
        return answer(batch, index, phase, node, StepResult.DONE);
    }

    private static StatusEvent answer(SwitchBatch batch, int index, MigrationPhase phase, String node, StepResult outcome) {
        return new StatusEvent(batch.migrations().get(index).id(), node, phase, outcome, 0, outcome == StepResult.FAILED ? "boom" : null, 0);
    }

    private static List<String> sends(BatchStateMachine.Transition t) {
        return t.effects().stream()
                .filter(e -> e instanceof Effect.SendCommand)
                .map(e -> (Effect.SendCommand) e)
                .map(s -> s.phase() + " " + s.migration().shardId() + " -> " + s.node())
                .toList();
    }

    @Test
    void whileHeldACompleteCopyWaitsAndReleaseStartsItsSwitch() {
        SwitchBatch batch = machine.start("c1", "b1", moves, 0).batch();

        BatchStateMachine.Transition held = machine.on(batch, done(batch, 0, MigrationPhase.COPY, "b"), 1, true);
        assertThat(held.effects()).isEmpty();
        assertThat(held.batch().phase()).isEqualTo(new BatchPhase.Copying());
        assertThat(held.batch().migrations().get(0).state()).isEqualTo(new MigrationState.Copied());
        assertThat(machine.onTick(held.batch(), 2, true).effects()).as("the clock does not start it either").isEmpty();

        BatchStateMachine.Transition released = machine.release(held.batch(), 3);
        assertThat(released.batch().phase()).isInstanceOf(BatchPhase.Preparing.class);
        assertThat(sends(released)).containsExactly("PREPARE 0003/a -> b", "PREPARE 0003/a -> a");
    }

    @Test
    void aHoldDoesNotStopASwitchAlreadyStarted() {
        SwitchBatch batch = machine.start("c1", "b1", moves, 0).batch();
        batch = machine.on(batch, done(batch, 0, MigrationPhase.COPY, "b"), 1).batch();
        batch = machine.on(batch, done(batch, 0, MigrationPhase.PREPARE, "a"), 2, true).batch();

        BatchStateMachine.Transition t = machine.on(batch, done(batch, 0, MigrationPhase.PREPARE, "b"), 3, true);

        assertThat(t.batch().phase()).isInstanceOf(BatchPhase.Committing.class);
        assertThat(sends(t)).containsExactlyInAnyOrder("COMMIT 0003/a -> a", "COMMIT 0003/a -> b");
    }
}
