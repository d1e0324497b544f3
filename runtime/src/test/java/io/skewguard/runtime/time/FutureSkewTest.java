package io.skewguard.runtime.time;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FutureSkewTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final long HOUR = 3_600_000L;
    private final FutureSkew skew = new FutureSkew(HOUR);

    @Test
    void anEventUpToTheSkewAheadOfTheClockPasses() {
        assertThat(skew.check("event time", NOW + HOUR, NOW)).isEmpty();
        assertThat(skew.check("event time", NOW, NOW)).isEmpty();
    }

    @Test
    void anEventFurtherAheadIsRefusedAsFutureWithHowFarAndTheSetting() {
        assertThat(skew.check("event time", NOW + 3652L * 24 * HOUR, NOW).orElseThrow())
                .startsWith("future: event time 2033-")
                .contains("is 3652d ahead of this process's clock")
                .contains("max-future-skew 1h");
        assertThat(skew.check("windowEnd", NOW + HOUR + 1, NOW)).isPresent();
    }

    @Test
    void nothingIsTooOldForTheClock() {
        assertThat(skew.check("event time", Long.MIN_VALUE, NOW)).isEmpty();
        assertThat(skew.check("event time", NOW - 5 * 365 * 24 * HOUR, NOW)).isEmpty();
    }

    @Test
    void anEventAheadOfTheClockCountsAsReadAtTheClock() {
        assertThat(FutureSkew.bounded(NOW + 10, NOW)).isEqualTo(NOW);
        assertThat(FutureSkew.bounded(NOW - 10, NOW)).isEqualTo(NOW - 10);
    }
}
