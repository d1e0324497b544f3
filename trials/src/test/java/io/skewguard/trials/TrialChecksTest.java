package io.skewguard.trials;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.MigrationRecord;
import io.skewguard.agent.command.Role;
import io.skewguard.agent.command.Stage;
import io.skewguard.agent.service.WriteJournal.LastWrite;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.WeightCommand;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * What the trial checks find: nothing in the history of a clean run (one weight repair of two
 * epochs, one migration committed, one aborted, keys where the final table says), and each kind
 * of loss or repetition when it is put into that history.
 */
class TrialChecksTest {

    private static final String C = "c1";
    private static final int SLOTS = 4;
    private static final String M1 = "c1/b000001/0000/n1"; // slot 0, n1 -> n3, committed at epoch 1
    private static final String M2 = "c1/b000002/0001/n2"; // slot 1, n2 -> n3, aborted while copying

    /** A clean run, as mutable lists, so that each test can break one thing. */
    private final List<List<String>> starting = List.of(List.of("n1", "n2"), List.of("n2", "n1"), List.of("n1", "n2"),
            List.of("n2", "n1"));
    private final List<SkewAlert> alerts = new ArrayList<>(List.of(
            alert(AlertState.NORMAL, AlertState.OBSERVING, 10), alert(AlertState.OBSERVING, AlertState.CONFIRMED, 13),
            alert(AlertState.CONFIRMED, AlertState.CLEARED, 30), alert(AlertState.CLEARED, AlertState.NORMAL, 31)));
    private final List<SkewReport> reports = new ArrayList<>(List.of(report(10), report(11), report(12)));
    private final List<WeightCommand> weights = new ArrayList<>(List.of(
            weight(1, "n1", 1.0, 0.95), weight(2, "n1", 0.95, 0.9), weight(2, "n2", 1.0, 1.05)));
    private final List<NodeWeight> nodeWeights = new ArrayList<>(List.of(
            row(1, "n1", 0.95), row(1, "n2", 1.0), row(2, "n1", 0.9), row(2, "n2", 1.05)));
    private final List<MigrationCommand> commands = new ArrayList<>(List.of(
            command(M1, null, MigrationPhase.COPY, "n3", 0, "n1", "n3", 0),
            command(M1, "b000001", MigrationPhase.PREPARE, "n1", 0, "n1", "n3", 0),
            command(M1, "b000001", MigrationPhase.PREPARE, "n3", 0, "n1", "n3", 0),
            command(M1, "b000001", MigrationPhase.COMMIT, "n1", 0, "n1", "n3", 1),
            command(M1, "b000001", MigrationPhase.COMMIT, "n3", 0, "n1", "n3", 1),
            command(M1, null, MigrationPhase.CLEANUP, "n1", 0, "n1", "n3", 1),
            command(M2, null, MigrationPhase.COPY, "n3", 1, "n2", "n3", 0),
            command(M2, "b000002", MigrationPhase.ABORT, "n2", 1, "n2", "n3", 0),
            command(M2, "b000002", MigrationPhase.ABORT, "n3", 1, "n2", "n3", 0)));
    private final List<MigrationStatus> statuses = new ArrayList<>(List.of(
            answer(M1, MigrationPhase.COPY, "n3", StepResult.PROGRESS, 0), answer(M1, MigrationPhase.COPY, "n3", StepResult.PROGRESS, 40),
            answer(M1, MigrationPhase.COPY, "n3", StepResult.DONE, 100),
            answer(M1, MigrationPhase.PREPARE, "n1", StepResult.DONE, 0), answer(M1, MigrationPhase.PREPARE, "n3", StepResult.DONE, 0),
            answer(M1, MigrationPhase.COMMIT, "n1", StepResult.DONE, 0), answer(M1, MigrationPhase.COMMIT, "n3", StepResult.DONE, 0),
            answer(M1, MigrationPhase.CLEANUP, "n1", StepResult.DONE, 0),
            answer(M2, MigrationPhase.COPY, "n3", StepResult.PROGRESS, 0),
            answer(M2, MigrationPhase.ABORT, "n2", StepResult.DONE, 0), answer(M2, MigrationPhase.ABORT, "n3", StepResult.DONE, 0)));
    private final List<SlotAssignment> slotRows = new ArrayList<>(List.of(
            slot(0, 0, List.of("n1", "n2"), null), slot(1, 0, List.of("n2", "n1"), null),
            slot(2, 0, List.of("n1", "n2"), null), slot(3, 0, List.of("n2", "n1"), null),
            slot(0, 0, List.of("n1", "n2"), M1), slot(0, 1, List.of("n3", "n2"), null),
            slot(1, 0, List.of("n2", "n1"), M2), slot(1, 0, List.of("n2", "n1"), null)));
    private final Map<String, AgentState> agents = new TreeMap<>(Map.of(
            "n1", state("n1", 2, 0.9, record(M1, 0, "n1", "n3", Role.SOURCE, Stage.CLEANED)),
            "n2", state("n2", 2, 1.05, record(M2, 1, "n2", "n3", Role.SOURCE, Stage.ABORTED)),
            "n3", state("n3", AgentState.NO_EPOCH, 1.0, record(M1, 0, "n1", "n3", Role.TARGET, Stage.COMMITTED),
                    record(M2, 1, "n2", "n3", Role.TARGET, Stage.ABORTED))));
    private final Map<String, Map<Integer, Map<String, Long>>> stores = new TreeMap<>();
    private final Map<String, LastWrite> journal = new TreeMap<>();
    private final Map<String, Long> unconsumed = new TreeMap<>(Map.of("n1", 0L, "n2", 0L, "n3", 0L));

