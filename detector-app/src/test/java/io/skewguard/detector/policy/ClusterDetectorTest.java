package io.skewguard.detector.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.SkewReport;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClusterDetectorTest {

    private static final long T = 10_000;
    private final DetectionParameters p =
            new DetectionParameters(T, 60_000, 30_000, 300_000, 0.40, 0.25, 0.10, 600_000, 10);

    private static BucketHeat heat(long bucket, String node, int slot, long bytes) {
        return new BucketHeat(bucket, new String[] {node}, new long[] {bytes}, new int[] {slot}, new long[] {bytes});
    }

    private static List<SkewReport> reports(ClusterDetector.Result r) {
        return r.ticks().stream().map(ClusterDetector.Tick::report).toList();
    }

    @Test
    void aTickIsComputedOnceStreamTimeReachesTickPlusGrace() {
        ClusterDetector d = new ClusterDetector("c1", p);
        assertThat(d.apply(List.of(heat(0, "n1", 0, 5)), List.of(), 1_000).ticks()).isEmpty();
        assertThat(d.apply(List.of(), List.of(), T + 29_999).ticks()).isEmpty();
        List<SkewReport> r = reports(d.apply(List.of(), List.of(), T + 30_000));
        assertThat(r).extracting(x -> x.getWindowEnd().toEpochMilli()).containsExactly(T);
        assertThat(r.get(0).getWindowStart().toEpochMilli()).isEqualTo(T - 60_000);
        assertThat(r.get(0).getTotalWriteBytes()).isEqualTo(5);
    }

    @Test
    void lateHeatWithinGraceIsCountedInTheWindowsThatCoverIt() {
        ClusterDetector d = new ClusterDetector("c1", p);
        d.apply(List.of(heat(0, "n1", 0, 5)), List.of(), 1_000);
        d.apply(List.of(heat(3, "n1", 0, 1)), List.of(), 3 * T);
        // an event of bucket 0 arriving after stream time moved on, still within grace
        d.apply(List.of(heat(0, "n2", 1, 7)), List.of(), 3 * T);
        List<SkewReport> r = reports(d.apply(List.of(), List.of(), 4 * T + 30_000));
        assertThat(r).extracting(x -> x.getWindowEnd().toEpochMilli()).containsExactly(T, 2 * T, 3 * T, 4 * T);
        assertThat(r.get(0).getTotalWriteBytes()).isEqualTo(12);
        assertThat(r.get(3).getTotalWriteBytes()).isEqualTo(13);
    }

    @Test
    void heatOlderThanTheWindowStillHeldIsDropped() {
        ClusterDetector d = new ClusterDetector("c1", p);
        d.apply(List.of(heat(100, "n1", 0, 5)), List.of(), 100 * T);
        d.apply(List.of(), List.of(), 110 * T);
        ClusterDetector.Result r = d.apply(List.of(heat(90, "n1", 0, 5)), List.of(), 110 * T);
        assertThat(r.droppedBuckets()).isEqualTo(1);
        assertThat(r.accepted()).isEmpty();
    }

    @Test
    void nodesWithExpiredCapacityAndNoHeatAreForgotten() {
        ClusterDetector d = new ClusterDetector("c1", p);
        NodeCapacity old = new NodeCapacity("gone", 1, 10, null, new int[0], new long[0], 0);
        NodeCapacity fresh = new NodeCapacity("n1", 1, 10, "r1", new int[0], new long[0], 0);
        d.apply(List.of(), List.of(old, fresh), 0);
        List<SkewReport> r = reports(d.apply(List.of(),
                List.of(new NodeCapacity("n1", 1, 10, "r1", new int[0], new long[0], 700_000)), 700_000));
        SkewReport last = r.get(r.size() - 1);
        assertThat(last.getNodes()).extracting(n -> n.getNode()).containsExactly("n1");
        assertThat(r.get(0).getNodeCount()).isEqualTo(2);
    }

    @Test
    void aForgottenNodeLeavesTheDetectorsStateAndItsIndexIsReusedWithoutChangingAnyReport() {
        ClusterDetector d = new ClusterDetector("c1", p);
        d.apply(List.of(heat(0, "gone", 0, 50), heat(0, "n1", 1, 5)),
                List.of(new NodeCapacity("gone", 1, 10, null, new int[0], new long[0], 0)), 0);
        assertThat(d.nodesHeld()).isEqualTo(2);
        ClusterDetector.Result r = d.apply(List.of(heat(70, "n1", 1, 5)), List.of(), 70 * T);
        assertThat(r.forgotten()).containsExactly("gone"); // capacity 700 s old, heat out of the window
        assertThat(d.nodesHeld()).isEqualTo(1);

        ClusterDetector.Result next = d.apply(List.of(heat(72, "new", 2, 40), heat(72, "n1", 1, 5)), List.of(), 76 * T);
        SkewReport last = reports(next).get(reports(next).size() - 1);
        assertThat(last.getNodes()).extracting(n -> n.getNode()).containsExactly("n1", "new");
        assertThat(last.getNodes()).extracting(n -> n.getHeatBytes()).containsExactly(10L, 40L);
        assertThat(d.nodesHeld()).isEqualTo(2);
    }

    @Test
    void aLongGapComputesTheDrainingAndTheResumingTicksAndSkipsTheRest() {
        ClusterDetector d = new ClusterDetector("c1", p);
        d.apply(List.of(heat(0, "n1", 0, 5)), List.of(), 0);
        ClusterDetector.Result r = d.apply(List.of(heat(1000, "n1", 0, 5)), List.of(), 1000 * T + 30_000);
        // 1000 ticks due (T .. 1000T): 7 draining + 7 resuming
        assertThat(r.ticks()).hasSize(14);
        assertThat(r.skippedTicks()).isEqualTo(1000 - 14);
        assertThat(reports(r).get(13).getWindowEnd().toEpochMilli()).isEqualTo(1000 * T);
        assertThat(r.accepted()).hasSize(1); // the ahead bucket 1000 is kept for later ticks
    }

    /**
     * Grace longer than the window: heat up to grace ahead of the next tick lies beyond the ticks
     * that drain the window, so a long jump must still compute the ticks covering it.
     */
    @Test
    void aLongGapNeverSkipsATickWhoseWindowStillHoldsHeat() {
        DetectionParameters windowIsTick = new DetectionParameters(T, T, 30_000, 300_000, 0.40, 0.25, 0.10, 600_000, 10);
        ClusterDetector d = new ClusterDetector("c1", windowIsTick);
        List<SkewReport> out = new ArrayList<>();
        out.addAll(reports(d.apply(List.of(heat(0, "n1", 0, 5)), List.of(), 0)));
        out.addAll(reports(d.apply(List.of(heat(3, "n1", 0, 7)), List.of(), 4 * T - 1)));
        ClusterDetector.Result jump = d.apply(List.of(heat(1000, "n1", 0, 11)), List.of(), 1000 * T + 30_000);
        out.addAll(reports(jump));
        out.addAll(reports(d.apply(List.of(), List.of(), 1002 * T + 30_000)));

        // window = tick: every byte is in exactly one report
        assertThat(out.stream().mapToLong(SkewReport::getTotalWriteBytes).sum()).isEqualTo(5 + 7 + 11);
        assertThat(out).filteredOn(x -> x.getWindowEnd().toEpochMilli() == 4 * T).singleElement()
                .satisfies(x -> assertThat(x.getTotalWriteBytes()).isEqualTo(7));
        assertThat(jump.skippedTicks()).isPositive();
        assertThat(jump.ticks().size() + jump.skippedTicks()).isEqualTo(1000); // ticks T .. 1000T, each computed or skipped
    }

    /**
     * With the defaults (window 60 s, grace 30 s) heat within grace ahead of the next tick is in
     * every one of its six windows, though the last two come after the old window has drained.
     */
    @Test
    void aLongGapReportsHeatWithinGraceAheadInEveryWindowThatCoversIt() {
        ClusterDetector d = new ClusterDetector("c1", p);
        d.apply(List.of(heat(0, "n1", 0, 5)), List.of(), 0);
        d.apply(List.of(heat(3, "n1", 0, 7)), List.of(), 4 * T - 1);
        ClusterDetector.Result jump = d.apply(List.of(), List.of(), 1000 * T + 30_000);

        assertThat(reports(jump)).filteredOn(x -> x.getTotalWriteBytes() == 7)
                .extracting(x -> x.getWindowEnd().toEpochMilli() / T).containsExactly(7L, 8L, 9L);
        assertThat(reports(jump).stream().mapToLong(SkewReport::getTotalWriteBytes).sum()).isEqualTo(6 * (5 + 7));
    }

    @Test
    void restoredDetectorContinuesWhereItStood() {
        ClusterDetector d = new ClusterDetector("c1", p);
        d.apply(List.of(heat(0, "n1", 0, 5)), List.of(), 0);
        d.apply(List.of(heat(4, "n2", 1, 900)), List.of(), 4 * T);

        ClusterDetector r = new ClusterDetector("c1", p, d.progress());
        assertThat(r.restore(heat(0, "n1", 0, 5))).isTrue();
        assertThat(r.restore(heat(4, "n2", 1, 900))).isTrue();

        SkewReport a = reports(d.apply(List.of(), List.of(), 8 * T)).get(0);
        SkewReport b = reports(r.apply(List.of(), List.of(), 8 * T)).get(0);
        assertThat(b).isEqualTo(a);
        assertThat(r.heatState()).isEqualTo(d.heatState()).isEqualTo(AlertState.OBSERVING);
    }
}
