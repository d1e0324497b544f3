package io.skewguard.agent.command;

import static io.skewguard.agent.Commands.step;
import static io.skewguard.agent.Commands.weight;
import static io.skewguard.schemas.MigrationPhase.ABORT;
import static io.skewguard.schemas.MigrationPhase.CLEANUP;
import static io.skewguard.schemas.MigrationPhase.COMMIT;
import static io.skewguard.schemas.MigrationPhase.COPY;
import static io.skewguard.schemas.MigrationPhase.PREPARE;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import org.junit.jupiter.api.Test;

/** The idempotence rules of {@link CommandApplier}, one by one (docs/agents.md). */
class CommandApplierTest {

    private static final String T = "target";
    private static final String S = "source";
    private final CommandApplier applier = new CommandApplier();

    private Applied onTarget(AgentState state, MigrationPhase phase) {
        return applier.apply(state, step(phase, "m1", 7, S, T, T, 500), 42);
    }

    private Applied onSource(AgentState state, MigrationPhase phase) {
        return applier.apply(state, step(phase, "m1", 7, S, T, S), 42);
    }

    private static MigrationStatus only(Applied applied) {
        assertThat(applied.answers()).hasSize(1);
        return applied.answers().get(0);
    }

    private AgentState targetAt(Stage stage) {
        AgentState s = onTarget(AgentState.initial(T), COPY).state();
        if (stage == Stage.COPYING) {
            return s;
        }
        s = applier.copyCompleted(s, "m1", 1234, 1).state();
        return switch (stage) {
            case COPIED -> s;
            case PREPARED -> onTarget(s, PREPARE).state();
            case COMMITTED -> onTarget(onTarget(s, PREPARE).state(), COMMIT).state();
            case ABORTED -> onTarget(s, ABORT).state();
            case COPYING, CLEANED -> throw new IllegalArgumentException(stage.toString());
        };
    }

    @Test
    void aNewerWeightEpochIsAppliedAndAnOlderOrEqualOneIgnored() {
        AgentState s = applier.apply(AgentState.initial(T), weight(T, 5, 1.2)).state();
        assertThat(s.weightEpoch()).isEqualTo(5);
        assertThat(s.weight()).isEqualTo(1.2);

        Applied older = applier.apply(s, weight(T, 4, 0.7));
        Applied same = applier.apply(s, weight(T, 5, 0.9));
        assertThat(older.state()).isEqualTo(s);
        assertThat(older.actions()).isEmpty();
        assertThat(same.state()).isEqualTo(s);
        assertThat(same.actions()).isEmpty();

        Applied newer = applier.apply(s, weight(T, 6, 0.9));
        assertThat(newer.actions()).containsExactly(new StoreAction.SetWeight(6, 0.9));
    }

    @Test
    void firstCopyStartsTheCopyAndAnswersProgressZero() {
        Applied a = onTarget(AgentState.initial(T), COPY);
        assertThat(a.actions()).containsExactly(new StoreAction.StartCopy("m1", 7, S, 500));
        assertThat(only(a).getOutcome()).isEqualTo(StepResult.PROGRESS);
        assertThat(only(a).getBytesCopied()).isZero();
        assertThat(a.state().migration("m1").stage()).isEqualTo(Stage.COPYING);
    }

    @Test
    void copyDoneIsAnsweredWithTheCopyCommandIdAndBytes() {
        AgentState copying = targetAt(Stage.COPYING);
        MigrationStatus done = only(applier.copyCompleted(copying, "m1", 1234, 9));
        assertThat(done.getPhase()).isEqualTo(COPY);
        assertThat(done.getOutcome()).isEqualTo(StepResult.DONE);
        assertThat(done.getBytesCopied()).isEqualTo(1234);
        assertThat(done.getCommandId()).isEqualTo("m1/COPY/target");
        assertThat(done.getNode()).isEqualTo(T);
    }

    @Test
    void copyOfAnAlreadyCopiedShardAnswersDoneAgainAndStartsNothing() {
        for (Stage stage : new Stage[] {Stage.COPIED, Stage.PREPARED, Stage.COMMITTED}) {
            AgentState s = targetAt(stage);
            Applied again = onTarget(s, COPY);
            assertThat(again.state()).isEqualTo(s);
            assertThat(again.actions()).isEmpty();
            assertThat(only(again).getOutcome()).isEqualTo(StepResult.DONE);
            assertThat(only(again).getBytesCopied()).isEqualTo(1234);
        }
    }

