package io.skewguard.migrator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;

class AdaptiveRateLimiterProperties {

    private static final long HOUR = 3_600_000;

    @Property
    void budgetIsNeverZeroAndNeverAboveTheMaximum(
            @ForAll @DoubleRange(min = 0, max = 1e12) double peakRate, @ForAll @DoubleRange(min = 0, max = 1e12) double rate) {
        AdaptiveRateLimiter tiny = new AdaptiveRateLimiter(3, 0.5, 0.9, 0.1, HOUR);
        AdaptiveRateLimiter.WriteLoad load = tiny.observe(tiny.observe(AdaptiveRateLimiter.WriteLoad.NONE, peakRate, 0), rate, 1);

        assertThat(tiny.budget(load)).isBetween(1L, 3L);
    }
}
