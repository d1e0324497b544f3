package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.detector.policy.BucketHeat;
import io.skewguard.detector.policy.ClusterDetector;
import io.skewguard.detector.policy.NodeCapacity;
import io.skewguard.detector.replay.DetectorHarness;
import io.skewguard.detector.stream.ClusterProcessor;
import io.skewguard.detector.stream.PartialHeat;
import io.skewguard.detector.stream.StateCodec;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.TestClock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The event-time bounds (docs/detector.md, "Event time"): no single event, however far ahead of or
 * behind the others, makes the ordinary events after it late or too far ahead. Window = tick, so
 * the reports' heat adds up to every byte counted exactly once.
 */
class EventTimeTest {

    private static final long T0 = 1_700_000_000_000L; // a tick boundary
    private static final long SECOND = 1_000;
    private static final long YEAR = 365L * 86_400_000L;
    private static final int ORDINARY = 960;

    /** This process's clock, moved by the test: it runs with the ordinary events, as in production. */
    private final TestClock clock = new TestClock(T0);

    private DetectorHarness harness() {
        return new DetectorHarness(DetectorSettings.defaultSettings().with(Map.of(DetectorSettings.WINDOW, "10s")), clock);
    }

    /**
     * 960 one-byte writes, one a second from T0, each read half a second after it happened; then
     * stream time moved on by a tick and grace, so that every tick holding them closes.
     */
    private void ordinaryEvents(DetectorHarness h) {
        for (int i = 0; i < ORDINARY; i++) {
            clock.set(T0 + i * SECOND + 500);
            h.write("c1", "n" + (i % 3), i % 16, 1, 1, T0 + i * SECOND);
        }
        // a tick at a time: a jump of more than 2 × (window/tick + 1) ticks would skip ticks (the gap rule)
        for (long t = T0 + (ORDINARY + 10) * SECOND; t <= T0 + (ORDINARY + 40) * SECOND; t += 10 * SECOND) {
            clock.set(t);
            h.advanceTo("c1", t);
        }
    }

    private static long heatCountedFromT0(DetectorHarness h) {
        return h.reports("c1").stream().filter(r -> r.getWindowStart().toEpochMilli() >= T0)
                .mapToLong(SkewReport::getTotalWriteBytes).sum();
    }

    private static String reportsOf(DetectorHarness h) {
        StringBuilder b = new StringBuilder();
        h.reports("c1").forEach(r -> b.append(r.getWindowEnd().toEpochMilli() - T0).append('=').append(r.getTotalWriteBytes()).append(' '));
        return b.toString();
    }

    @Test
    void aFirstEventTenYearsAheadIsDeadLetteredAsFutureAndTheOrdinaryEventsAfterItAllCount() {
        try (DetectorHarness h = harness()) {
            h.write("c1", "n0", 0, 1_000_000, 1, T0 + 10 * YEAR);
            ordinaryEvents(h);

            assertThat(h.deadLetters()).singleElement().satisfies(d -> assertThat(d.letter().reason())
                    .startsWith("future: event time 2033-").contains("ahead of this process's clock")
                    .contains("max-future-skew 1h"));
            assertThat(heatCountedFromT0(h)).as(reportsOf(h)).isEqualTo(ORDINARY);
        }
    }

    @Test
    void aFirstEventFiveYearsInThePastSetsNoFloorForTheOrdinaryEventsAfterIt() {
        try (DetectorHarness h = harness()) {
            h.write("c1", "n0", 0, 1_000_000, 1, T0 - 5 * YEAR);
            ordinaryEvents(h);

            assertThat(h.deadLetters()).isEmpty();
            assertThat(heatCountedFromT0(h)).as(reportsOf(h)).isEqualTo(ORDINARY);
        }
    }

    @Test
    void anEventAheadOfTheClockWithinTheSkewCountsAsReadAtTheClockAndMakesNothingLate() {
        try (DetectorHarness h = harness()) {
            h.write("c1", "n0", 0, 1, 1, T0 - 60 * SECOND);
            h.write("c1", "n0", 0, 1_000, 1, T0 + 30 * 60 * SECOND); // a reporter whose clock is 30 min fast
            ordinaryEvents(h);

            // stream time stopped at the clock: not one ordinary event late, each counted in its own tick
            assertThat(h.deadLetters()).isEmpty();
            assertThat(heatCountedFromT0(h)).as(reportsOf(h)).isEqualTo(ORDINARY + 1_000); // its 1000 bytes in the clock's first tick
        }
    }