    @Test
    void copyRepeatedWhileCopyingResumesTheSameCopy() {
        AgentState s = targetAt(Stage.COPYING);
        Applied again = onTarget(s, COPY);
        assertThat(again.state()).isEqualTo(s);
        assertThat(again.actions()).containsExactly(new StoreAction.StartCopy("m1", 7, S, 500));
        assertThat(only(again).getOutcome()).isEqualTo(StepResult.PROGRESS);
    }

    @Test
    void copyRepeatedWithAnotherRateWhileCopyingRecordsAndAppliesTheNewRate() {
        AgentState s = targetAt(Stage.COPYING);
        Applied faster = applier.apply(s, step(COPY, "m1", 7, S, T, T, 5_000), 43);
        assertThat(faster.state().migration("m1").maxBytesPerSec()).isEqualTo(5_000);
        assertThat(faster.state().migration("m1").stage()).isEqualTo(Stage.COPYING);
        assertThat(faster.actions()).containsExactly(new StoreAction.StartCopy("m1", 7, S, 5_000));
        assertThat(only(faster).getOutcome()).isEqualTo(StepResult.PROGRESS);
        // a resumed copy after a restart keeps the latest rate
        assertThat(applier.resume(faster.state())).containsExactly(new StoreAction.StartCopy("m1", 7, S, 5_000));
    }

    @Test
    void prepareOnTheTargetFailsUntilTheCopyIsCompleteThenIsDone() {
        assertThat(only(onTarget(AgentState.initial(T), PREPARE)).getOutcome()).isEqualTo(StepResult.FAILED);
        Applied early = onTarget(targetAt(Stage.COPYING), PREPARE);
        assertThat(only(early).getOutcome()).isEqualTo(StepResult.FAILED);
        assertThat(only(early).getMessage()).contains("not complete");
        assertThat(early.state()).isEqualTo(targetAt(Stage.COPYING));
        assertThat(only(onTarget(targetAt(Stage.COPIED), PREPARE)).getOutcome()).isEqualTo(StepResult.DONE);
    }

    @Test
    void prepareAfterCommitAnswersDone() {
        AgentState committed = targetAt(Stage.COMMITTED);
        Applied a = onTarget(committed, PREPARE);
        assertThat(a.state()).isEqualTo(committed);
        assertThat(only(a).getOutcome()).isEqualTo(StepResult.DONE);
    }

    @Test
    void commitAfterCommitIsANoOpAnsweredAgain() {
        AgentState committed = targetAt(Stage.COMMITTED);
        Applied a = onTarget(committed, COMMIT);
        assertThat(a.state()).isEqualTo(committed);
        assertThat(a.actions()).isEmpty();
        assertThat(only(a).getOutcome()).isEqualTo(StepResult.DONE);
    }

    @Test
    void abortAfterCommitIsRefusedAndTheCommitStands() {
        AgentState committed = targetAt(Stage.COMMITTED);
        Applied a = onTarget(committed, ABORT);
        assertThat(a.state()).isEqualTo(committed);
        assertThat(a.actions()).isEmpty();
        assertThat(only(a).getOutcome()).isEqualTo(StepResult.FAILED);
        assertThat(only(a).getMessage()).contains("already committed");

        AgentState sourceCommitted = onSource(onSource(AgentState.initial(S), PREPARE).state(), COMMIT).state();
        Applied b = onSource(sourceCommitted, ABORT);
        assertThat(b.state()).isEqualTo(sourceCommitted);
        assertThat(only(b).getOutcome()).isEqualTo(StepResult.FAILED);
    }

    @Test
    void commitOfAnAbortedMigrationIsRefused() {
        AgentState aborted = targetAt(Stage.ABORTED);
        Applied a = onTarget(aborted, COMMIT);
        assertThat(a.state()).isEqualTo(aborted);
        assertThat(a.actions()).isEmpty();
        assertThat(only(a).getOutcome()).isEqualTo(StepResult.FAILED);
        assertThat(only(a).getMessage()).contains("aborted");
    }