    TrialChecksTest() {
        // one key per slot, on the slot's first candidate of the final table (slot 0 moved to n3)
        for (int slot = 0; slot < SLOTS; slot++) {
            String key = keyOfSlot(slot);
            String node = slot == 0 ? "n3" : starting.get(slot).get(0);
            put(node, slot, key, 100 + slot);
            journal.put(key, new LastWrite(100 + slot, node));
        }
    }

    private TrialHistory history() {
        return new TrialHistory(C, starting, alerts, reports, weights, nodeWeights, commands, statuses, slotRows, agents, stores,
                journal, unconsumed);
    }

    private List<String> violations() {
        return TrialChecks.violations(history());
    }

    @Test
    void aCleanRunHasNoViolationsAndItsFiguresCountWhatHappened() {
        assertThat(violations()).isEmpty();
        assertThat(TrialChecks.figures(history())).containsEntry("alert transitions", 4L).containsEntry("weight epochs", 2L)
                .containsEntry("migrations", 2L).containsEntry("migrations committed", 1L).containsEntry("migrations aborted", 1L)
                .containsEntry("routing epoch", 1L).containsEntry("keys written", 4L);
    }

    @Test
    void anAlertTransitionWrittenTwiceOrLostIsFound() {
        alerts.add(2, alerts.get(1));
        assertThat(violations()).anyMatch(v -> v.startsWith("alert transitions written twice: 1"));
        alerts.remove(2);
        alerts.remove(1); // OBSERVING -> CONFIRMED lost
        assertThat(violations()).singleElement().asString().startsWith("alert transitions that do not follow the one before")
                .contains("c1/HEAT/CLEARED/30 (CONFIRMED -> CLEARED after c1/HEAT/OBSERVING/10)");
    }

    @Test
    void aClearedAlertMayTurnNormalAndObservingAgainInOneTickButNoTransitionGoesBackInTime() {
        alerts.add(alert(AlertState.NORMAL, AlertState.OBSERVING, 31));
        assertThat(violations()).isEmpty();
        alerts.add(alert(AlertState.OBSERVING, AlertState.NORMAL, 20));
        assertThat(violations()).singleElement().asString().contains("c1/HEAT/NORMAL/20 (before c1/HEAT/OBSERVING/31)");
    }

    @Test
    void aReportWrittenTwiceForOneTickIsFound() {
        reports.add(report(11));
        assertThat(violations()).singleElement().asString().startsWith("reports written twice for one tick: 1");
    }

