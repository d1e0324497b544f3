package io.skewguard.detector;

import static io.skewguard.schemas.AlertState.CLEARED;
import static io.skewguard.schemas.AlertState.CONFIRMED;
import static io.skewguard.schemas.AlertState.NORMAL;
import static io.skewguard.schemas.AlertState.OBSERVING;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.skewguard.detector.replay.DetectorHarness;
import io.skewguard.detector.replay.DetectorHarness.DeadLetterRecord;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.WriteEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The detector topology end to end through TopologyTestDriver, with the defaults of docs/design.md. */
class DetectorTopologyTest {

    private static final long T0 = 1_700_000_000_000L; // a tick boundary
    private static final long TICK = 10_000;
    private static final long GRACE = 30_000;
    private static final long COOLDOWN = 300_000;

    private final DetectorHarness h = new DetectorHarness(DetectorSettings.defaultSettings());

    @AfterEach
    void close() {
        h.close();
    }

    /** Capacity reports for nodes n1..nk, half full. */
    private void capacities(String cluster, long time, long... totals) {
        for (int i = 0; i < totals.length; i++) {
            h.capacity(cluster, "n" + (i + 1), totals[i] / 2, totals[i], "r" + (i % 2), time);
        }
    }

    /** One write per node n1..nk during the tick starting at {@code tickStart}, to slot i. */
    private void heat(String cluster, long tickStart, long... bytes) {
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] > 0) {
                h.write(cluster, "n" + (i + 1), i, bytes[i], 1, tickStart + 1_000);
            }
        }
    }

    /** The same heat pattern for {@code ticks} ticks from {@code fromTick}; returns the next tick. */
    private long heatFor(String cluster, long fromTick, int ticks, long... bytes) {
        for (int t = 0; t < ticks; t++) {
            heat(cluster, fromTick + t * TICK, bytes);
        }
        return fromTick + ticks * TICK;
    }

    private SkewReport reportAt(String cluster, long windowEnd) {
        return h.reports(cluster).stream().filter(r -> r.getWindowEnd().toEpochMilli() == windowEnd)
                .findFirst().orElseThrow(() -> new AssertionError("no report at " + windowEnd));
    }

    private List<SkewAlert> alerts(AlertKind kind) {
        return h.alerts().stream().filter(a -> a.getKind() == kind).toList();
    }

    /** Fast mode's stage two: the same reports and alerts, no changelog written. */
    @Test
    void withoutChangelogsTheReportsAndAlertsAreTheSameAndNoChangelogIsWritten() {
        try (DetectorHarness unlogged = new DetectorHarness(DetectorSettings.defaultSettings(), java.time.Clock.systemUTC(), false)) {
            for (DetectorHarness d : List.of(h, unlogged)) {
                for (int i = 1; i <= 4; i++) {
                    d.capacity("c1", "n" + i, i * 200L, 1000, "r" + (i % 2), T0);
                }
                for (int t = 0; t < 40; t++) {
                    for (int i = 1; i <= 4; i++) {
                        d.write("c1", "n" + i, i, i == 4 ? 5_000 : 100, 1, T0 + t * TICK + 1_000);
                    }
                }
                d.advanceTo("c1", T0 + 40 * TICK + GRACE);
            }
            assertThat(h.reports()).as("reports").isNotEmpty().isEqualTo(unlogged.reports());
            assertThat(h.alerts()).as("alerts").isNotEmpty().isEqualTo(unlogged.alerts());
            assertThat(h.producedTopicNames()).anyMatch(t -> t.endsWith("-changelog"));
            assertThat(unlogged.producedTopicNames()).noneMatch(t -> t.endsWith("-changelog"));
        }
    }

    @Test
    void constructedHeatGivesItsKnownGini() {
        capacities("c1", T0, 1000, 1000, 1000, 1000);
        heat("c1", T0, 100, 200, 300, 400); // Gini of 1,2,3,4 = 2*30/(4*10) - 5/4 = 0.25
        h.advanceTo("c1", T0 + TICK + GRACE);

        SkewReport r = reportAt("c1", T0 + TICK);
        assertThat(r.getHeatGini()).isCloseTo(0.25, within(1e-9));
        assertThat(r.getWindowStart().toEpochMilli()).isEqualTo(T0 + TICK - 60_000);
        assertThat(r.getNodeCount()).isEqualTo(4);
        assertThat(r.getTotalWriteBytes()).isEqualTo(1000);
        assertThat(r.getNodes()).extracting(NodeFigures::getNode, NodeFigures::getHeatBytes, NodeFigures::getUtilisation)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("n1", 100L, 0.5),
                        org.assertj.core.groups.Tuple.tuple("n2", 200L, 0.5),
                        org.assertj.core.groups.Tuple.tuple("n3", 300L, 0.5),
                        org.assertj.core.groups.Tuple.tuple("n4", 400L, 0.5));
        assertThat(r.getHottestSlots()).extracting(s -> s.getSlot()).containsExactly(3, 2, 1, 0);
        assertThat(r.getSlotHeat()).containsExactly(100L, 200L, 300L, 400L);
        assertThat(r.getCapacityCv()).isCloseTo(0.0, within(1e-12));
        assertThat(r.getHeatState()).isEqualTo(NORMAL);
    }

    @Test
    void sendingABatchGivesTheSameReportsAndAlertsAsSendingEventByEvent() {
        List<org.apache.avro.specific.SpecificRecord> batch = new java.util.ArrayList<>();
        long[] bytes = {100, 100, 100, 2000};
        for (int t = 0; t < 40; t++) {
            long tick = T0 + t * TICK;
            for (int i = 0; i < bytes.length; i++) {
                batch.add(new io.skewguard.schemas.WriteEvent("c1", "n" + (i + 1), i, bytes[i], 1L,
                        java.time.Instant.ofEpochMilli(tick + 1_000)));
                batch.add(new io.skewguard.schemas.CapacityEvent("c1", "n" + (i + 1), 500L, 1000L, "r" + (i % 2),
                        List.of(), java.time.Instant.ofEpochMilli(tick + 2_000)));
            }
        }
        batch.add(new io.skewguard.schemas.WriteEvent("c1", DetectorHarness.CLOCK_NODE, 0, 0L, 0L,
                java.time.Instant.ofEpochMilli(T0 + 40 * TICK + GRACE)));
        for (var e : batch) {
            if (e instanceof io.skewguard.schemas.WriteEvent w) {
                h.send(w);
            } else {
                h.send((io.skewguard.schemas.CapacityEvent) e);
            }
        }
        try (DetectorHarness batched = new DetectorHarness(DetectorSettings.defaultSettings())) {
            batched.sendAll(batch);
            assertThat(batched.reports()).hasSize(h.reports().size()).isNotEmpty();
            for (int i = 0; i < h.reports().size(); i++) {
                SkewReport a = h.reports().get(i);
                SkewReport b = batched.reports().get(i);
                assertThat(b.getWindowEnd()).isEqualTo(a.getWindowEnd());
                assertThat(b.getHeatGini()).isEqualTo(a.getHeatGini());
                assertThat(b.getSlotHeat()).isEqualTo(a.getSlotHeat());
                assertThat(b.getHeatState()).isEqualTo(a.getHeatState());
            }
            assertThat(batched.alerts()).extracting(SkewAlert::getKind, SkewAlert::getState, SkewAlert::getEventTime)
                    .containsExactlyElementsOf(h.alerts().stream()
                            .map(x -> org.assertj.core.groups.Tuple.tuple(x.getKind(), x.getState(), x.getEventTime())).toList());
            assertThat(alerts(AlertKind.HEAT)).extracting(SkewAlert::getState).contains(CONFIRMED);
        }
    }

    /** Stage one sums a node's writes per tick through a holder it keeps per node: it must start afresh each tick. */
    @Test
    void aNodesHeatIsEveryWriteOfEachTickWhenItWritesManyTimesOrSkipsTicksInOneBatch() {
        capacities("c1", T0, 1000, 1000, 1000);
        List<org.apache.avro.specific.SpecificRecord> batch = new java.util.ArrayList<>();
        for (int t = 0; t < 12; t++) {
            long tick = T0 + t * TICK;
            for (int k = 0; k < 3; k++) {
                batch.add(new WriteEvent("c1", "n1", k, 10L, 1L, Instant.ofEpochMilli(tick + 1_000 + k)));
                if (k == 1) {
                    batch.add(new WriteEvent("c1", "n2", 7, 50L, 1L, Instant.ofEpochMilli(tick + 2_000)));
                }
                if (t % 2 == 0 && k > 0) {
                    batch.add(new WriteEvent("c1", "n3", 9, 40L, 1L, Instant.ofEpochMilli(tick + 3_000 + k)));
                }
            }
        }
        batch.add(new WriteEvent("c1", DetectorHarness.CLOCK_NODE, 0, 0L, 0L, Instant.ofEpochMilli(T0 + 12 * TICK + GRACE)));
        h.sendAll(batch);

        SkewReport r = reportAt("c1", T0 + 12 * TICK); // the window's six ticks: 6..11
        assertThat(r.getNodes()).extracting(NodeFigures::getNode, NodeFigures::getHeatBytes).containsExactly(
                org.assertj.core.groups.Tuple.tuple("n1", 6 * 30L),
                org.assertj.core.groups.Tuple.tuple("n2", 6 * 50L),
                org.assertj.core.groups.Tuple.tuple("n3", 3 * 80L)); // ticks 6, 8 and 10
        assertThat(r.getSlotHeat().get(9)).isEqualTo(3 * 80L);
        assertThat(r.getTotalWriteBytes()).isEqualTo(6 * 30L + 6 * 50L + 3 * 80L);
    }

    /** A late write (within grace) of a node that already wrote in a newer tick counts in its own tick. */
    @Test
    void aLateWriteBetweenTwoWritesOfANewerTickCountsInItsOwnTick() {
        capacities("c1", T0, 1000, 1000);
        long tick4 = T0 + 4 * TICK;
        long tick5 = T0 + 5 * TICK;
        h.sendAll(List.of(
                new WriteEvent("c1", "n2", 1, 1L, 1L, Instant.ofEpochMilli(tick4 + 100)),
                new WriteEvent("c1", "n1", 0, 10L, 1L, Instant.ofEpochMilli(tick4 + 1_000)),
                new WriteEvent("c1", "n1", 0, 100L, 1L, Instant.ofEpochMilli(tick5 + 1_000)),
                new WriteEvent("c1", "n1", 0, 7L, 1L, Instant.ofEpochMilli(tick4 + 2_000)), // late, within grace
                new WriteEvent("c1", "n1", 0, 100L, 1L, Instant.ofEpochMilli(tick5 + 2_000)),
                new WriteEvent("c1", DetectorHarness.CLOCK_NODE, 0, 0L, 0L, Instant.ofEpochMilli(T0 + 6 * TICK + GRACE))));
        assertThat(h.deadLetters()).isEmpty();
        assertThat(reportAt("c1", tick5).getNodes()).extracting(NodeFigures::getNode, NodeFigures::getHeatBytes)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("n1", 17L), org.assertj.core.groups.Tuple.tuple("n2", 1L));
        assertThat(reportAt("c1", T0 + 6 * TICK).getNodes()).extracting(NodeFigures::getNode, NodeFigures::getHeatBytes)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("n1", 217L), org.assertj.core.groups.Tuple.tuple("n2", 1L));
    }

    /** Records encoded once (as fast mode hands the same capacity bytes to two apps) give what the records give. */
    @Test
    void encodedRecordsGiveTheSameReportsAsTheRecordsAndARecordOfAnotherTopicIsRefusedWhole() {
        List<org.apache.avro.specific.SpecificRecord> batch = new java.util.ArrayList<>();
        for (int t = 0; t < 20; t++) {
            for (int i = 1; i <= 3; i++) {
                batch.add(new io.skewguard.schemas.CapacityEvent("c1", "n" + i, 100L * i, 1000L, "r" + i,
                        List.of(new ShardUsage(i, 100L * i)), Instant.ofEpochMilli(T0 + t * TICK + 500)));
                batch.add(new WriteEvent("c1", "n" + i, i, i == 3 ? 900L : 100L, 1L, Instant.ofEpochMilli(T0 + t * TICK + 1_000)));
            }
        }
        batch.add(new WriteEvent("c1", DetectorHarness.CLOCK_NODE, 0, 0L, 0L, Instant.ofEpochMilli(T0 + 20 * TICK + GRACE)));
        h.sendAll(batch);
        try (DetectorHarness encoded = new DetectorHarness(DetectorSettings.defaultSettings())) {
            List<DetectorHarness.Encoded> records = new java.util.ArrayList<>();
            for (var e : batch) {
                records.add(e instanceof WriteEvent w ? encoded.encoded(w) : encoded.encoded((io.skewguard.schemas.CapacityEvent) e));
            }
            var stranger = new DetectorHarness.Encoded("skew.reports", records.get(0).key(), records.get(0).value(), T0);
            var withStranger = new java.util.ArrayList<>(records);
            withStranger.add(0, stranger);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> encoded.sendEncoded(withStranger))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("skew.reports");
            assertThat(encoded.reports()).isEmpty(); // nothing of the refused batch was taken

            encoded.sendEncoded(records);
            assertThat(encoded.reports()).isNotEmpty().isEqualTo(h.reports());
            assertThat(encoded.alerts()).isEqualTo(h.alerts());
        }
    }

    @Test
    void withoutHistoryTheOutputsAreStillHandedOnButNotKept() {
        h.withoutHistory();
        capacities("c1", T0, 1000, 1000, 1000, 1000);
        heat("c1", T0, 100, 200, 300, 400);
        h.advanceTo("c1", T0 + TICK + GRACE);
        assertThat(h.takeOutputs()).anySatisfy(o -> assertThat(o).isInstanceOf(DetectorHarness.ReportOutput.class));
        assertThat(h.reports()).isEmpty();
        assertThat(h.takeOutputs()).isEmpty();
    }

    @Test
    void aBatchWithSomethingTheDetectorDoesNotReadIsRefusedWhole() {
        var write = new io.skewguard.schemas.WriteEvent("c1", "n1", 1, 10L, 1L, java.time.Instant.ofEpochMilli(T0));
        var report = new SkewReport();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> h.sendAll(List.of(write, report)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SkewReport");
        h.advanceTo("c1", T0 + TICK + GRACE);
        assertThat(h.reports()).isEmpty(); // the clock write alone: nothing was sent before the refusal
    }

    @Test
    void heterogeneousCapacitiesAreNormalisedByCapacityShare() {
        capacities("c1", T0, 1000, 2000, 4000, 1000);
        heat("c1", T0, 100, 200, 400, 100); // heat proportional to capacity: perfectly fair
        h.advanceTo("c1", T0 + TICK + GRACE);

        SkewReport r = reportAt("c1", T0 + TICK);
        assertThat(r.getHeatGini()).isCloseTo(0.0, within(1e-9));
        // the same heat on equal nodes would be unfair
        assertThat(io.skewguard.core.stats.Gini.of(new double[] {100, 200, 400, 100})).isGreaterThan(0.2);
    }

    @Test
    void idleKnownNodeCountsAsZeroHeat() {
        capacities("c1", T0, 1000, 1000, 1000, 1000);
        heat("c1", T0, 100, 100, 100, 0); // n4 reported capacity but took no writes
        h.advanceTo("c1", T0 + TICK + GRACE);

        SkewReport r = reportAt("c1", T0 + TICK);
        assertThat(r.getNodeCount()).isEqualTo(4);
        assertThat(r.getHeatGini()).isCloseTo(0.25, within(1e-9)); // Gini of 0,1,1,1
        assertThat(r.getNodes().get(3).getHeatBytes()).isZero();
    }

    @Test
    void shardCapacityCvComesFromPerShardUsage() {
        h.capacity("c1", "n1", 400, 1000, null, List.of(new ShardUsage(1, 100L), new ShardUsage(2, 300L)), T0);
        h.advanceTo("c1", T0 + TICK + GRACE);
        assertThat(reportAt("c1", T0 + TICK).getShardCapacityCv()).isCloseTo(0.5, within(1e-12));
    }

    @Test
    void transientSpikeShorterThanCooldownObservesThenReturnsToNormalNeverConfirms() {
        capacities("c1", T0, 1000, 1000, 1000, 1000);
        long t = heatFor("c1", T0, 12, 100, 100, 100, 100);
        t = heatFor("c1", t, 3, 100, 100, 100, 3000); // a 30 s burst on n4
        t = heatFor("c1", t, 45, 100, 100, 100, 100);
        h.advanceTo("c1", t + GRACE);

        assertThat(alerts(AlertKind.HEAT)).extracting(SkewAlert::getState).containsExactly(OBSERVING, NORMAL);
        assertThat(h.reports("c1")).extracting(SkewReport::getHeatState).doesNotContain(CONFIRMED);
        assertThat(h.reports("c1").size()).isGreaterThan(50);
    }

    @Test
    void sustainedSkewConfirmsExactlyAtTheFirstTickAfterTheCooldown() {
        capacities("c1", T0, 1000, 1000, 1000, 1000);
        long t = heatFor("c1", T0, 40, 100, 100, 100, 3000);
        h.advanceTo("c1", t + GRACE);

        List<SkewAlert> heat = alerts(AlertKind.HEAT);
        assertThat(heat).extracting(SkewAlert::getState).containsExactly(OBSERVING, CONFIRMED);
        long since = heat.get(0).getEventTime().toEpochMilli();
        assertThat(since).isEqualTo(T0 + TICK); // the first tick
        assertThat(heat.get(1).getEventTime().toEpochMilli()).isEqualTo(since + COOLDOWN);
        assertThat(heat.get(1).getSince().toEpochMilli()).isEqualTo(since);
        assertThat(heat.get(1).getPreviousState()).isEqualTo(OBSERVING);
        assertThat(heat.get(1).getAlertId()).isEqualTo("c1/HEAT/CONFIRMED/" + (since + COOLDOWN));
        assertThat(reportAt("c1", since + COOLDOWN - TICK).getHeatState()).isEqualTo(OBSERVING);
        assertThat(reportAt("c1", since + COOLDOWN).getHeatState()).isEqualTo(CONFIRMED);
        assertThat(alerts(AlertKind.CAPACITY)).isEmpty();
    }

    @Test
    void hysteresisHoldsConfirmedBetweenClearLevelAndThresholdThenClearsAndReturnsToNormal() {
        capacities("c1", T0, 1000, 1000, 1000, 1000);
        long confirmed = heatFor("c1", T0, 40, 100, 100, 100, 3000); // Gini 0.66 -> CONFIRMED
        // (1,1,1,m) with m >= 5 has Gini >= 0.375: inside (0.36, 0.40] once the window holds only it
        long t = heatFor("c1", confirmed, 20, 100, 100, 100, 500);
        h.advanceTo("c1", t + GRACE);
        List<SkewReport> band = h.reports("c1").stream()
                .filter(r -> r.getWindowEnd().toEpochMilli() > t - 12 * TICK).toList();
        assertThat(band).isNotEmpty().allSatisfy(r -> {
            assertThat(r.getHeatGini()).isBetween(0.36, 0.40);
            assertThat(r.getHeatState()).isEqualTo(CONFIRMED);
        });

        long t2 = heatFor("c1", t, 20, 100, 100, 100, 100); // balanced
        h.advanceTo("c1", t2 + GRACE);
        List<SkewAlert> heat = alerts(AlertKind.HEAT);
        assertThat(heat).extracting(SkewAlert::getState).containsExactly(OBSERVING, CONFIRMED, CLEARED, NORMAL);
        SkewAlert cleared = heat.get(2);
        assertThat(cleared.getValue()).isLessThanOrEqualTo(0.36);
        assertThat(cleared.getThreshold()).isCloseTo(0.36, within(1e-12));
        assertThat(heat.get(3).getEventTime().toEpochMilli()).isEqualTo(cleared.getEventTime().toEpochMilli() + TICK);
        assertThat(reportAt("c1", cleared.getEventTime().toEpochMilli()).getHeatState()).isEqualTo(CLEARED);
    }

    @Test
    void lateEventWithinGraceIsCountedAndBeyondGraceGoesToTheDeadLetters() {
        h.write("c1", "n1", 1, 100, 1, T0 + 5_000);
        h.advanceTo("c1", T0 + 35_000);
        h.write("c1", "n2", 2, 50, 1, T0 + 8_000); // 27 s late: within grace
        h.advanceTo("c1", T0 + 40_000);
        h.write("c1", "n3", 3, 70, 1, T0 + 9_000); // 31 s late: beyond grace
        h.advanceTo("c1", T0 + 50_000);

        assertThat(reportAt("c1", T0 + TICK).getTotalWriteBytes()).isEqualTo(150);
        assertThat(reportAt("c1", T0 + 2 * TICK).getTotalWriteBytes()).isEqualTo(150);
        List<DeadLetterRecord> dead = h.deadLetters();
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).letter().reason()).startsWith("late");
        assertThat(dead.get(0).letter().sourceTopic()).isEqualTo("skew.node-writes");
        assertThat(dead.get(0).key()).isEqualTo("n3".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void everyBadInputGoesToTheDeadLettersAndTheNextGoodRecordIsStillProcessed() {
        byte[] good = h.encode(new WriteEvent("c1", "n1", 1, 1L, 1L, Instant.ofEpochMilli(T0)));
        byte[] unknownId = good.clone();
        unknownId[1] = 0x7f; // schema id 0x7fxxxxxx was never registered
        byte[] wrongMagic = good.clone();
        wrongMagic[0] = 7;
        byte[] truncated = Arrays.copyOf(good, good.length - 3);
        byte[] key = "n1".getBytes(StandardCharsets.UTF_8);

        h.write("c1", "n1", 1, 10, 1, T0);
        h.sendRawWrite(key, "not avro at all".getBytes(StandardCharsets.UTF_8), T0);
        h.write("c1", "n1", 1, 10, 1, T0);
        h.sendRawWrite(key, unknownId, T0);
        h.write("c1", "n1", 1, 10, 1, T0);
        h.sendRawWrite(key, wrongMagic, T0);
        h.write("c1", "n1", 1, 10, 1, T0);
        h.sendRawWrite(key, truncated, T0);
        h.write("c1", "n1", 1, 10, 1, T0);
        h.sendRawWrite(key, null, T0);
        h.write("c1", "n1", 1, 10, 1, T0);
        h.write("c1", "n1", 1, -5, 1, T0);
        h.write("c1", "n1", 1, 10, 1, T0);
        h.write("c1", "", 1, 5, 1, T0);
        h.write("c1", "n1", 1, 10, 1, T0);
        h.write("c1", "n1", 99_999, 5, 1, T0);
        h.write("c1", "n1", 1, 10, 1, T0);
        h.capacity("c1", "n1", 2000, 1000, null, T0);
        h.write("c1", "n1", 1, 10, 1, T0);
        h.capacity("c1", "n1", -1, 1000, null, T0);
        h.write("c1", "n1", 1, 10, 1, T0);
        h.write("c1", "n1", 1, 5, 1, System.currentTimeMillis() + 2 * 3_600_000); // two hours ahead of the clock
        h.write("c1", "n1", 1, 10, 1, T0);
        h.advanceTo("c1", T0 + TICK + GRACE);

        List<String> reasons = h.deadLetters().stream().map(d -> d.letter().reason()).toList();
        assertThat(reasons).hasSize(11);
        assertThat(reasons.get(0)).startsWith("undecodable");
        assertThat(reasons.get(1)).startsWith("unknown-schema: ");
        assertThat(reasons.get(2)).startsWith("undecodable").contains("magic");
        assertThat(reasons.get(3)).startsWith("undecodable");
        assertThat(reasons.get(4)).isEqualTo("invalid: empty value");
        assertThat(reasons.get(5)).startsWith("invalid: negative bytes");
        assertThat(reasons.get(6)).isEqualTo("invalid: missing node id");
        assertThat(reasons.get(7)).startsWith("invalid: slot 99999");
        assertThat(reasons.get(8)).contains("> total");
        assertThat(reasons.get(9)).startsWith("invalid: negative used");
        assertThat(reasons.get(10)).startsWith("future");
        assertThat(h.deadLetters().get(1).value()).isEqualTo(unknownId); // original bytes
        assertThat(h.deadLetters().get(3).letter().sourceOffset()).isEqualTo(7L);
        assertThat(h.deadLetters().get(8).letter().sourceTopic()).isEqualTo("skew.node-capacity");
        assertThat(h.metric("dead-letter-total")).isEqualTo(11.0);
        // all twelve good writes of 10 bytes were counted
        assertThat(reportAt("c1", T0 + TICK).getTotalWriteBytes()).isEqualTo(120);
    }

    @Test
    void twoClustersNeverMix() {
        long other = T0 + 86_400_000; // c2 lives a day later
        capacities("c1", T0, 1000, 1000, 1000, 1000);
        capacities("c2", other, 1000, 1000);
        heatFor("c1", T0, 40, 100, 100, 100, 3000);
        heatFor("c2", other, 3, 100, 100);
        h.advanceTo("c2", other + 3 * TICK + GRACE);

        List<SkewReport> c1 = h.reports("c1");
        List<SkewReport> c2 = h.reports("c2");
        assertThat(c1).allSatisfy(r -> assertThat(r.getNodes()).extracting(NodeFigures::getNode)
                .containsExactly("n1", "n2", "n3", "n4"));
        assertThat(c2).hasSize(3).allSatisfy(r -> {
            assertThat(r.getNodeCount()).isEqualTo(2);
            assertThat(r.getHeatGini()).isCloseTo(0.0, within(1e-9));
            assertThat(r.getWindowEnd().toEpochMilli()).isGreaterThan(other);
        });
        assertThat(c1.get(c1.size() - 1).getWindowEnd().toEpochMilli()).isLessThan(T0 + 400 * TICK);
        assertThat(h.alerts()).allSatisfy(a -> assertThat(a.getCluster()).isEqualTo("c1"));
        assertThat(h.alerts()).extracting(SkewAlert::getState).contains(CONFIRMED);
    }

    @Test
    void aClusterWithoutInputDoesNotTick() {
        h.write("c1", "n1", 1, 10, 1, T0);
        h.advanceTo("c1", T0 + TICK + GRACE);
        int before = h.reports("c1").size();
        h.write("c2", "n1", 1, 10, 1, T0 + 3_600_000);
        h.advanceTo("c2", T0 + 3_600_000 + 5 * TICK);
        assertThat(h.reports("c1")).hasSize(before);
    }

    @Test
    void alertsStatesInReportsFollowTheTransitions() {
        capacities("c1", T0, 1000, 1000, 1000, 1000);
        heatFor("c1", T0, 5, 100, 100, 100, 3000);
        h.advanceTo("c1", T0 + 5 * TICK + GRACE);
        Map<Long, AlertState> states = new java.util.TreeMap<>();
        h.reports("c1").forEach(r -> states.put(r.getWindowEnd().toEpochMilli(), r.getHeatState()));
        assertThat(states.values()).containsOnly(OBSERVING);
        assertThat(states).hasSize(5);
    }
}
