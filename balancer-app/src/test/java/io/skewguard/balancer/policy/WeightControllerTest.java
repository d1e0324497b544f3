package io.skewguard.balancer.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class WeightControllerTest {

    private static final long MINUTE = 60_000;

    private final WeightController controller = new WeightController(ControllerSettings.defaults());

    /** Two equal nodes, "a" taking {@code shareOfA} of the heat. */
    private static LoadSnapshot twoNodes(long time, double gini, double shareOfA) {
        return new LoadSnapshot("c1", time, gini, List.of(
                new NodeLoad("a", 1000 * shareOfA, 100),
                new NodeLoad("b", 1000 * (1 - shareOfA), 100)));
    }

    private ControllerState repairing() {
        return controller.onHeatConfirmed(ControllerState.initial(), 0);
    }

    @Test
    void withoutConfirmedHeatAlertNoRoundRuns() {
        Round round = controller.onReport(ControllerState.initial(), twoNodes(10 * MINUTE, 0.6, 0.9));

        assertThat(round.outcome()).isEqualTo(RoundOutcome.IDLE);
        assertThat(round.changes()).isEmpty();
        assertThat(round.state()).isEqualTo(ControllerState.initial());
    }

    @Test
    void confirmedHeatAlertStartsARoundThatLowersTheHotNodeAndRaisesTheColdOne() {
        Round round = controller.onReport(repairing(), twoNodes(10 * MINUTE, 0.4, 0.8));

        assertThat(round.outcome()).isEqualTo(RoundOutcome.ADJUSTED);
        assertThat(round.state().epoch()).isEqualTo(1);
        assertThat(round.state().lastRoundAt()).isEqualTo(10 * MINUTE);
        assertThat(round.changes()).extracting(WeightChange::node).containsExactly("a", "b");
        // r_a = 1.6, r_b = 0.4: both steps are large errors, so both are clipped at ±5 %
        assertThat(round.state().weight("a")).isCloseTo(0.95, within(1e-12));
        assertThat(round.state().weight("b")).isCloseTo(1.05, within(1e-12));
        assertThat(round.changes().get(0).loadRatio()).isCloseTo(1.6, within(1e-12));
    }

    @Test
    void smallErrorTakesAProportionalStepBelowTheClip() {
        // r_a = 1.04 / 0.96 is outside a 0.01 deadband; the step is (1/r)^0.5, about -2 %
        WeightController fine = new WeightController(new ControllerSettings(
                0.5, 2.0, 0.05, 0.01, 0.5, 0.2, Duration.ofMinutes(2), 0));
        ControllerState state = fine.onHeatConfirmed(ControllerState.initial(), 0);

        Round round = fine.onReport(state, twoNodes(MINUTE, 0.3, 0.52));

        assertThat(round.state().weight("a")).isCloseTo(Math.pow(0.52 / 0.5, -0.5), within(1e-12));
        assertThat(round.state().weight("b")).isCloseTo(Math.pow(0.48 / 0.5, -0.5), within(1e-12));
    }

    @Test
    void roundsOfOneClusterAreAtLeastTwoMinutesOfEventTimeApart() {
        Round first = controller.onReport(repairing(), twoNodes(10 * MINUTE, 0.4, 0.8));

        Round early = controller.onReport(first.state(), twoNodes(10 * MINUTE + 119_999, 0.4, 0.8));
        assertThat(early.outcome()).isEqualTo(RoundOutcome.TOO_SOON);
        assertThat(early.state()).isEqualTo(first.state());

        Round onTime = controller.onReport(first.state(), twoNodes(12 * MINUTE, 0.4, 0.8));
        assertThat(onTime.outcome()).isEqualTo(RoundOutcome.ADJUSTED);
        assertThat(onTime.state().epoch()).isEqualTo(2);
    }

    @Test
    void replayedReportOfAFinishedRoundDoesNotOpenAnotherEpoch() {
        LoadSnapshot report = twoNodes(10 * MINUTE, 0.4, 0.8);
        Round first = controller.onReport(repairing(), report);

        Round replay = controller.onReport(first.state(), report);

        assertThat(replay.outcome()).isEqualTo(RoundOutcome.TOO_SOON);
        assertThat(replay.state().epoch()).isEqualTo(1);
    }

    @Test
    void sameStateAndReportGiveTheSameRound() {
        ControllerState state = repairing();
        LoadSnapshot report = twoNodes(10 * MINUTE, 0.4, 0.7);

        assertThat(controller.onReport(state, report)).isEqualTo(controller.onReport(state, report));
    }

    @Test
    void repairEndsAtTheTargetGiniAndWeightsStayWhereTheyAre() {
        Round adjusted = controller.onReport(repairing(), twoNodes(10 * MINUTE, 0.4, 0.8));

        Round done = controller.onReport(adjusted.state(), twoNodes(12 * MINUTE, 0.20, 0.8));

        assertThat(done.outcome()).isEqualTo(RoundOutcome.TARGET_REACHED);
        assertThat(done.state().repairing()).isFalse();
        assertThat(done.state().weights()).isEqualTo(adjusted.state().weights());
        assertThat(controller.onReport(done.state(), twoNodes(20 * MINUTE, 0.30, 0.8)).outcome())
                .as("no rounds after the repair without a new CONFIRMED alert")
                .isEqualTo(RoundOutcome.IDLE);
    }

    @Test
    void repairEndsWhenEveryNodeIsInsideTheDeadband() {
        Round round = controller.onReport(repairing(), twoNodes(10 * MINUTE, 0.3, 0.51));

        assertThat(round.outcome()).isEqualTo(RoundOutcome.INSIDE_DEADBAND);
        assertThat(round.state().repairing()).isFalse();
        assertThat(round.state().epoch()).isZero();
    }

    @Test
    void nodeInsideTheDeadbandKeepsItsWeightWhileOthersMove() {
        LoadSnapshot report = new LoadSnapshot("c1", MINUTE, 0.4, List.of(
                new NodeLoad("hot", 500, 100),
                new NodeLoad("fair", 340, 100),
                new NodeLoad("cold", 160, 100)));

        Round round = controller.onReport(repairing(), report);

        assertThat(round.changes()).extracting(WeightChange::node).containsExactly("cold", "hot");
        assertThat(round.state().weight("fair")).isEqualTo(1.0);
        assertThat(round.state().nodes()).containsKey("fair");
    }

    @Test
    void nodeWithoutCapacityReportIsLeftOut() {
        LoadSnapshot report = new LoadSnapshot("c1", MINUTE, 0.4, List.of(
                new NodeLoad("a", 800, 100),
                new NodeLoad("b", 200, 100),
                new NodeLoad("new", 0, 0)));

        Round round = controller.onReport(repairing(), report);

        assertThat(round.changes()).extracting(WeightChange::node).containsExactly("a", "b");
        assertThat(round.state().weight("new")).isEqualTo(1.0);
    }

    @Test
    void withoutAnyCapacityReportTheRoundWaitsAndTheRepairStaysArmed() {
        LoadSnapshot report = new LoadSnapshot("c1", MINUTE, 0.6, List.of(
                new NodeLoad("a", 800, 0), new NodeLoad("b", 200, 0)));

        Round round = controller.onReport(repairing(), report);

        assertThat(round.outcome()).isEqualTo(RoundOutcome.UNMEASURABLE);
        assertThat(round.state().repairing()).isTrue();
        assertThat(round.state().epoch()).isZero();
    }

    @Test
    void reversalOfANodesErrorHalvesItsGain() {
        Round first = controller.onReport(repairing(), twoNodes(2 * MINUTE, 0.4, 0.8));
        assertThat(first.state().nodes().get("a").gain()).isEqualTo(0.5);

        Round reversed = controller.onReport(first.state(), twoNodes(4 * MINUTE, 0.4, 0.2));

        NodeControl a = reversed.state().nodes().get("a");
        assertThat(a.gain()).isEqualTo(0.25);
        assertThat(a.reversals()).isEqualTo(1);
        assertThat(a.direction()).isEqualTo(+1);
        assertThat(reversed.state().weight("a")).isGreaterThan(first.state().weight("a"));
    }

    @Test
    void floorIsReportedWithoutANewEpochWhenEveryNodeOutsideTheDeadbandSitsAtItsBound() {
        ControllerState state = repairing();
        long time = 0;
        Round round;
        do {
            time += 2 * MINUTE;
            round = controller.onReport(state, twoNodes(time, 0.6, 0.9)); // a fixed load weights cannot move
            state = round.state();
        } while (round.outcome() == RoundOutcome.ADJUSTED);

        assertThat(round.outcome()).isEqualTo(RoundOutcome.FLOOR_REACHED);
        assertThat(state.weight("a")).isEqualTo(0.5);
        assertThat(state.weight("b")).isEqualTo(2.0);
        assertThat(state.floorReached()).isTrue();
        assertThat(state.repairing()).as("stays armed in case the load shifts").isTrue();
        // log(2) / log(1.05) = 14.2: fifteen 5 % steps from 1.0 to a bound
        assertThat(state.epoch()).isEqualTo(15);
    }

    @Test
    void replayedConfirmedAlertOfTheSameEpisodeDoesNotRestartAFinishedRepair() {
        ControllerState started = controller.onHeatConfirmed(ControllerState.initial(), 5 * MINUTE);
        Round done = controller.onReport(started, twoNodes(10 * MINUTE, 0.1, 0.8));
        assertThat(done.state().repairing()).isFalse();

        assertThat(controller.onHeatConfirmed(done.state(), 5 * MINUTE)).isEqualTo(done.state());
        assertThat(controller.onHeatConfirmed(done.state(), 30 * MINUTE).repairing())
                .as("a new episode starts a new repair")
                .isTrue();
    }

    @Test
    void withoutDecayWeightsStayAfterTheRepair() {
        Round adjusted = controller.onReport(repairing(), twoNodes(2 * MINUTE, 0.4, 0.8));
        Round done = controller.onReport(adjusted.state(), twoNodes(4 * MINUTE, 0.1, 0.5));

        for (long t = 6; t < 60; t += 2) {
            Round later = controller.onReport(done.state(), twoNodes(t * MINUTE, 0.1, 0.5));
            assertThat(later.outcome()).isEqualTo(RoundOutcome.IDLE);
        }
    }

    @Test
    void withDecayWeightsReturnToOneAfterTheRepairMonotonically() {
        WeightController decaying = new WeightController(new ControllerSettings(
                0.5, 2.0, 0.05, 0.05, 0.5, 0.2, Duration.ofMinutes(2), 0.25));
        ControllerState state = decaying.onHeatConfirmed(ControllerState.initial(), 0);
        long time = 0;
        for (int k = 0; k < 5; k++) {
            time += 2 * MINUTE;
            state = decaying.onReport(state, twoNodes(time, 0.4, 0.8)).state();
        }
        time += 2 * MINUTE;
        state = decaying.onReport(state, twoNodes(time, 0.1, 0.5)).state();
        assertThat(state.repairing()).isFalse();
        double previousA = state.weight("a");
        assertThat(previousA).isLessThan(1.0);

        Round round;
        do {
            time += 2 * MINUTE;
            round = decaying.onReport(state, twoNodes(time, 0.1, 0.5));
            state = round.state();
            assertThat(state.weight("a")).isBetween(previousA, 1.0);
            previousA = state.weight("a");
        } while (round.outcome() == RoundOutcome.DECAYED);

        assertThat(round.outcome()).isEqualTo(RoundOutcome.IDLE);
        assertThat(state.weights().values()).containsOnly(1.0);
    }

    @Test
    void aHeldNodeKeepsItsWeightButCountsInEveryShare() {
        Round round = controller.onReport(repairing(), twoNodes(10 * MINUTE, 0.4, 0.8).holding(java.util.Set.of("a")));

        assertThat(round.outcome()).isEqualTo(RoundOutcome.ADJUSTED);
        assertThat(round.changes()).extracting(WeightChange::node).containsExactly("b");
        assertThat(round.state().weight("a")).isEqualTo(1.0);
        // b's load ratio is computed with a's heat in the total: 0.2 of the heat on half the capacity
        assertThat(round.changes().get(0).loadRatio()).isCloseTo(0.4, within(1e-12));
    }

    @Test
    void whenOnlyHeldNodesWouldMoveTheRoundIsExcludedAndTheRepairStaysArmed() {
        Round round = controller.onReport(repairing(), twoNodes(10 * MINUTE, 0.4, 0.8).holding(java.util.Set.of("a", "b")));

        assertThat(round.outcome()).isEqualTo(RoundOutcome.EXCLUDED);
        assertThat(round.changes()).isEmpty();
        assertThat(round.state().repairing()).isTrue();
        assertThat(round.state().epoch()).isZero();
    }

    private static final WeightController FOLLOWING_UP = new WeightController(new ControllerSettings(
            0.5, 2.0, 0.05, 0.05, 0.5, 0.2, Duration.ofMinutes(2), 0, Duration.ofMinutes(6)));

    /** A repair armed at 0 that ended at {@code time} (heat Gini under the target). */
    private static ControllerState ended(WeightController c, long time) {
        ControllerState state = c.onHeatConfirmed(ControllerState.initial(), 0);
        state = c.onReport(state, twoNodes(time - 2 * MINUTE, 0.4, 0.8)).state();
        Round done = c.onReport(state, twoNodes(time, 0.15, 0.6));
        assertThat(done.outcome()).isEqualTo(RoundOutcome.TARGET_REACHED);
        return done.state();
    }

    @Test
    void withFollowUpAHeatGiniAboveTheTargetForTheWholeFollowUpTimeStartsARepairWithoutAnAlert() {
        ControllerState state = ended(FOLLOWING_UP, 10 * MINUTE);

        Round first = FOLLOWING_UP.onReport(state, twoNodes(11 * MINUTE, 0.25, 0.7));
        assertThat(first.outcome()).isEqualTo(RoundOutcome.IDLE);
        assertThat(first.state().aboveTargetSince()).isEqualTo(11 * MINUTE);
        Round waiting = FOLLOWING_UP.onReport(first.state(), twoNodes(16 * MINUTE, 0.25, 0.7));
        assertThat(waiting.outcome()).isEqualTo(RoundOutcome.IDLE);
        assertThat(waiting.state().aboveTargetSince()).isEqualTo(11 * MINUTE);

        Round followUp = FOLLOWING_UP.onReport(waiting.state(), twoNodes(17 * MINUTE, 0.25, 0.7));
        assertThat(followUp.outcome()).isEqualTo(RoundOutcome.ADJUSTED);
        assertThat(followUp.state().repairing()).isTrue();
        assertThat(followUp.state().aboveTargetSince()).isEqualTo(ControllerState.NEVER);
        assertThat(followUp.state().weight("a")).isLessThan(state.weight("a"));
        // it then runs like any repair, down to the target
        Round done = FOLLOWING_UP.onReport(followUp.state(), twoNodes(19 * MINUTE, 0.19, 0.55));
        assertThat(done.outcome()).isEqualTo(RoundOutcome.TARGET_REACHED);
        assertThat(done.state().repairing()).isFalse();
    }

    @Test
    void aReportAtOrBelowTheTargetRestartsTheFollowUpWatch() {
        ControllerState state = ended(FOLLOWING_UP, 10 * MINUTE);
        state = FOLLOWING_UP.onReport(state, twoNodes(11 * MINUTE, 0.25, 0.7)).state();
        Round dip = FOLLOWING_UP.onReport(state, twoNodes(14 * MINUTE, 0.2, 0.6));
        assertThat(dip.state().aboveTargetSince()).isEqualTo(ControllerState.NEVER);

        Round again = FOLLOWING_UP.onReport(dip.state(), twoNodes(15 * MINUTE, 0.25, 0.7));
        Round stillWaiting = FOLLOWING_UP.onReport(again.state(), twoNodes(20 * MINUTE, 0.25, 0.7));
        assertThat(stillWaiting.outcome()).isEqualTo(RoundOutcome.IDLE);
        assertThat(FOLLOWING_UP.onReport(stillWaiting.state(), twoNodes(21 * MINUTE, 0.25, 0.7)).outcome())
                .isEqualTo(RoundOutcome.ADJUSTED);
    }

    @Test
    void noFollowUpBeforeAnyAlertNorWithFollowUpOff() {
        Round never = FOLLOWING_UP.onReport(ControllerState.initial(), twoNodes(10 * MINUTE, 0.3, 0.8));
        assertThat(never.outcome()).isEqualTo(RoundOutcome.IDLE);
        assertThat(never.state()).isEqualTo(ControllerState.initial());

        ControllerState state = ended(controller, 10 * MINUTE);
        for (long t = 11; t < 120; t++) {
            Round later = controller.onReport(state, twoNodes(t * MINUTE, 0.35, 0.8));
            assertThat(later.outcome()).isEqualTo(RoundOutcome.IDLE);
            state = later.state();
        }
        assertThat(state.aboveTargetSince()).isEqualTo(ControllerState.NEVER);
    }

    @Test
    void aNegativeFollowUpIsRefused() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ControllerSettings(
                        0.5, 2.0, 0.05, 0.05, 0.5, 0.2, Duration.ofMinutes(2), 0, Duration.ofMinutes(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("follow-up");
    }
}