    @Test
    void aWeightRoundLostRepeatedWithOtherWeightsOrNotAppliedIsFound() {
        weights.add(weight(2, "n2", 1.0, 1.04));
        assertThat(violations()).anyMatch(v -> v.startsWith("weight commands sent twice with different contents"));
        weights.remove(3);

        weights.remove(0); // epoch 1 lost
        assertThat(violations()).anyMatch(v -> v.startsWith("weight epochs not consecutive: epoch 2 follows 0"))
                .anyMatch(v -> v.startsWith("weight commands whose old weight is not the weight before"));
        weights.add(0, weight(1, "n1", 1.0, 0.95));

        agents.put("n2", state("n2", 1, 1.0, record(M2, 1, "n2", "n3", Role.SOURCE, Stage.ABORTED)));
        assertThat(violations()).singleElement().asString().startsWith("agents not at the newest weight command of their node: 1")
                .contains("n2 applied epoch 1 weight 1.0, its newest command is epoch 2 weight 1.05");
    }

    @Test
    void aNodeWeightRowOtherThanTheCommandsSayIsFound() {
        nodeWeights.set(3, row(2, "n2", 1.1));
        assertThat(violations()).singleElement().asString().startsWith("node-weights rows that differ from the weight commands");
    }

    @Test
    void aMigrationBothCommittedAndAbortedOrLeftHalfWayIsFound() {
        commands.add(command(M1, "b000001", MigrationPhase.ABORT, "n3", 0, "n1", "n3", 0));
        assertThat(violations()).anyMatch(v -> v.startsWith("migrations both committed and aborted: 1"))
                .anyMatch(v -> v.startsWith("batches that neither committed nor aborted as a whole"));
        commands.remove(commands.size() - 1);

        commands.remove(5); // CLEANUP never sent
        assertThat(violations()).anyMatch(v -> v.startsWith("migrations that did not end exactly one way: 1")
                && v.contains(M1 + " committed but not switched and cleaned up on both"));
    }

    @Test
    void aBatchWhoseSwitchCommitsOneMigrationAndAbortsAnotherIsFound() {
        // M2 prepared in batch b000001 and aborted there, while M1 of that batch committed
        commands.add(command(M2, "b000001", MigrationPhase.PREPARE, "n2", 1, "n2", "n3", 1));
        commands.add(command(M2, "b000001", MigrationPhase.ABORT, "n3", 1, "n2", "n3", 1));
        assertThat(violations()).anyMatch(v -> v.startsWith("batches that neither committed nor aborted as a whole: 1")
                && v.contains("b000001 committed [" + M1 + "] and aborted [" + M2 + "]"));
    }

    @Test
    void anAgentWhoseRecordIsNotWhatItsCommandsLeadToOrRecordsAMigrationNobodySentIsFound() {
        agents.put("n1", state("n1", 2, 0.9, record(M1, 0, "n1", "n3", Role.SOURCE, Stage.COMMITTED)));
        assertThat(violations()).singleElement().asString()
                .contains("n1 " + M1 + " at COMMITTED, its commands [PREPARE, COMMIT, CLEANUP] lead to CLEANED");
        agents.put("n1", state("n1", 2, 0.9, record(M1, 0, "n1", "n3", Role.SOURCE, Stage.CLEANED),
                record("c1/b000009/0002/n1", 2, "n1", "n2", Role.SOURCE, Stage.PREPARED)));
        assertThat(violations()).singleElement().asString().contains("n1 records c1/b000009/0002/n1, which no command to it names");
    }

