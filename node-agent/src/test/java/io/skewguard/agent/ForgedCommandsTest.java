package io.skewguard.agent;

import static io.skewguard.agent.Commands.CLUSTER;
import static io.skewguard.agent.Commands.step;
import static io.skewguard.agent.Commands.weight;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.command.AgentInput;
import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.CommandCheck;
import io.skewguard.agent.command.EpochBound;
import io.skewguard.agent.command.Stage;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Commands nobody legitimate sent — a COMMIT or CLEANUP of a migration the node never took part in,
 * a switch at an epoch that does not follow the node's part, an epoch meant to pin the node — are
 * refused, counted, and leave the node's store as it was.
 */
class ForgedCommandsTest {

    private static final int SLOTS = 16;

    private final Map<String, InMemoryNodeStore> stores = new HashMap<>();
    private final List<AgentState> saved = new ArrayList<>();

    private InMemoryNodeStore store(String node) {
        return stores.computeIfAbsent(node, n -> new InMemoryNodeStore(n, SLOTS, () -> 0, stores::get));
    }

    private AgentCore core(String node) {
        return new AgentCore(new CommandCheck(CLUSTER, node, SLOTS), store(node), AgentState.initial(node), saved::add,
                new EpochBound(1000), Duration.ZERO);
    }

    private static MigrationCommand at(MigrationCommand c, long routingEpoch) {
        return MigrationCommand.newBuilder(c).setRoutingEpoch(routingEpoch).build();
    }

    private static StepResult outcome(List<MigrationStatus> answers) {
        assertThat(answers).hasSize(1);
        return answers.get(0).getOutcome();
    }

    /** n1 holds key k in its slot; returns the slot. */
    private int sourceHoldsAKey() {
        InMemoryNodeStore n1 = store("n1");
        store("n2");
        int slot = n1.slotOf("k");
        n1.put("k", 1, "v".getBytes(StandardCharsets.UTF_8));
        return slot;
    }

    private void assertStoreUntouched(int slot) {
        InMemoryNodeStore n1 = store("n1");
        assertThat(n1.holdsSlot(slot)).isTrue();
        assertThat(n1.keys(slot)).containsExactly("k");
        assertThat(n1.get("k")).hasValueSatisfying(v -> assertThat(new String(v.value(), StandardCharsets.UTF_8)).isEqualTo("v"));
    }

    @Test
    void aForgedCommitAndCleanupOfAMigrationTheSourceNeverSawAreRefusedAndTheStoreIsUntouched() {
        int slot = sourceHoldsAKey();
        AgentCore n1 = core("n1");

        assertThat(outcome(n1.apply(new AgentInput.Step(step(MigrationPhase.COMMIT, "forged", slot, "n1", "n2", "n1")), 1)))
                .isEqualTo(StepResult.FAILED);
        assertThat(outcome(n1.apply(new AgentInput.Step(step(MigrationPhase.CLEANUP, "forged", slot, "n1", "n2", "n1")), 2)))
                .isEqualTo(StepResult.FAILED);

        assertThat(n1.refusals()).isEqualTo(2);
        assertThat(n1.state()).isEqualTo(AgentState.initial("n1"));
        assertThat(saved).isEmpty();
        assertStoreUntouched(slot);
    }

    @Test
    void aForgedCommitOfAMigrationTheTargetNeverCopiedIsRefused() {
        store("n1");
        AgentCore n2 = core("n2");
        List<MigrationStatus> answers = n2.apply(new AgentInput.Step(step(MigrationPhase.COMMIT, "forged", 3, "n1", "n2", "n2")), 1);
        assertThat(outcome(answers)).isEqualTo(StepResult.FAILED);
        assertThat(answers.get(0).getMessage()).contains("COMMIT refused");
        assertThat(n2.refusals()).isEqualTo(1);
        assertThat(n2.state().migrations()).isEmpty();
    }

    @Test
    void aCommitAtAnEpochNotAfterThePrepareOrTooFarPastItIsRefusedAndTheSlotStaysHere() {
        int slot = sourceHoldsAKey();
        AgentCore n1 = core("n1");
        MigrationCommand prepare = at(step(MigrationPhase.PREPARE, "m1", slot, "n1", "n2", "n1"), 5);
        assertThat(outcome(n1.apply(new AgentInput.Step(prepare), 1))).isEqualTo(StepResult.DONE);

        MigrationCommand commit = step(MigrationPhase.COMMIT, "m1", slot, "n1", "n2", "n1");
        assertThat(outcome(n1.apply(new AgentInput.Step(at(commit, 5)), 2))).isEqualTo(StepResult.FAILED);
        assertThat(outcome(n1.apply(new AgentInput.Step(at(commit, Long.MAX_VALUE)), 3))).isEqualTo(StepResult.FAILED);
        assertThat(n1.refusals()).isEqualTo(2);
        assertThat(n1.state().migration("m1").stage()).isEqualTo(Stage.PREPARED);
        // not committed here, so no CLEANUP can follow
        MigrationCommand cleanup = step(MigrationPhase.CLEANUP, "m1", slot, "n1", "n2", "n1");
        assertThat(outcome(n1.apply(new AgentInput.Step(at(cleanup, Long.MAX_VALUE)), 4))).isEqualTo(StepResult.FAILED);
        assertStoreUntouched(slot);

        // the real COMMIT still goes through, and its CLEANUP drops the shard
        assertThat(outcome(n1.apply(new AgentInput.Step(at(commit, 6)), 5))).isEqualTo(StepResult.DONE);
        assertThat(n1.state().migration("m1").commitEpoch()).isEqualTo(6);
        assertThat(outcome(n1.apply(new AgentInput.Step(at(cleanup, 6)), 6))).isEqualTo(StepResult.DONE);
        assertThat(store("n1").holdsSlot(slot)).isFalse();
    }

