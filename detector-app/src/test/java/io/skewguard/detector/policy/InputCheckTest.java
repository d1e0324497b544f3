package io.skewguard.detector.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.WriteEvent;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class InputCheckTest {

    private final InputCheck check = new InputCheck(30_000, new FutureSkew(3_600_000), 4096, Set.of());

    private static WriteEvent write(String node, int slot, long bytes, long ops) {
        return new WriteEvent("c1", node, slot, bytes, ops, Instant.ofEpochMilli(0));
    }

    private static CapacityEvent capacity(long used, long total, List<ShardUsage> shards) {
        return new CapacityEvent("c1", "n1", used, total, null, shards, Instant.ofEpochMilli(0));
    }

    @Test
    void goodEventsPass() {
        assertThat(check.check(write("n1", 4095, 0, 0))).isEmpty();
        assertThat(check.check(capacity(1000, 1000, List.of(new ShardUsage(3, 10L))))).isEmpty();
    }

    @Test
    void badWritesAreRefusedWithTheirReason() {
        assertThat(check.check(write("", 1, 1, 1))).contains("invalid: missing node id");
        assertThat(check.check(write("n1", 1, -1, 1)).orElseThrow()).startsWith("invalid: negative bytes");
        assertThat(check.check(write("n1", 1, 1, -1)).orElseThrow()).startsWith("invalid: negative ops");
        assertThat(check.check(write("n1", 4096, 1, 1)).orElseThrow()).startsWith("invalid: slot 4096 outside");
        assertThat(check.check(write("n1", -1, 1, 1)).orElseThrow()).startsWith("invalid: slot -1 outside");
    }

    @Test
    void badCapacitiesAreRefusedWithTheirReason() {
        assertThat(check.check(capacity(1001, 1000, List.of())).orElseThrow()).contains("> total");
        assertThat(check.check(capacity(-1, 1000, List.of())).orElseThrow()).startsWith("invalid: negative used");
        assertThat(check.check(capacity(0, 0, List.of())).orElseThrow()).contains("not positive");
        assertThat(check.check(capacity(1, 10, List.of(new ShardUsage(1, -5L)))).orElseThrow())
                .contains("shard of slot 1");
    }

    @Test
    void unknownClusterIsRefusedWhenClustersAreListed() {
        InputCheck only = new InputCheck(0, new FutureSkew(0), 16, Set.of("c2"));
        assertThat(only.check(write("n1", 1, 1, 1))).contains("unknown-cluster: cluster 'c1' is not one of the clusters served");
    }

    @Test
    void aReasonQuotesAnIdOfAnyLengthCutToAHundredCharacters() {
        InputCheck only = new InputCheck(0, new FutureSkew(0), 16, Set.of("c2"));
        String longCluster = "c".repeat(250);
        WriteEvent e = write("n1", 1, 1, 1);
        e.setCluster(longCluster);
        assertThat(only.check(e).orElseThrow()).startsWith("unknown-cluster: cluster '" + "c".repeat(100) + "…'")
                .hasSizeLessThan(200);
    }

    @Test
    void timeMustLieWithinGraceBehindStreamTimeAndMaxFutureSkewAheadOfTheClock() {
        long wm = 1_000_000;
        long now = wm + 5_000;
        assertThat(check.checkTime(123, Long.MIN_VALUE, now)).isEmpty();
        assertThat(check.checkTime(wm - 30_000, wm, now)).isEmpty();
        assertThat(check.checkTime(wm - 30_001, wm, now).orElseThrow()).startsWith("late");
        assertThat(check.checkTime(now + 3_600_000, wm, now)).isEmpty();
        assertThat(check.checkTime(now + 3_600_001, wm, now).orElseThrow()).startsWith("future: event time");
        assertThat(check.checkTime(now + 3_600_001, Long.MIN_VALUE, now).orElseThrow()).startsWith("future: event time");
    }

    @Test
    void streamTimeFarBehindTheClockNeverMakesAnEventTooFarAhead() {
        long farPast = 1_000_000;
        long now = farPast + 5L * 365 * 86_400_000;
        assertThat(check.checkTime(now, farPast, now)).isEmpty();
    }
}
