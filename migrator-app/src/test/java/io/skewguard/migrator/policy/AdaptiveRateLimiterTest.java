package io.skewguard.migrator.policy;

import static org.assertj.core.api.Assertions.assertThat;

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
}