    @Test
    void aCleanupAtAnotherEpochThanTheCommitIsRefusedAndDropsNothing() {
        int slot = sourceHoldsAKey();
        AgentCore n1 = core("n1");
        n1.apply(new AgentInput.Step(step(MigrationPhase.PREPARE, "m1", slot, "n1", "n2", "n1")), 1);
        n1.apply(new AgentInput.Step(step(MigrationPhase.COMMIT, "m1", slot, "n1", "n2", "n1")), 2);
        assertThat(store("n1").holdsSlot(slot)).isTrue();

        MigrationCommand cleanup = step(MigrationPhase.CLEANUP, "m1", slot, "n1", "n2", "n1");
        assertThat(outcome(n1.apply(new AgentInput.Step(at(cleanup, 7)), 3))).isEqualTo(StepResult.FAILED);
        assertThat(n1.refusals()).isEqualTo(1);
        assertThat(store("n1").keys(slot)).containsExactly("k");
    }

    @Test
    void aWeightEpochJumpingPastTheBoundIsRefusedNeverAdoptedAndLaterEpochsStillApply() {
        store("n1");
        AgentCore n1 = core("n1");
        n1.apply(new AgentInput.Weight(weight("n1", 5, 1.5)), 1);
        n1.apply(new AgentInput.Weight(weight("n1", Long.MAX_VALUE, 0.5)), 2);
        assertThat(n1.state().weightEpoch()).isEqualTo(5);
        assertThat(store("n1").weightEpoch()).isEqualTo(5);
        assertThat(n1.refusals()).isEqualTo(1);

        n1.apply(new AgentInput.Weight(weight("n1", 6, 0.8)), 3);
        assertThat(n1.state().weightEpoch()).isEqualTo(6);
        assertThat(n1.state().weight()).isEqualTo(0.8);
    }

    @Test
    void anEpochJumpingPastTheBoundIsNamedForTheDeadLetterBeforeAnythingIsApplied() {
        int slot = sourceHoldsAKey();
        AgentCore n1 = core("n1");
        assertThat(n1.epochProblem(new AgentInput.Weight(weight("n1", Long.MAX_VALUE, 0.5)))).get().asString()
                .startsWith("invalid: weight epoch " + Long.MAX_VALUE + " jumps");
        assertThat(n1.epochProblem(new AgentInput.Weight(weight("n1", 1000, 0.5)))).isEmpty();
        MigrationCommand prepare = step(MigrationPhase.PREPARE, "m1", slot, "n1", "n2", "n1");
        assertThat(n1.epochProblem(new AgentInput.Step(at(prepare, Long.MAX_VALUE)))).get().asString()
                .startsWith("invalid: routing epoch " + Long.MAX_VALUE + " jumps");
        assertThat(n1.epochProblem(new AgentInput.Step(at(prepare, 1000)))).isEmpty();

        // measured from the newest routing epoch the node took part at
        n1.apply(new AgentInput.Step(at(prepare, 900)), 1);
        assertThat(n1.epochProblem(new AgentInput.Step(at(step(MigrationPhase.COMMIT, "m1", slot, "n1", "n2", "n1"), 1900)))).isEmpty();
        assertThat(n1.epochProblem(new AgentInput.Step(at(step(MigrationPhase.COMMIT, "m1", slot, "n1", "n2", "n1"), 1901)))).isPresent();
        assertThat(n1.state().weightEpoch()).isEqualTo(AgentState.NO_EPOCH);
        assertThat(n1.refusals()).isZero();
    }

    @Test
    void aFreshNodeMeasuresTheJumpFromZero() {
        store("n1");
        AgentCore n1 = core("n1");
        n1.apply(new AgentInput.Weight(weight("n1", Long.MAX_VALUE, 0.5)), 1);
        assertThat(n1.state().weightEpoch()).isEqualTo(AgentState.NO_EPOCH);
        n1.apply(new AgentInput.Weight(weight("n1", 1000, 0.5)), 2);
        assertThat(n1.state().weightEpoch()).isEqualTo(1000);
    }

    @Test
    void aSlotTableRowJumpingPastTheBoundIsRefusedByTheWritersViewAndLaterRowsStillApply() {
        SlotTable table = SlotTable.fromRing(io.skewguard.core.ring.HashRing.of(List.of(
                new io.skewguard.core.ring.Node("n1", null, 1.0), new io.skewguard.core.ring.Node("n2", null, 1.0))), 1, SLOTS);
        RoutingView view = RoutingView.of(CLUSTER, table).boundEpochs(new EpochBound(1000));
        long start = view.routingEpoch(0);

        assertThat(view.apply(row(0, Long.MAX_VALUE, "n2"))).isFalse();
        assertThat(view.routingEpoch(0)).isEqualTo(start);
        assertThat(view.refusedEpochs()).isEqualTo(1);

        assertThat(view.apply(row(0, start + 1, "n2"))).isTrue();
        assertThat(view.routingEpoch(0)).isEqualTo(start + 1);
    }

    private static SlotAssignment row(int slot, long epoch, String node) {
        return SlotAssignment.newBuilder().setCluster(CLUSTER).setSlot(slot).setRoutingEpoch(epoch)
                .setCandidates(List.of(node)).setUpdatedAt(Instant.EPOCH).build();
    }
}