    @Test
    void aCommandNeverAnsweredAnsweredOtherwiseWhenRepeatedOrRefusedIsFound() {
        statuses.removeIf(s -> s.getMigrationId().equals(M2) && s.getPhase() == MigrationPhase.ABORT && s.getNode().equals("n2"));
        assertThat(violations()).singleElement().asString().startsWith("commands never answered: 1").contains(M2 + "/ABORT/n2");
        statuses.add(answer(M2, MigrationPhase.ABORT, "n2", StepResult.DONE, 0));

        statuses.add(answer(M1, MigrationPhase.COPY, "n3", StepResult.DONE, 120)); // the copy ran again
        assertThat(violations()).singleElement().asString().startsWith("commands answered differently when repeated")
                .contains(M1 + "/COPY/n3 DONE with [100, 120] bytes");
        statuses.remove(statuses.size() - 1);
        statuses.add(answer(M1, MigrationPhase.COPY, "n3", StepResult.PROGRESS, 10));
        assertThat(violations()).singleElement().asString().contains(M1 + "/COPY/n3 copying again after its DONE");
        statuses.remove(statuses.size() - 1);

        MigrationStatus refused = answer(M1, MigrationPhase.COMMIT, "n3", StepResult.FAILED, 0);
        refused.setMessage("COMMIT refused: migration was aborted here");
        statuses.add(refused);
        assertThat(violations()).singleElement().asString().startsWith("commands an agent refused: 1");
    }

    @Test
    void anAgentThatDidNotConsumeEveryCommandIsFound() {
        unconsumed.put("n2", 2L);
        assertThat(violations()).singleElement().asString().contains("n2: 2 command records not consumed");
    }

    @Test
    void aSlotTableChangeWithoutACommittedMigrationAGapInTheEpochsOrAStartOtherThanTheWritersIsFound() {
        slotRows.add(slot(2, 2, List.of("n1", "n3"), null)); // nobody committed a move of slot 2
        assertThat(violations()).singleElement().asString().startsWith("slot-table rows that are not what the committed migrations say")
                .contains("slot 2 changed [n1, n2] -> [n1, n3] at epoch 2, the committed migration of that epoch: []");
        slotRows.remove(slotRows.size() - 1);

        slotRows.add(slot(2, 3, List.of("n1", "n3"), null));
        commands.add(command("c1/b000003/0002/n2", "b000003", MigrationPhase.COMMIT, "n3", 2, "n2", "n3", 3));
        assertThat(violations()).anyMatch(v -> v.contains("routing epochs of the changes not consecutive: 3 follows 1"));
        slotRows.remove(slotRows.size() - 1);
        commands.remove(commands.size() - 1);

        slotRows.set(3, slot(3, 0, List.of("n1", "n2"), null));
        assertThat(violations()).singleElement().asString()
                .contains("slot 3 starts at epoch 0 with [n1, n2], the writers started from [n2, n1] at epoch 0");
    }

    @Test
    void aCommittedMigrationThatChangedNoRowOrARowLeftInFlightIsFound() {
        slotRows.remove(5); // the switch of slot 0 never published
        assertThat(violations()).anyMatch(v -> v.contains("committed migration") && v.contains("changed no row"))
                .anyMatch(v -> v.contains("slot 0 still in flight to n3 (" + M1 + ")"));
    }

    @Test
    void aKeyNotReadableAtItsLastVersionOrDataLeftOnANodeThatIsNoCandidateIsFound() {
        String key = keyOfSlot(1);
        journal.put(key, new LastWrite(200, "n2"));
        assertThat(violations()).singleElement().asString().startsWith("keys not readable at their last version: 1")
                .contains(key + "@200 (written to n2, slot 1, candidates [n2, n1]: held at 101)");
        journal.put(key, new LastWrite(101, "n2"));

        stores.get("n2").remove(1);
        assertThat(violations()).singleElement().asString().contains(key + "@101").contains("none holds it");
        put("n2", 1, key, 101);

        put("n1", 0, keyOfSlot(0), 100); // the source of slot 0 kept its data after the switch
        assertThat(violations()).singleElement().asString().startsWith("nodes holding data of a slot they are no candidate of")
                .contains("n1 holds 1 keys of slot 0, whose candidates are [n3, n2]");
    }

    // ------------------------------------------------------------------------------------ records

    private void put(String node, int slot, String key, long version) {
        stores.computeIfAbsent(node, n -> new TreeMap<>()).computeIfAbsent(slot, s -> new HashMap<>()).put(key, version);
    }

