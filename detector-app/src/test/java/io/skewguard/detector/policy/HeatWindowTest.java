package io.skewguard.detector.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class HeatWindowTest {

    private static long[][] sum(HeatWindow w, long end) {
        long[] nodes = new long[w.nodeCount()];
        long[] slots = new long[w.slotCount()];
        w.sum(end, nodes, slots);
        return new long[][] {nodes, slots};
    }

    @Test
    void windowSumsExactlyTheLastWindowBuckets() {
        HeatWindow w = new HeatWindow(3, 6, 0);
        for (long b = 0; b < 6; b++) {
            w.addNode(b, 0, 1L << b);
            w.addSlot(b, 2, 10 * (b + 1));
        }
        long[][] s = sum(w, 5); // buckets 2, 3, 4
        assertThat(s[0]).containsExactly(4 + 8 + 16);
        assertThat(s[1]).containsExactly(0, 0, 30 + 40 + 50);
    }

    @Test
    void slidingForgetsOldBucketsAndReusesTheirPositions() {
        HeatWindow w = new HeatWindow(2, 3, 0);
        w.addNode(0, 0, 100);
        w.addNode(1, 0, 10);
        w.slideTo(1);
        assertThat(w.fits(0)).isFalse();
        assertThat(w.fits(3)).isTrue();
        w.addNode(3, 0, 1); // takes bucket 0's position: its 100 must not survive
        assertThat(sum(w, 4)[0]).containsExactly(1);
        assertThat(sum(w, 2)[0]).containsExactly(10);
    }

    @Test
    void bucketsOutsideTheRingAreRefused() {
        HeatWindow w = new HeatWindow(2, 3, 10);
        assertThat(w.fits(9)).isFalse();
        assertThat(w.fits(13)).isFalse();
        assertThatThrownBy(() -> w.addNode(13, 0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void newNodesAndSlotsGrowTheArrays() {
        HeatWindow w = new HeatWindow(1, 2, 0);
        w.addNode(0, 40, 7);
        w.addSlot(0, 4095, 9);
        assertThat(w.nodeCount()).isEqualTo(41);
        assertThat(w.slotCount()).isEqualTo(4096);
        long[][] s = sum(w, 1);
        assertThat(s[0][40]).isEqualTo(7);
        assertThat(s[1][4095]).isEqualTo(9);
    }

    @Test
    void slideNeverMovesBackwards() {
        HeatWindow w = new HeatWindow(1, 2, 5);
        w.slideTo(3);
        assertThat(w.firstBucket()).isEqualTo(5);
    }

    @Test
    void nextHeldBucketIsTheOldestBucketWithHeatFromAGivenOneOnAndIgnoresBucketsSlidOut() {
        HeatWindow w = new HeatWindow(2, 5, 0);
        assertThat(w.nextHeldBucket(0)).isEqualTo(Long.MAX_VALUE);
        w.addNode(1, 0, 3);
        w.addSlot(4, 0, 2);
        assertThat(w.nextHeldBucket(0)).isEqualTo(1);
        assertThat(w.nextHeldBucket(2)).isEqualTo(4);
        assertThat(w.nextHeldBucket(5)).isEqualTo(Long.MAX_VALUE);
        w.slideTo(2); // bucket 1 slides out; its position is not reused yet
        assertThat(w.nextHeldBucket(0)).isEqualTo(4);
    }
}
