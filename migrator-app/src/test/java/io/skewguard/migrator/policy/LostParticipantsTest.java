package io.skewguard.migrator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.StepResult;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LostParticipantsTest {

    private final BatchStateMachine machine = new BatchStateMachine(new Timeouts(600_000, 30_000, 30_000, 120_000));

    private SwitchBatch copying() {
        return machine.start("c", "b000001", List.of(new Move(1, "a", "b", 10), new Move(2, "c", "d", 10)), 0).batch();
    }

    private SwitchBatch feed(SwitchBatch batch, StatusEvent... events) {
        for (StatusEvent e : events) {
            batch = machine.on(batch, e, 0).batch();
        }
        return batch;
    }

    private static StatusEvent done(SwitchBatch batch, int slot, String node, MigrationPhase phase) {
        Migration m = batch.migrations().stream().filter(x -> x.slot() == slot).findFirst().orElseThrow();
        return new StatusEvent(m.id(), node, phase, StepResult.DONE, 10, null, 0);
    }

    @Test
    void beforeTheCommitPointALostSourceAbortsTheWholeBatch() {
        SwitchBatch batch = copying();
        List<StatusEvent> answers = LostParticipants.answers(batch, Set.of("a"), "lost", 5);
        assertThat(answers).singleElement().satisfies(a -> assertThat(a.outcome()).isEqualTo(StepResult.FAILED));
        SwitchBatch after = feed(batch, answers.toArray(StatusEvent[]::new));
        assertThat(after.phase()).isInstanceOf(BatchPhase.Aborting.class);
        // then its ABORT counts as answered: the batch waits for the live nodes only
        List<StatusEvent> aborts = LostParticipants.answers(after, Set.of("a"), "lost", 6);
        assertThat(aborts).extracting(StatusEvent::phase).containsOnly(MigrationPhase.ABORT);
        assertThat(aborts).extracting(StatusEvent::node).containsOnly("a");
    }

    @Test
    void aLostNodeOfACopyCarriedPastTheSwitchFailsThatCopyAloneAndTheSwitchGoesOn() {
        SwitchBatch batch = copying();
        batch = feed(batch, done(batch, 1, "b", MigrationPhase.COPY)); // slot 1 switches, slot 2 is carried
        assertThat(batch.phase()).isInstanceOf(BatchPhase.Preparing.class);
        List<StatusEvent> answers = LostParticipants.answers(batch, Set.of("d"), "lost", 5);
        assertThat(answers).singleElement().satisfies(a -> {
            assertThat(a.phase()).isEqualTo(MigrationPhase.COPY);
            assertThat(a.outcome()).isEqualTo(StepResult.FAILED);
        });
        SwitchBatch after = feed(batch, answers.toArray(StatusEvent[]::new));
        assertThat(after.phase()).isInstanceOf(BatchPhase.Preparing.class);
        assertThat(after.migrations()).filteredOn(m -> m.slot() == 2).singleElement()
                .satisfies(m -> assertThat(m.state()).isInstanceOf(MigrationState.CopyFailed.class));
    }

    @Test
    void pastTheCommitPointTheLostNodesCommitAndCleanupCountAsAnswered() {
        // both copies complete when the switch starts (a batch restored with both copied switches on the clock)
        SwitchBatch copying = copying();
        SwitchBatch batch = machine.onTick(copying.with(copying.migrations().stream()
                .map(m -> m.with(new MigrationState.Copied())).toList()), 0).batch();
        assertThat(batch.phase()).isInstanceOf(BatchPhase.Preparing.class);
        batch = feed(batch, done(batch, 1, "a", MigrationPhase.PREPARE), done(batch, 1, "b", MigrationPhase.PREPARE),
                done(batch, 2, "c", MigrationPhase.PREPARE), done(batch, 2, "d", MigrationPhase.PREPARE));
        assertThat(batch.phase()).isEqualTo(new BatchPhase.Committing(0));
        assertThat(LostParticipants.switchesStillToCome(batch, "c")).containsExactly(2);

        batch = feed(batch, LostParticipants.answers(batch, Set.of("a"), "lost", 1).toArray(StatusEvent[]::new));
        batch = feed(batch, done(batch, 1, "b", MigrationPhase.COMMIT));
        assertThat(batch.phase()).isEqualTo(new BatchPhase.Committing(1));
        batch = feed(batch, LostParticipants.answers(batch, Set.of("a"), "lost", 2).toArray(StatusEvent[]::new));
        assertThat(batch.migrations().get(0).state()).isInstanceOf(MigrationState.Cleaned.class);
        assertThat(LostParticipants.answers(batch, Set.of("a"), "lost", 3)).isEmpty();
    }

    @Test
    void aBatchWithoutTheNodeGetsNoAnswers() {
        assertThat(LostParticipants.answers(copying(), Set.of("z"), "lost", 1)).isEmpty();
        assertThat(LostParticipants.touches(copying(), "a")).isTrue();
        assertThat(LostParticipants.touches(copying(), "z")).isFalse();
    }
}
