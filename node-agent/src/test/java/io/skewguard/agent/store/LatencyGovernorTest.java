package io.skewguard.agent.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LatencyGovernorTest {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final LatencyGovernor governor = new LatencyGovernor(new CopyPacer(0.05, 0.02), Duration.ofSeconds(1), nanos::get);

    /** {@code count} writes of {@code micros} each on {@code governor}'s clock {@code nanos}. */
    static void writes(LatencyGovernor governor, AtomicLong nanos, int count, long micros) {
        for (int i = 0; i < count; i++) {
            long start = governor.now();
            nanos.addAndGet(micros * 1_000);
            governor.recordWrite(start);
        }
    }

    @Test
    void nothingChangesWithinAnInterval() {
        writes(governor, nanos, 500, 100);
        assertThat(governor.pace()).isEqualTo(1.0);
        assertThat(governor.state()).isEqualTo(CopyPacer.Pace.START);
        assertThat(governor.intervals()).isEqualTo(new LatencyGovernor.Intervals(0, 0));
    }

    @Test
    void aQuietIntervalSetsTheBaselineAndAnIntervalWithSlowWritesAndCopiesHalvesThePace() {
        writes(governor, nanos, 500, 100);
        nanos.addAndGet(1_000_000_000L);
        assertThat(governor.pace()).isEqualTo(1.0);
        assertThat(governor.state().baselineMicros()).isEqualTo(100.0);

        governor.copied();
        writes(governor, nanos, 500, 300);
        nanos.addAndGet(1_000_000_000L);
        assertThat(governor.pace()).isEqualTo(0.5);
        assertThat(governor.intervals()).isEqualTo(new LatencyGovernor.Intervals(2, 1));
    }

    @Test
    void theWritePathClosesAnIntervalToo() {
        writes(governor, nanos, 500, 100);
        nanos.addAndGet(1_000_000_000L);
        writes(governor, nanos, 1, 100); // no copy asked for a pace: the write closes the quiet interval
        assertThat(governor.state().baselineMicros()).isEqualTo(100.0);
    }

    @Test
    void slowWritesWithoutCopiesMoveTheBaselineNotThePace() {
        writes(governor, nanos, 500, 100);
        nanos.addAndGet(1_000_000_000L);
        governor.pace();
        writes(governor, nanos, 500, 600);
        nanos.addAndGet(1_000_000_000L);
        assertThat(governor.pace()).isEqualTo(1.0);
        assertThat(governor.state().baselineMicros()).isEqualTo(200.0, org.assertj.core.data.Offset.offset(5.0));
    }

    @Test
    void theCopyFlagCountsForTheIntervalItWasRaisedInOnly() {
        writes(governor, nanos, 500, 100);
        nanos.addAndGet(1_000_000_000L);
        governor.pace();
        governor.copied();
        writes(governor, nanos, 500, 300);
        nanos.addAndGet(1_000_000_000L);
        assertThat(governor.pace()).isEqualTo(0.5);
        writes(governor, nanos, 500, 300); // no copy worked in this one: quiet, so the baseline moves
        nanos.addAndGet(1_000_000_000L);
        assertThat(governor.pace()).isEqualTo(0.5);
        assertThat(governor.state().baselineMicros()).isGreaterThan(100.0);
    }
}
