package io.skewguard.dashboard;

import static io.skewguard.dashboard.LoopRecords.alert;
import static io.skewguard.dashboard.LoopRecords.command;
import static io.skewguard.dashboard.LoopRecords.control;
import static io.skewguard.dashboard.LoopRecords.decision;
import static io.skewguard.dashboard.LoopRecords.plan;
import static io.skewguard.dashboard.LoopRecords.member;
import static io.skewguard.dashboard.LoopRecords.nodeWeight;
import static io.skewguard.dashboard.LoopRecords.report;
import static io.skewguard.dashboard.LoopRecords.status;
import static io.skewguard.dashboard.LoopRecords.weight;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import io.skewguard.dashboard.ClusterSnapshot.Decision;
import io.skewguard.dashboard.ClusterSnapshot.NodeBar;
import io.skewguard.dashboard.ClusterSnapshot.Point;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.StepResult;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ClusterViewTest {

    private static final String C = "prod";
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");
    private final ClusterView view = new ClusterView(C, ViewLimits.defaults().withHistory(Duration.ofHours(1)).withMaxDecisions(5));

    private ClusterSnapshot snapshot() {
        return view.snapshot(0);
    }

    @Test
    void chartsKeepTheReportsOfTheHistoryBeforeTheNewestReport() {
        for (int m = 0; m <= 90; m += 10) {
            view.onReport(report(C, T0.plus(Duration.ofMinutes(m)), 0.1 + m / 1000.0, 0.2, AlertState.NORMAL, AlertState.NORMAL, 3));
        }
        assertThat(snapshot().series()).extracting(p -> Duration.ofMillis(p.time() - T0.toEpochMilli()).toMinutes())
                .containsExactly(30L, 40L, 50L, 60L, 70L, 80L, 90L);
    }

    @Test
    void aLateReportGoesIntoItsPlaceAndDoesNotReplaceTheNodesOfTheNewest() {
        view.onReport(report(C, T0.plusSeconds(120), 0.3, 0.2, AlertState.NORMAL, AlertState.NORMAL, 4));
        view.onReport(report(C, T0, 0.1, 0.2, AlertState.NORMAL, AlertState.NORMAL, 2));
        ClusterSnapshot s = snapshot();
        assertThat(s.series()).extracting(Point::heatGini).containsExactly(0.1, 0.3);
        assertThat(s.nodes()).extracting(NodeBar::node).containsExactly("n1", "n2", "n3", "n4");
    }

    @Test
    void nodesShowTheLatestUtilisationAndTheNewestWeightByEpoch() {
        view.onReport(report(C, T0, 0.3, 0.2, AlertState.NORMAL, AlertState.NORMAL, 3));
        view.onWeightCommand(weight(C, "n1", 7, 1.0, 0.8, T0));
        view.onNodeWeight(nodeWeight(C, "n1", 6, 0.9, T0)); // an older epoch read later: ignored
        view.onNodeWeight(nodeWeight(C, "n2", 7, 1.1, T0));
        ClusterSnapshot s = snapshot();
        assertThat(s.nodes()).extracting(NodeBar::node, NodeBar::utilisation, NodeBar::weight)
                .containsExactly(tuple("n1", 0.9, 0.8), tuple("n2", 0.5, 1.1),
                        tuple("n3", 0.5, 1.0));
    }

    @Test
    void anAlertTransitionSetsTheStateAndThresholdAndIsLogged() {
        view.onReport(report(C, T0, 0.3, 0.2, AlertState.NORMAL, AlertState.NORMAL, 3));
        view.onAlert(alert(C, AlertKind.HEAT, AlertState.NORMAL, AlertState.OBSERVING, 0.41, 0.35, T0.plusSeconds(1)));
        ClusterSnapshot s = snapshot();
        assertThat(s.alertStates()).containsEntry("HEAT", "OBSERVING").containsEntry("CAPACITY", "NORMAL");
        assertThat(s.thresholds()).containsEntry("HEAT", 0.35).doesNotContainKey("CAPACITY");
        assertThat(s.decisions()).extracting(Decision::kind, Decision::text)
                .containsExactly(tuple("alert",
                        "HEAT alert NORMAL → OBSERVING: heat Gini 0.410, threshold 0.350"));
    }

    @Test
    void aClearingAlertStatesTheClearLevelAndLeavesTheThreshold() {
        view.onAlert(alert(C, AlertKind.CAPACITY, AlertState.OBSERVING, AlertState.CONFIRMED, 0.3, 0.25, T0));
        view.onAlert(alert(C, AlertKind.CAPACITY, AlertState.CONFIRMED, AlertState.CLEARED, 0.2, 0.225, T0.plusSeconds(60)));
        ClusterSnapshot s = snapshot();
        assertThat(s.thresholds()).containsEntry("CAPACITY", 0.25);
        assertThat(s.clearLevels()).containsEntry("CAPACITY", 0.225);
        assertThat(s.alertStates()).containsEntry("CAPACITY", "CLEARED");
    }

    @Test
    void theLogIsInTheOrderReadWhateverTheRecordsClocksSay() {
        view.onAlert(alert(C, AlertKind.HEAT, AlertState.NORMAL, AlertState.OBSERVING, 0.41, 0.35, T0.plusSeconds(3600)));
        view.onWeightCommand(weight(C, "n1", 1, 1.0, 0.9, T0));
        assertThat(snapshot().decisions()).extracting(Decision::kind).containsExactly("weights", "alert");
    }

    @Test
    void anOlderReportDoesNotUndoANewerAlertState() {
        view.onAlert(alert(C, AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0.5, 0.35, T0.plusSeconds(60)));
        view.onReport(report(C, T0, 0.45, 0.2, AlertState.OBSERVING, AlertState.NORMAL, 3));
        assertThat(snapshot().alertStates()).containsEntry("HEAT", "CONFIRMED");
    }

    @Test
    void theWeightCommandsOfOneEpochAreOneRoundInTheLog() {
        view.onWeightCommand(weight(C, "n1", 3, 1.0, 0.8, T0));
        view.onWeightCommand(weight(C, "n2", 3, 1.0, 1.2, T0));
        view.onWeightCommand(weight(C, "n1", 4, 0.8, 0.7, T0.plusSeconds(60)));
        ClusterSnapshot s = snapshot();
        assertThat(s.weightRounds()).isEqualTo(2);
        assertThat(s.decisions()).extracting(Decision::text).containsExactly(
                "weight round, epoch 4: 1 node (n1 0.80→0.70) — heat Gini above target",
                "weight round, epoch 3: 2 nodes (n1 1.00→0.80, n2 1.00→1.20) — heat Gini above target");
    }

    @Test
    void aMigrationRunsByPhaseWithCopyProgressUntilItsCleanup() {
        view.onMigrationCommand(command(C, "m1", "b1", MigrationPhase.COPY, "n4", 17, "n1", "n4", 1000, T0));
        view.onMigrationStatus(status(C, "m1", "n4", MigrationPhase.COPY, StepResult.PROGRESS, 250, T0.plusSeconds(1)));
        ClusterSnapshot copying = snapshot();
        assertThat(copying.migrationsByPhase()).containsEntry("COPY", 1).containsEntry("COMMIT", 0);
        assertThat(copying.migrations()).singleElement().satisfies(m -> {
            assertThat(m.slot()).isEqualTo(17);
            assertThat(m.source()).isEqualTo("n1");
            assertThat(m.target()).isEqualTo("n4");
            assertThat(m.bytesCopied()).isEqualTo(250);
            assertThat(m.shardBytes()).isEqualTo(1000);
        });
        view.onMigrationStatus(status(C, "m1", "n4", MigrationPhase.COPY, StepResult.DONE, 1000, T0.plusSeconds(2)));
        view.onMigrationCommand(command(C, "m1", "b1", MigrationPhase.COMMIT, "n4", 17, "n1", "n4", 1000, T0.plusSeconds(3)));
        assertThat(snapshot().migrationsByPhase()).containsEntry("COPY", 0).containsEntry("COMMIT", 1);
        view.onMigrationStatus(status(C, "m1", "n1", MigrationPhase.COMMIT, StepResult.DONE, 0, T0.plusSeconds(4)));
        view.onMigrationStatus(status(C, "m1", "n4", MigrationPhase.COMMIT, StepResult.DONE, 0, T0.plusSeconds(4)));
        ClusterSnapshot switched = snapshot();
        assertThat(switched.migrationsCommitted()).isEqualTo(1);
        assertThat(switched.bytesMoved()).isEqualTo(1000);
        assertThat(switched.migrationsByPhase()).containsEntry("CLEANUP", 1);
        view.onMigrationStatus(status(C, "m1", "n1", MigrationPhase.CLEANUP, StepResult.DONE, 0, T0.plusSeconds(5)));
        ClusterSnapshot done = snapshot();
        assertThat(done.migrations()).isEmpty();
        assertThat(done.decisions()).extracting(Decision::text).containsExactly(
                "migration m1 committed: slot 17 n1 → n4, 1000 B", "batch b1 started (first: slot 17 n1 → n4, 1000 B)");
    }

    @Test
    void anAnswerReadBeforeItsCommandStillCountsAndAFinishedMigrationStaysFinished() {
        view.onMigrationStatus(status(C, "m2", "n3", MigrationPhase.ABORT, StepResult.DONE, 0, T0));
        view.onMigrationCommand(command(C, "m2", "b2", MigrationPhase.COPY, "n3", 5, "n2", "n3", 10, T0.minusSeconds(5)));
        ClusterSnapshot s = snapshot();
        assertThat(s.migrationsAborted()).isEqualTo(1);
        assertThat(s.migrations()).isEmpty();
    }

    @Test
    void membershipChangesAreLoggedAndShownOnTheirNode() {
        view.onMembership(member(C, "n5", MembershipState.DRAINING, "hardware refresh", T0));
        ClusterSnapshot s = snapshot();
        assertThat(s.nodes()).extracting(NodeBar::node, NodeBar::membership)
                .containsExactly(tuple("n5", "DRAINING"));
        assertThat(s.decisions()).extracting(Decision::text).containsExactly("node n5 DRAINING (operator: hardware refresh)");
    }

    @Test
    void theDecisionLogIsNewestFirstAndBounded() {
        for (int i = 0; i < 8; i++) {
            view.onWeightCommand(weight(C, "n1", i, 1.0, 0.9, T0.plusSeconds(i)));
        }
        assertThat(snapshot().decisions()).hasSize(5).extracting(d -> (d.time() - T0.toEpochMilli()) / 1000)
                .containsExactly(7L, 6L, 5L, 4L, 3L);
    }

    @Test
    void controlsStandAsTheirLatestRecordsSayAndEachChangeIsALineOfTheLog() {
        view.onReport(report(C, T0, 0.3, 0.2, AlertState.NORMAL, AlertState.NORMAL, 3));
        view.onControl(control(C, ControlKind.PAUSE, true, null, T0.plusSeconds(10)));
        view.onControl(control(C, ControlKind.EXCLUDE, true, "n2", T0.plusSeconds(20)));
        view.onControl(control(C, ControlKind.PAUSE, false, null, T0.plusSeconds(5))); // older, read late: the pause stands
        ClusterSnapshot s = snapshot();
        assertThat(s.controls().paused()).isTrue();
        assertThat(s.controls().excluded()).containsExactly("n2");
        assertThat(s.controls().text()).isEqualTo("paused, excluded n2");
        assertThat(s.nodes()).extracting(NodeBar::node, NodeBar::excluded)
                .containsExactly(tuple("n1", false), tuple("n2", true), tuple("n3", false));
        assertThat(s.decisions()).extracting(Decision::kind, Decision::text).contains(
                tuple("control", "paused by alice (night shift)"), tuple("control", "node n2 excluded by alice (night shift)"));
    }

    @Test
    void theNewestProposalOfEachAppIsShownWithAtMostFiftyItems() {
        view.onProposal(plan(C, T0, 3));
        view.onProposal(plan(C, T0.plusSeconds(60), 70));
        view.onProposal(plan(C, T0.plusSeconds(30), 1)); // older, read late
        ClusterSnapshot s = snapshot();
        assertThat(s.proposals()).singleElement().satisfies(p -> {
            assertThat(p.app()).isEqualTo("migrator");
            assertThat(p.total()).isEqualTo(70);
            assertThat(p.items()).hasSize(50).first().isEqualTo("slot 0: n1 → n2, 1.8 TiB");
            assertThat(p.firstBatch()).isEqualTo(4);
        });
    }

    @Test
    void theAppsDecisionsAreLinesOfTheLogWithTheirReason() {
        view.onDecision(decision(C, "balancer", "FLOOR_REACHED", "weights reached their floor", T0));
        view.onDecision(decision(C, "migrator", "PAUSED", "paused by an operator: no new batch", T0.plusSeconds(1)));
        assertThat(snapshot().decisions()).extracting(Decision::kind, Decision::text).containsExactly(
                tuple("migrator", "PAUSED: paused by an operator: no new batch"),
                tuple("balancer", "FLOOR_REACHED: weights reached their floor"));
    }
}
