package io.skewguard.agent.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CopyPacerTest {

    private final CopyPacer pacer = new CopyPacer(0.05, 0.02);

    @Test
    void theFirstQuietIntervalSetsTheBaselineAndLaterOnesMoveItByAFifth() {
        CopyPacer.Pace p = pacer.next(CopyPacer.Pace.START, 1_000, 100, false);
        assertThat(p).isEqualTo(new CopyPacer.Pace(100, 1));
        p = pacer.next(p, 1_000, 200, false);
        assertThat(p.baselineMicros()).isEqualTo(120.0);
        assertThat(p.pace()).isEqualTo(1.0);
    }

    @Test
    void anIntervalWithCopiesOverTheToleranceHalvesThePaceDownToTheLowest() {
        CopyPacer.Pace p = new CopyPacer.Pace(100, 1);
        p = pacer.next(p, 1_000, 106, true);
        assertThat(p.pace()).isEqualTo(0.5);
        for (int i = 0; i < 20; i++) {
            p = pacer.next(p, 1_000, 1_000, true);
        }
        assertThat(p.pace()).isEqualTo(0.02);
        assertThat(p.baselineMicros()).as("intervals with copies never move the baseline").isEqualTo(100.0);
    }

    @Test
    void anIntervalWithCopiesWithinTheToleranceRaisesThePaceByAQuarterUpToFull() {
        CopyPacer.Pace p = new CopyPacer.Pace(100, 0.5);
        p = pacer.next(p, 1_000, 105, true);
        assertThat(p.pace()).isEqualTo(0.625);
        for (int i = 0; i < 10; i++) {
            p = pacer.next(p, 1_000, 50, true);
        }
        assertThat(p.pace()).isEqualTo(1.0);
    }

    @Test
    void fromTheLowestPaceARunOfGoodIntervalsComesBackToFullInEighteen() {
        CopyPacer.Pace p = new CopyPacer.Pace(100, 0.02);
        int intervals = 0;
        while (p.pace() < 1) {
            p = pacer.next(p, 1_000, 100, true);
            intervals++;
        }
        assertThat(intervals).isEqualTo(18);
    }

    @Test
    void tooFewWritesOrNoBaselineYetSayNothing() {
        CopyPacer.Pace p = new CopyPacer.Pace(100, 0.5);
        assertThat(pacer.next(p, CopyPacer.MIN_WRITES - 1, 10_000, true)).isEqualTo(p);
        assertThat(pacer.next(p, CopyPacer.MIN_WRITES - 1, 10_000, false)).isEqualTo(p);
        assertThat(pacer.next(CopyPacer.Pace.START, 1_000, 10_000, true)).isEqualTo(CopyPacer.Pace.START);
    }

    @Test
    void aPaceThatCouldStopCopiesOrANegativeToleranceIsRefused() {
        assertThatThrownBy(() -> new CopyPacer(0.05, 0)).hasMessageContaining("minPace");
        assertThatThrownBy(() -> new CopyPacer(0.05, 1.5)).hasMessageContaining("minPace");
        assertThatThrownBy(() -> new CopyPacer(-0.1, 0.02)).hasMessageContaining("tolerance");
        assertThatThrownBy(() -> new CopyPacer(Double.NaN, 0.02)).hasMessageContaining("tolerance");
    }
}