    private static String keyOfSlot(int slot) {
        for (int i = 0; ; i++) {
            if (SlotTable.slotOf(HashRing.hashKey("k" + i), SLOTS) == slot) {
                return "k" + i;
            }
        }
    }

    private static SkewAlert alert(AlertState from, AlertState to, long tick) {
        return SkewAlert.newBuilder().setAlertId(C + "/HEAT/" + to + "/" + tick).setCluster(C).setKind(AlertKind.HEAT)
                .setPreviousState(from).setState(to).setValue(0.5).setThreshold(0.4).setSince(Instant.ofEpochSecond(10))
                .setEventTime(Instant.ofEpochSecond(tick)).build();
    }

    private static SkewReport report(long tick) {
        return SkewReport.newBuilder().setCluster(C).setWindowStart(Instant.ofEpochSecond(tick - 4)).setWindowEnd(Instant.ofEpochSecond(tick))
                .setHeatGini(0.5).setCapacityCv(0.3).setShardCapacityCv(0.3).setNodeCount(3).setTotalWriteBytes(1000)
                .setNodes(List.of()).setHottestSlots(List.of()).setHeatState(AlertState.NORMAL).setCapacityState(AlertState.NORMAL)
                .build();
    }

    private static WeightCommand weight(long epoch, String node, double from, double to) {
        return WeightCommand.newBuilder().setCommandId("weight/" + C + "/" + epoch + "/" + node).setCluster(C).setNode(node)
                .setEpoch(epoch).setOldWeight(from).setNewWeight(to).setReason("test").setIssuedAt(Instant.ofEpochSecond(epoch)).build();
    }

    private static NodeWeight row(long epoch, String node, double weight) {
        return NodeWeight.newBuilder().setCluster(C).setNode(node).setEpoch(epoch).setWeight(weight)
                .setUpdatedAt(Instant.ofEpochSecond(epoch)).build();
    }

    private static MigrationCommand command(String id, String batch, MigrationPhase phase, String node, int slot, String source,
                                            String target, long epoch) {
        return MigrationCommand.newBuilder().setCommandId(id + "/" + phase + "/" + node).setCluster(C).setMigrationId(id)
                .setBatchId(batch).setPhase(phase).setNode(node).setSlot(slot).setSourceNode(source).setTargetNode(target)
                .setShardBytes(100).setMaxBytesPerSec(1000).setRoutingEpoch(epoch).setIssuedAt(Instant.ofEpochSecond(1)).build();
    }

    private static MigrationStatus answer(String id, MigrationPhase phase, String node, StepResult outcome, long bytes) {
        return MigrationStatus.newBuilder().setCluster(C).setMigrationId(id).setCommandId(id + "/" + phase + "/" + node).setNode(node)
                .setPhase(phase).setOutcome(outcome).setBytesCopied(bytes).setMessage(null).setEventTime(Instant.ofEpochSecond(1)).build();
    }

    private static SlotAssignment slot(int slot, long epoch, List<String> candidates, String inFlightOf) {
        SlotAssignment.Builder b = SlotAssignment.newBuilder().setCluster(C).setSlot(slot).setRoutingEpoch(epoch)
                .setCandidates(candidates).setReadOnly(List.of()).setUpdatedAt(Instant.ofEpochSecond(1));
        if (inFlightOf != null) {
            String source = inFlightOf.substring(inFlightOf.lastIndexOf('/') + 1);
            b.setInFlightSource(source).setInFlightTarget("n3").setMigrationId(inFlightOf);
        }
        return b.build();
    }

    private static MigrationRecord record(String id, int slot, String source, String target, Role role, Stage stage) {
        return new MigrationRecord(id, C, slot, source, target, role, stage, 0, 0, "");
    }

    private static AgentState state(String node, long epoch, double weight, MigrationRecord... records) {
        TreeMap<String, MigrationRecord> m = new TreeMap<>();
        for (MigrationRecord r : records) {
            m.put(r.migrationId(), r);
        }
        return new AgentState(node, epoch, weight, m);
    }
}