    /**
     * Grace (30 s) longer than the window (10 s): a write 39 s after the first still lies ahead of
     * the ticks that drain the first one's window when stream time then jumps by hours; its tick
     * must be reported, not skipped as empty.
     */
    @Test
    void aJumpOfHoursSkipsNoTickThatStillHoldsHeat() {
        try (DetectorHarness h = harness()) {
            clock.set(T0 + 500);
            h.write("c1", "n0", 0, 1, 1, T0);
            clock.set(T0 + 39 * SECOND + 500);
            h.write("c1", "n1", 1, 1, 1, T0 + 39 * SECOND);
            long later = T0 + 10_000 * 10 * SECOND;
            clock.set(later);
            h.advanceTo("c1", later);

            assertThat(h.deadLetters()).isEmpty();
            assertThat(h.metric("ticks-skipped-total")).isPositive();
            assertThat(heatCountedFromT0(h)).as(reportsOf(h)).isEqualTo(2);
        }
    }

    /**
     * Stage two's stored progress from before the bound existed, stream time ten years ahead of the
     * clock (one far-future event was enough), made the cluster blind for good: every later partial's
     * heat was older than the window. Now the cluster starts afresh.
     */
    @Test
    void storedStreamTimeFarAheadOfTheClockStartsTheClusterAfresh(@TempDir java.nio.file.Path dir) {
        DetectorSettings settings = DetectorSettings.defaultSettings().with(Map.of(
                DetectorSettings.WINDOW, "10s", DetectorSettings.SCHEMA_REGISTRY_URL, "mock://event-time-stored"));
        Properties props = settings.streamsProperties();
        props.put(StreamsConfig.STATE_DIR_CONFIG, dir.toString());
        try (TopologyTestDriver driver = new TopologyTestDriver(DetectorTopology.build(settings), props, Instant.ofEpochMilli(T0 + 1_000 * SECOND));
                var reports = SchemaRegistrySerde.of(SkewReport.class, settings.serdeConfig(), false)) {
            long future = T0 + 10 * YEAR;
            KeyValueStore<String, byte[]> progress = driver.getKeyValueStore(ClusterProcessor.PROGRESS_STORE);
            progress.put("c1", StateCodec.encode(new ClusterDetector.Progress(future, future / 10_000 * 10_000,
                    AlertState.NORMAL, Long.MIN_VALUE, AlertState.NORMAL, Long.MIN_VALUE)));
            KeyValueStore<String, byte[]> capacity = driver.getKeyValueStore(ClusterProcessor.CAPACITY_STORE);
            capacity.put("c1\u0000n1", StateCodec.encode(new NodeCapacity("n1", 1, 10, null, new int[0], new long[0], future)));
            TestInputTopic<String, PartialHeat> partials = driver.createInputTopic(settings.partialsTopic(),
                    new StringSerializer(), StateCodec.partialSerde().serializer());
            for (long t = T0; t < T0 + 60 * SECOND; t += 10 * SECOND) {
                BucketHeat heat = new BucketHeat(t / 10_000, new String[] {"n1"}, new long[] {7}, new int[] {1}, new long[] {7});
                partials.pipeInput("c1", new PartialHeat("c1", t, List.of(heat), List.of()), t);
            }

            List<SkewReport> out = driver.createOutputTopic(settings.topics().reports(), new StringDeserializer(),
                    reports.deserializer()).readValuesToList();
            assertThat(out).isNotEmpty().allSatisfy(r -> assertThat(r.getWindowEnd().toEpochMilli()).isLessThan(T0 + 1_000 * SECOND));
            assertThat(out.stream().mapToLong(SkewReport::getTotalWriteBytes).sum()).isGreaterThan(0);
            assertThat(capacity.get("c1\u0000n1")).isNull();
        }
    }
}
