package io.skewguard.detector.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The ingest loop takes a partition's records in runs (one scan of the partitions' heads, then
 * records of that partition while {@link IngestLoop#pickedAgain} holds). The order must be the
 * order of a scan per record: the oldest head first, ties to the earlier partition.
 */
class IngestLoopOrderProperties {

    @Property(tries = 300)
    void runsTakeRecordsInTheOrderOfAScanPerRecord(@ForAll @IntRange(min = 1, max = 8) int lanes,
            @ForAll @IntRange(min = 0, max = 60) int perLane, @ForAll @IntRange(min = 1, max = 6) int spread,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed) {
        Random random = new Random(seed);
        List<long[]> input = new ArrayList<>();
        for (int l = 0; l < lanes; l++) {
            // few distinct timestamps, so that heads are often equal; each lane in its own order
            long[] ts = new long[random.nextInt(perLane + 1)];
            long t = random.nextInt(spread);
            for (int i = 0; i < ts.length; i++) {
                t += random.nextInt(spread) == 0 ? 1 : 0;
                ts[i] = random.nextInt(10) == 0 ? t - random.nextInt(spread) : t; // now and then an older one
            }
            input.add(ts);
        }
        assertThat(inRuns(queues(input))).isEqualTo(perRecord(queues(input)));
    }

    @Property(tries = 50)
    void aRunStopsAtAnEqualHeadOfAnEarlierPartitionAndGoesOnPastOneOfALaterPartition(
            @ForAll @LongRange(min = -1000, max = 1000) long t) {
        assertThat(IngestLoop.pickedAgain(t, 1, t, 0)).isFalse();
        assertThat(IngestLoop.pickedAgain(t, 0, t, 1)).isTrue();
        assertThat(IngestLoop.pickedAgain(t - 1, 3, t, 0)).isTrue();
        assertThat(IngestLoop.pickedAgain(t + 1, 0, t, 3)).isFalse();
    }

    private static List<ArrayDeque<long[]>> queues(List<long[]> input) {
        List<ArrayDeque<long[]>> qs = new ArrayList<>();
        for (int l = 0; l < input.size(); l++) {
            ArrayDeque<long[]> q = new ArrayDeque<>();
            for (int i = 0; i < input.get(l).length; i++) {
                q.add(new long[] {input.get(l)[i], l, i});
            }
            qs.add(q);
        }
        return qs;
    }

    /** The reference: scan every head for each record; the oldest wins, ties to the earlier lane. */
    private static List<String> perRecord(List<ArrayDeque<long[]>> qs) {
        List<String> order = new ArrayList<>();
        while (true) {
            int next = -1;
            for (int l = 0; l < qs.size(); l++) {
                if (!qs.get(l).isEmpty() && (next < 0 || qs.get(l).peekFirst()[0] < qs.get(next).peekFirst()[0])) {
                    next = l;
                }
            }
            if (next < 0) {
                return order;
            }
            order.add(name(qs.get(next).pollFirst()));
        }
    }

    /** The loop's way: one scan, then a run of the picked lane while pickedAgain holds. */
    private static List<String> inRuns(List<ArrayDeque<long[]>> qs) {
        List<String> order = new ArrayList<>();
        while (true) {
            int next = -1;
            long oldest = Long.MAX_VALUE;
            long second = Long.MAX_VALUE;
            int secondLane = -1;
            for (int l = 0; l < qs.size(); l++) {
                if (qs.get(l).isEmpty()) {
                    continue;
                }
                long head = qs.get(l).peekFirst()[0];
                if (head < oldest) {
                    second = oldest;
                    secondLane = next;
                    oldest = head;
                    next = l;
                } else if (head < second) {
                    second = head;
                    secondLane = l;
                }
            }
            if (next < 0) {
                return order;
            }
            ArrayDeque<long[]> q = qs.get(next);
            do {
                order.add(name(q.pollFirst()));
            } while (!q.isEmpty() && IngestLoop.pickedAgain(q.peekFirst()[0], next, second, secondLane));
        }
    }

    private static String name(long[] r) {
        return r[1] + ":" + r[2] + "@" + r[0];
    }
}