    @Test
    void abortOfAnUnknownMigrationLeavesATombstoneThatRefusesALateCopy() {
        Applied abort = onTarget(AgentState.initial(T), ABORT);
        assertThat(only(abort).getOutcome()).isEqualTo(StepResult.DONE);
        assertThat(abort.state().migration("m1").stage()).isEqualTo(Stage.ABORTED);

        Applied lateCopy = onTarget(abort.state(), COPY);
        assertThat(lateCopy.actions()).isEmpty();
        assertThat(lateCopy.state()).isEqualTo(abort.state());
        assertThat(only(lateCopy).getOutcome()).isEqualTo(StepResult.FAILED);
    }

    @Test
    void abortDropsTheTargetCopyAndStopsTheSourceDualWriteAndRepeatsAreDone() {
        Applied target = onTarget(targetAt(Stage.PREPARED), ABORT);
        assertThat(target.actions()).containsExactly(new StoreAction.AbortTarget("m1", 7));
        Applied again = onTarget(target.state(), ABORT);
        assertThat(again.actions()).isEmpty();
        assertThat(only(again).getOutcome()).isEqualTo(StepResult.DONE);

        Applied source = onSource(onSource(AgentState.initial(S), PREPARE).state(), ABORT);
        assertThat(source.actions()).containsExactly(new StoreAction.AbortSource("m1", 7, T));
        assertThat(only(source).getOutcome()).isEqualTo(StepResult.DONE);
    }

    @Test
    void lateCopyReportsAfterAnAbortChangeNothing() {
        AgentState aborted = onTarget(targetAt(Stage.COPYING), ABORT).state();
        assertThat(applier.copyCompleted(aborted, "m1", 99, 5)).isEqualTo(Applied.nothing(aborted));
        assertThat(applier.copyProgressed(aborted, "m1", 99, 5)).isEqualTo(Applied.nothing(aborted));
    }

    @Test
    void cleanupDropsTheShardOnlyAfterCommitAndIsIdempotent() {
        AgentState prepared = onSource(AgentState.initial(S), PREPARE).state();
        Applied early = onSource(prepared, CLEANUP);
        assertThat(early.actions()).isEmpty();
        assertThat(only(early).getOutcome()).isEqualTo(StepResult.FAILED);

        AgentState committed = onSource(prepared, COMMIT).state();
        Applied clean = onSource(committed, CLEANUP);
        assertThat(clean.actions()).containsExactly(new StoreAction.Cleanup("m1", 7));
        assertThat(clean.state().migration("m1").stage()).isEqualTo(Stage.CLEANED);

        Applied again = onSource(clean.state(), CLEANUP);
        assertThat(again.actions()).isEmpty();
        assertThat(again.state()).isEqualTo(clean.state());
        assertThat(only(again).getOutcome()).isEqualTo(StepResult.DONE);
        assertThat(only(onSource(clean.state(), COMMIT)).getOutcome()).isEqualTo(StepResult.DONE);
        assertThat(only(onSource(clean.state(), PREPARE)).getOutcome()).isEqualTo(StepResult.DONE);
    }

    @Test
    void aCommandThatContradictsTheRecordedMigrationIsRefusedAndChangesNothing() {
        AgentState s = targetAt(Stage.COPIED);
        Applied a = applier.apply(s, step(PREPARE, "m1", 8, S, T, T), 1);
        assertThat(a.state()).isEqualTo(s);
        assertThat(only(a).getOutcome()).isEqualTo(StepResult.FAILED);
        assertThat(only(a).getMessage()).contains("slot 8").contains("slot 7");
    }

    @Test
    void resumeRestartsOnlyTheCopiesThatWereRunningWithTheirRate() {
        AgentState s = targetAt(Stage.COPYING);
        s = applier.apply(s, step(COPY, "m2", 3, S, T, T, 0), 1).state();
        s = applier.copyCompleted(s, "m2", 10, 2).state();
        assertThat(applier.resume(s)).containsExactly(new StoreAction.StartCopy("m1", 7, S, 500));
    }
}
