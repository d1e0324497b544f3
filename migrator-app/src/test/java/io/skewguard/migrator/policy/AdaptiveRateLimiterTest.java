package io.skewguard.migrator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.migrator.MigratorSettings;
import org.junit.jupiter.api.Test;

class AdaptiveRateLimiterTest {

    private static final long HOUR = 3_600_000;

    private final AdaptiveRateLimiter limiter = new AdaptiveRateLimiter(100_000_000, 0.5, 0.9, 0.1, 12 * HOUR);

    @Test
    void fullBudgetBeforeAnyLoadIsKnown() {
        assertThat(limiter.budget(AdaptiveRateLimiter.WriteLoad.NONE)).isEqualTo(100_000_000);
    }

    @Test
    void fullBudgetInATroughAndTheFloorAtThePeak() {
        AdaptiveRateLimiter.WriteLoad peak = limiter.observe(AdaptiveRateLimiter.WriteLoad.NONE, 1_000_000, 0);
        AdaptiveRateLimiter.WriteLoad trough = limiter.observe(peak, 300_000, 60_000);

        assertThat(limiter.budget(peak)).isEqualTo(10_000_000);
        assertThat(limiter.budget(trough)).isEqualTo(100_000_000);
    }

    @Test
    void budgetFallsLinearlyBetweenTheLowAndHighLoad() {
        AdaptiveRateLimiter.WriteLoad peak = limiter.observe(AdaptiveRateLimiter.WriteLoad.NONE, 1_000_000, 0);
        AdaptiveRateLimiter.WriteLoad mid = limiter.observe(peak, 700_000, 0); // load 0.7: half way

        assertThat(limiter.budget(mid)).isEqualTo(55_000_000);
    }

    @Test
    void thePeakIsForgottenWithItsHalfLife() {
        AdaptiveRateLimiter.WriteLoad peak = limiter.observe(AdaptiveRateLimiter.WriteLoad.NONE, 1_000_000, 0);

        AdaptiveRateLimiter.WriteLoad later = limiter.observe(peak, 0, 12 * HOUR);

        assertThat(later.peakBytesPerSec()).isEqualTo(500_000.0);
    }

    /**
     * A daily cycle, the write rate 1 ± 0.5 as a sine with its peak at 06:00, one report every 10
     * minutes. With the migrator's defaults the budget is full from 15:00 to 20:00 around the trough
     * (18:00), where the rate is at most half the remembered peak, and at its floor around the peak.
     * A peak remembered for less than a day forgets the day's peak by the evening: with a 12 h
     * half-life the limiter takes 21:00's rate (0.65, rising) for a peak and copies at its floor.
     */
    @Test
    void withTheDefaultsTheBudgetIsFullThroughTheEveningTroughOfADailyCycle() {
        AdaptiveRateLimiter defaults = MigratorSettings.from(MigratorSettings.MODEL.defaults()).rateLimiter();
        AdaptiveRateLimiter halfDay = new AdaptiveRateLimiter(defaults.maxBytesPerSec(), 0.5, 0.9, 0.1, 12 * HOUR);
        AdaptiveRateLimiter.WriteLoad load = AdaptiveRateLimiter.WriteLoad.NONE;
        AdaptiveRateLimiter.WriteLoad halfDayLoad = AdaptiveRateLimiter.WriteLoad.NONE;
        long step = 10 * 60_000;
        for (long t = 0; t <= 3 * 24 * HOUR; t += step) {
            double rate = 1_000_000 * (1 + 0.5 * Math.sin(2 * Math.PI * t / (24.0 * HOUR)));
            load = defaults.observe(load, rate, t);
            halfDayLoad = halfDay.observe(halfDayLoad, rate, t);
            long hourOfDay = (t / HOUR) % 24;
            if (t >= 2 * 24 * HOUR && hourOfDay >= 15 && hourOfDay < 20) {
                assertThat(defaults.budget(load)).as("budget at %d h", t / HOUR).isEqualTo(defaults.maxBytesPerSec());
            }
            if (t >= 2 * 24 * HOUR && hourOfDay >= 4 && hourOfDay < 8) {
                assertThat(defaults.budget(load)).as("budget at %d h", t / HOUR)
                        .isEqualTo((long) Math.floor(defaults.maxBytesPerSec() * 0.1));
            }
            if (t == 2 * 24 * HOUR + 21 * HOUR) {
                assertThat(halfDay.budget(halfDayLoad)).as("12 h half-life at 21:00")
                        .isEqualTo((long) Math.floor(halfDay.maxBytesPerSec() * 0.1));
            }
        }
    }
}
