package io.skewguard.detector.policy;

import static io.skewguard.schemas.AlertState.CLEARED;
import static io.skewguard.schemas.AlertState.CONFIRMED;
import static io.skewguard.schemas.AlertState.NORMAL;
import static io.skewguard.schemas.AlertState.OBSERVING;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.detector.policy.AlertStateMachine.Transition;
import java.util.List;
import org.junit.jupiter.api.Test;

class AlertStateMachineTest {

    private static final long COOLDOWN = 300_000;
    private final AlertStateMachine m = new AlertStateMachine(0.40, 0.10, COOLDOWN);

    @Test
    void risingAboveThresholdStartsObservingAtThatTick() {
        assertThat(m.observe(0.40, 0)).isEmpty(); // equal is not above
        List<Transition> t = m.observe(0.41, 10_000);
        assertThat(t).containsExactly(new Transition(NORMAL, OBSERVING, 0.41, 0.40, 10_000, 10_000));
        assertThat(m.since()).isEqualTo(10_000);
    }

    @Test
    void transientSpikeShorterThanCooldownReturnsToNormal() {
        m.observe(0.5, 0);
        assertThat(m.observe(0.6, COOLDOWN - 10_000)).isEmpty();
        assertThat(m.observe(0.40, COOLDOWN)).extracting(Transition::to).containsExactly(NORMAL);
        assertThat(m.state()).isEqualTo(NORMAL);
    }

    @Test
    void sustainedSkewConfirmsAtTheFirstTickAtOrAfterCooldown() {
        m.observe(0.5, 5_000);
        assertThat(m.observe(0.5, 5_000 + COOLDOWN - 1)).isEmpty();
        List<Transition> t = m.observe(0.5, 5_000 + COOLDOWN);
        assertThat(t).containsExactly(new Transition(OBSERVING, CONFIRMED, 0.5, 0.40, 5_000, 5_000 + COOLDOWN));
    }

    @Test
    void confirmedHoldsInsideTheHysteresisBandAndClearsBelowIt() {
        m.observe(0.5, 0);
        m.observe(0.5, COOLDOWN);
        assertThat(m.observe(0.37, COOLDOWN + 10_000)).isEmpty(); // 0.36 < 0.37 <= 0.40
        assertThat(m.observe(0.361, COOLDOWN + 20_000)).isEmpty();
        List<Transition> t = m.observe(0.36, COOLDOWN + 30_000);
        assertThat(t).extracting(Transition::from, Transition::to).containsExactly(
                org.assertj.core.groups.Tuple.tuple(CONFIRMED, CLEARED));
        assertThat(t.get(0).threshold()).isEqualTo(0.40 * 0.9);
    }

    @Test
    void clearedBecomesNormalAtTheNextTickAndMayObserveAgainAtOnce() {
        m.observe(0.5, 0);
        m.observe(0.5, COOLDOWN);
        m.observe(0.1, COOLDOWN + 10_000);
        assertThat(m.state()).isEqualTo(CLEARED);
        List<Transition> t = m.observe(0.45, COOLDOWN + 20_000);
        assertThat(t).extracting(Transition::to).containsExactly(NORMAL, OBSERVING);
        assertThat(m.since()).isEqualTo(COOLDOWN + 20_000);
    }

    @Test
    void zeroCooldownConfirmsAtTheFirstTickAbove() {
        AlertStateMachine fast = new AlertStateMachine(0.25, 0.1, 0);
        assertThat(fast.observe(0.3, 7)).extracting(Transition::to).containsExactly(OBSERVING, CONFIRMED);
    }

    @Test
    void restoredMachineContinuesItsEpisode() {
        AlertStateMachine r = new AlertStateMachine(0.40, 0.10, COOLDOWN, OBSERVING, 1_000);
        assertThat(r.observe(0.5, 1_000 + COOLDOWN)).extracting(Transition::to).containsExactly(CONFIRMED);
    }
}
