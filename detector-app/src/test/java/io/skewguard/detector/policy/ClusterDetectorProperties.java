package io.skewguard.detector.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.SkewReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * No heat is lost to the gap rule: whatever the window, grace and tick, and however stream time
 * moves (small steps, jumps of thousands of ticks, partials of lagging ingest tasks), every tick
 * whose window holds heat is reported exactly once with all of that heat, every tick is either
 * reported or counted as skipped, and the reports add up to window/tick times the heat fed in.
 *
 * <p>Heat is fed the way stage one hands it on: each batch's buckets lie between the cluster's
 * stream time minus grace and the batch's own highest event time, in any order, or anywhere from
 * the newest tick reported on. (Heat older than the window is dropped and counted, and heat older
 * than a cluster's first event misses the ticks before its first one: rules of their own, so the
 * batches here hold none.)
 */
class ClusterDetectorProperties {

    private static final String[] NODES = {"n0", "n1", "n2"};

    @Property(tries = 300)
    void everyTickHoldingHeatIsReportedOnceWithAllOfItsHeat(
            @ForAll @IntRange(min = 1, max = 5) int tickSeconds,
            @ForAll @IntRange(min = 1, max = 6) int windowTicks,
            @ForAll @LongRange(min = 0, max = 90_000) long graceMs,
            @ForAll @IntRange(min = 1, max = 30) int batches,
            @ForAll long seed) {
        long tick = tickSeconds * 1_000L;
        DetectionParameters p = new DetectionParameters(tick, windowTicks * tick, graceMs, 300_000,
                0.40, 0.25, 0.10, 600_000, 4);
        Random random = new Random(seed);
        ClusterDetector d = new ClusterDetector("c1", p);
        TreeMap<Long, Long> fed = new TreeMap<>(); // heat per bucket
        List<SkewReport> reports = new ArrayList<>();
        long skipped = 0;
        long streamTime = 1_700_000_000_000L + random.nextInt(1_000_000);
        long firstTick = Long.MIN_VALUE;

        for (int i = 0; i <= batches; i++) {
            boolean last = i == batches;
            long maxEventTime = i == 0 ? streamTime
                    : last
                    // far enough for every tick covering the newest heat to close
                    ? (fed.lastKey() + windowTicks + 1) * tick + graceMs + random.nextInt((int) tick)
                    : nextEventTime(random, streamTime, tick, windowTicks, graceMs);
            List<BucketHeat> heat = new ArrayList<>();
            if (!last) {
                // what stage one accepts: no older than stream time minus grace
                long from = Math.floorDiv(Math.max(streamTime, maxEventTime) - graceMs, tick);
                if (i == 0) {
                    firstTick = Math.floorDiv(maxEventTime, tick) + 1;
                } else if (random.nextInt(4) == 0) {
                    // or anything no tick has reported yet (the tick before the next one is due)
                    from = d.firstBucket() + windowTicks - 1;
                } else {
                    // heat before the first event's bucket has ticks before the cluster's first tick,
                    // which is never computed (a rule of its own): none here
                    from = Math.max(from, firstTick - 1);
                }
                long to = Math.floorDiv(maxEventTime, tick);
                for (int k = random.nextInt(4); k > 0 && from <= to; k--) {
                    long bucket = from + (long) random.nextInt((int) Math.min(to - from + 1, Integer.MAX_VALUE));
                    long bytes = 1 + random.nextInt(1_000);
                    String node = NODES[random.nextInt(NODES.length)];
                    heat.add(new BucketHeat(bucket, new String[] {node}, new long[] {bytes},
                            new int[] {random.nextInt(8)}, new long[] {bytes}));
                    fed.merge(bucket, bytes, Long::sum);
                    if (i == 0) {
                        firstTick = Math.min(firstTick, bucket + 1);
                    }
                }
                if (i == 0 && heat.isEmpty()) {
                    long bucket = Math.floorDiv(maxEventTime, tick);
                    heat.add(new BucketHeat(bucket, new String[] {"n0"}, new long[] {1}, new int[] {0}, new long[] {1}));
                    fed.merge(bucket, 1L, Long::sum);
                }
            }
            ClusterDetector.Result r = d.apply(heat, List.of(), maxEventTime);
            assertThat(r.droppedBuckets()).as("heat dropped in batch %d", i).isZero();
            assertThat(r.accepted()).hasSameSizeAs(heat);
            r.ticks().forEach(t -> reports.add(t.report()));
            skipped += r.skippedTicks();
            streamTime = Math.max(streamTime, maxEventTime);
        }

        long lastTick = Math.floorDiv(streamTime - graceMs, tick);
        List<Long> ends = reports.stream().map(x -> x.getWindowEnd().toEpochMilli() / tick).toList();
        assertThat(ends).as("window ends strictly increasing").isSorted().doesNotHaveDuplicates();
        assertThat(ends.get(0)).isEqualTo(firstTick);
        assertThat(ends.get(ends.size() - 1)).isEqualTo(lastTick);
        assertThat(reports.size() + skipped).as("every tick reported or counted as skipped")
                .isEqualTo(lastTick - firstTick + 1);

        TreeMap<Long, SkewReport> byEnd = new TreeMap<>();
        reports.forEach(x -> byEnd.put(x.getWindowEnd().toEpochMilli() / tick, x));
        for (long end = firstTick; end <= lastTick; end++) {
            long expected = fed.subMap(end - windowTicks, end).values().stream().mapToLong(Long::longValue).sum();
            SkewReport report = byEnd.get(end);
            if (report != null) {
                assertThat(report.getTotalWriteBytes()).as("heat of tick %d", end).isEqualTo(expected);
            } else {
                assertThat(expected).as("heat of skipped tick %d", end).isZero();
            }
        }
        long total = reports.stream().mapToLong(SkewReport::getTotalWriteBytes).sum();
        long fedTotal = fed.values().stream().mapToLong(Long::longValue).sum();
        assertThat(total).as("heat reported across windows").isEqualTo(windowTicks * fedTotal);
    }

    /** Mostly small steps, sometimes a lagging partial, sometimes a jump of up to thousands of ticks. */
    private static long nextEventTime(Random random, long streamTime, long tick, int windowTicks, long graceMs) {
        return switch (random.nextInt(6)) {
            case 0 -> streamTime - random.nextInt((int) graceMs + 1);
            case 1 -> streamTime + (2L * (windowTicks + 1) + 1 + random.nextInt(3_000)) * tick + random.nextInt((int) tick);
            default -> streamTime + random.nextInt((int) (3 * tick));
        };
    }
}
