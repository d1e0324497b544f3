package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.balancer.policy.SlotLoadModel;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.WeightCommand;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BalancerTopologyTest {

    private static final long SECOND = 1000;
    private static final long MINUTE = 60 * SECOND;
    private static final long TICK = 10 * SECOND;

    private final BalancerHarness harness = new BalancerHarness("c1,c2");

    @AfterEach
    void close() {
        harness.close();
    }

    /** 48 nodes in 3 capacity classes, mild Zipf, one hot shard: a skew weights can repair. */
    private static SlotLoadModel repairableCluster() {
        double[] capacity = new double[48];
        for (int n = 0; n < capacity.length; n++) {
            capacity[n] = new double[] {1e12, 2e12, 4e12}[n % 3];
        }
        return SlotLoadModel.of(capacity, 256, 8, 0.8, 3.0, 42);
    }

    private static double[] ones(int n) {
        double[] w = new double[n];
        Arrays.fill(w, 1.0);
        return w;
    }

    private static void apply(double[] weights, List<TestRecord<String, NodeWeight>> rows) {
        for (TestRecord<String, NodeWeight> row : rows) {
            int n = Integer.parseInt(row.value().getNode().substring("node-".length()));
            weights[n] = row.value().getWeight();
        }
    }

    @Test
    void noWeightCommandBeforeTheHeatAlertIsConfirmed() {
        SlotLoadModel model = repairableCluster();
        double[] weights = ones(48);
        harness.alert("c1", AlertKind.HEAT, AlertState.NORMAL, AlertState.OBSERVING, 0, 0);
        harness.alert("c1", AlertKind.CAPACITY, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
        for (long t = TICK; t < 5 * MINUTE; t += TICK) {
            harness.send(model.snapshot("c1", t, weights));
        }
        assertThat(harness.commands()).isEmpty();
        assertThat(harness.weights()).isEmpty();

        harness.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 5 * MINUTE);
        harness.send(model.snapshot("c1", 5 * MINUTE + TICK, weights));

        List<TestRecord<String, WeightCommand>> commands = harness.commands();
        assertThat(commands).isNotEmpty();
        assertThat(commands).allSatisfy(c -> assertThat(c.value().getEpoch()).isEqualTo(1));
        assertThat(harness.deadLetters()).isEmpty();
    }

    /** Fast mode's topology: the same rounds and commands, no changelog written. */
    @Test
    void withoutChangelogsTheRoundsAreTheSameAndNoChangelogIsWritten() {
        try (BalancerHarness logged = new BalancerHarness(Map.of("clusters", "c1"), true);
             BalancerHarness unlogged = new BalancerHarness(Map.of("clusters", "c1"), false)) {
            SlotLoadModel model = repairableCluster();
            double[] weights = ones(48);
            List<String> withLogs = new ArrayList<>();
            List<String> without = new ArrayList<>();
            for (BalancerHarness h : List.of(logged, unlogged)) {
                h.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
            }
            for (long t = TICK; t <= 20 * MINUTE; t += TICK) {
                LoadSnapshot snapshot = model.snapshot("c1", t, weights);
                logged.send(snapshot);
                unlogged.send(snapshot);
                logged.commands().forEach(c -> withLogs.add(c.key() + "=" + c.value()));
                unlogged.commands().forEach(c -> without.add(c.key() + "=" + c.value()));
                apply(weights, logged.weights());
                unlogged.weights();
            }
            assertThat(withLogs).as("weight commands").isNotEmpty().isEqualTo(without);
            assertThat(logged.producedTopicNames()).anyMatch(t -> t.endsWith("-changelog"));
            assertThat(unlogged.producedTopicNames()).noneMatch(t -> t.endsWith("-changelog"));
        }
    }

    @Test
    void roundsRunTwoMinutesApartGoOnAfterTheAlertClearsAndStopAtTheTarget() {
        SlotLoadModel model = repairableCluster();
        double[] weights = ones(48);
        harness.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);

        long clearedAt = -1;
        long targetSeenAt = -1;
        Map<Long, Long> roundTimeByEpoch = new TreeMap<>();
        List<Long> commandTimes = new ArrayList<>();
        for (long t = TICK; t <= 60 * MINUTE; t += TICK) {
            LoadSnapshot snapshot = model.snapshot("c1", t, weights);
            if (clearedAt < 0 && snapshot.heatGini() <= 0.40 * 0.9) {
                clearedAt = t; // what the detector does: CLEARED below threshold × (1 − hysteresis)
                harness.alert("c1", AlertKind.HEAT, AlertState.CONFIRMED, AlertState.CLEARED, 0, t);
            }
            if (targetSeenAt < 0 && snapshot.heatGini() <= 0.20) {
                targetSeenAt = t;
            }
            harness.send(snapshot);
            for (TestRecord<String, WeightCommand> c : harness.commands()) {
                roundTimeByEpoch.put(c.value().getEpoch(), c.value().getIssuedAt().toEpochMilli());
                commandTimes.add(c.value().getIssuedAt().toEpochMilli());
            }
            apply(weights, harness.weights());
        }

        List<Long> epochs = new ArrayList<>(roundTimeByEpoch.keySet());
        List<Long> times = new ArrayList<>(roundTimeByEpoch.values());
        assertThat(epochs).as("one epoch per round, none skipped").isEqualTo(
                java.util.stream.LongStream.rangeClosed(1, epochs.size()).boxed().collect(Collectors.toList()));
        for (int i = 1; i < times.size(); i++) {
            assertThat(times.get(i) - times.get(i - 1)).as("time between rounds").isGreaterThanOrEqualTo(2 * MINUTE);
        }
        assertThat(clearedAt).as("the alert cleared during the repair").isPositive();
        final long cleared = clearedAt;
        assertThat(times).as("rounds after CLEARED").anySatisfy(t -> assertThat(t).isGreaterThan(cleared));
        assertThat(targetSeenAt).as("the heat Gini reached the 0.20 target").isPositive();
        final long target = targetSeenAt;
        assertThat(commandTimes).as("no command once the target is reached").allSatisfy(t -> assertThat(t).isLessThan(target));
        assertThat(model.heatGini(model.heat(weights))).isLessThanOrEqualTo(0.20);
    }

    @Test
    void withFollowUpARepairStartsAgainWithoutAnAlertWhenTheHeatGiniStaysAboveTheTarget() {
        try (BalancerHarness h = new BalancerHarness(Map.of("clusters", "c1", BalancerSettings.FOLLOW_UP, "6m"))) {
            SlotLoadModel model = repairableCluster();
            double[] weights = ones(48);
            h.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
            long t = TICK;
            for (; t <= 60 * MINUTE; t += TICK) { // the repair runs to its target (the test above)
                h.send(model.snapshot("c1", t, weights));
                apply(weights, h.weights());
            }
            assertThat(model.heatGini(model.heat(weights))).isLessThanOrEqualTo(0.20);
            long firstRepairEpochs = h.decisions().stream().filter(d -> d.value().getReason().equals("ADJUSTED")).count();
            assertThat(firstRepairEpochs).isPositive();
            h.commands();

            // the load shifts back (the weights' effect gone): above the target, under the alert, no new alert
            double[] drifted = ones(48);
            long driftFrom = t + TICK;
            for (t = driftFrom; t < driftFrom + 6 * MINUTE; t += TICK) {
                h.send(model.snapshot("c1", t, drifted));
            }
            assertThat(h.commands()).as("no round within the follow-up time").isEmpty();
            List<io.skewguard.schemas.Decision> waiting = h.decisions().stream().map(TestRecord::value).toList();
            assertThat(waiting).anySatisfy(d -> {
                assertThat(d.getReason()).isEqualTo("FOLLOW_UP_PENDING");
                assertThat(d.getMessage()).contains("a follow-up repair starts at");
            });

            h.send(model.snapshot("c1", driftFrom + 6 * MINUTE, drifted));
            List<TestRecord<String, WeightCommand>> followUp = h.commands();
            assertThat(followUp).isNotEmpty();
            assertThat(followUp).allSatisfy(c -> assertThat(c.value().getEpoch()).isEqualTo(firstRepairEpochs + 1));
            assertThat(h.decisions()).anySatisfy(d -> {
                assertThat(d.value().getReason()).isEqualTo("ADJUSTED");
                assertThat(d.value().getMessage()).startsWith("follow-up repair: the heat Gini stayed above the repair target 0.200");
            });
        }
    }

    @Test
    void withoutFollowUpAHeatGiniAboveTheTargetAfterARepairStartsNothing() {
        SlotLoadModel model = repairableCluster();
        double[] weights = ones(48);
        harness.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
        long t = TICK;
        for (; t <= 60 * MINUTE; t += TICK) {
            harness.send(model.snapshot("c1", t, weights));
            apply(weights, harness.weights());
        }
        assertThat(harness.commands()).isNotEmpty();
        for (long d = t + TICK; d < t + 60 * MINUTE; d += TICK) {
            harness.send(model.snapshot("c1", d, ones(48)));
        }
        assertThat(harness.commands()).isEmpty();
    }

    /** The scripted input of the determinism tests: confirmed, then six rounds' worth of reports. */
    private static List<TestRecord<String, WeightCommand>> script(BalancerHarness h) {
        SlotLoadModel model = repairableCluster();
        double[] weights = ones(48);
        h.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
        List<TestRecord<String, WeightCommand>> all = new ArrayList<>();
        for (long t = TICK; t <= 12 * MINUTE; t += TICK) {
            h.send(model.snapshot("c1", t, weights));
            all.addAll(h.commands());
            apply(weights, h.weights());
        }
        return all;
    }

    @Test
    void sameInputGivesTheSameCommandsWithIdsFromClusterEpochAndNode() {
        List<TestRecord<String, WeightCommand>> first = script(harness);
        List<TestRecord<String, WeightCommand>> second;
        try (BalancerHarness other = new BalancerHarness("c1,c2")) {
            second = script(other);
        }

        assertThat(first).isNotEmpty();
        assertThat(second.stream().map(TestRecord::value).collect(Collectors.toList()))
                .isEqualTo(first.stream().map(TestRecord::value).collect(Collectors.toList()));
        for (TestRecord<String, WeightCommand> record : first) {
            WeightCommand c = record.value();
            assertThat(record.key()).isEqualTo(c.getNode());
            assertThat(c.getCommandId()).isEqualTo("weight/c1/" + c.getEpoch() + "/" + c.getNode());
            assertThat(c.getNewWeight()).isBetween(0.5, 2.0);
            assertThat(Math.abs(c.getNewWeight() - c.getOldWeight())).isLessThanOrEqualTo(0.05 * c.getOldWeight() + 1e-12);
            assertThat(c.getReason()).containsAnyOf("overloaded: load ratio", "underloaded: load ratio");
        }
        assertThat(first.stream().map(r -> r.value().getCommandId()).distinct().count()).isEqualTo(first.size());
    }

    @Test
    void aReportDeliveredTwiceOpensNoSecondEpoch() {
        SlotLoadModel model = repairableCluster();
        harness.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
        SkewReport report = BalancerHarness.report(model.snapshot("c1", MINUTE, ones(48)));

        harness.send(report);
        List<TestRecord<String, WeightCommand>> first = harness.commands();
        harness.send(report);

        assertThat(first).isNotEmpty();
        assertThat(harness.commands()).isEmpty();
    }

    @Test
    void everyRoundWritesTheWholeWeightTableKeyedByClusterAndNode() {
        SlotLoadModel model = repairableCluster();
        double[] weights = ones(48);
        harness.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
        Map<String, NodeWeight> table = new TreeMap<>();
        Map<String, Double> expected = new TreeMap<>();
        for (int n = 0; n < 48; n++) {
            expected.put(SlotLoadModel.nodeId(n), 1.0);
        }
        long lastEpoch = 0;
        for (long t = TICK; t <= 7 * MINUTE; t += TICK) {
            harness.send(model.snapshot("c1", t, weights));
            for (TestRecord<String, WeightCommand> c : harness.commands()) {
                expected.put(c.value().getNode(), c.value().getNewWeight());
                lastEpoch = c.value().getEpoch();
            }
            List<TestRecord<String, NodeWeight>> rows = harness.weights();
            if (!rows.isEmpty()) {
                assertThat(rows).hasSize(48); // the whole table, not just the changed rows
            }
            rows.forEach(r -> table.put(r.key(), r.value())); // what compaction keeps: the latest per key
            apply(weights, rows);
        }

        assertThat(lastEpoch).isEqualTo(4); // rounds at 10 s, 2:10, 4:10, 6:10
        assertThat(table).hasSize(48);
        for (Map.Entry<String, NodeWeight> row : table.entrySet()) {
            NodeWeight w = row.getValue();
            assertThat(row.getKey()).isEqualTo("c1/" + w.getNode());
            assertThat(w.getCluster()).isEqualTo("c1");
            assertThat(w.getEpoch()).isEqualTo(lastEpoch);
            assertThat(w.getWeight()).isEqualTo(expected.get(w.getNode()));
        }
    }

    @Test
    void badInputGoesToTheDeadLetterTopicWithItsOriginAndProcessingGoesOn() {
        SlotLoadModel model = repairableCluster();
        harness.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
        SkewReport good = BalancerHarness.report(model.snapshot("c1", MINUTE, ones(48)));

        harness.send(BalancerHarness.report(model.snapshot("elsewhere", MINUTE, ones(48))));
        SkewReport empty = SkewReport.newBuilder(good).setNodes(List.of()).setNodeCount(0).build();
        harness.send(empty);
        harness.send(SkewReport.newBuilder(good).setHeatGini(Double.NaN).build());
        harness.sendReport("c1", "not avro at all".getBytes(StandardCharsets.UTF_8), MINUTE);
        harness.sendReport("c2", harness.serializeForTest(good), MINUTE);
        harness.sendAlertBytes("c1", new byte[] {0, 0, 0, 0, 42, 1}, MINUTE);
        harness.send(good);

        List<TestRecord<byte[], byte[]>> letters = harness.deadLetters();
        assertThat(letters).hasSize(6);
        List<DeadLetter> origins = letters.stream().map(r -> DeadLetter.fromHeaders(r.headers())).toList();
        assertThat(origins).extracting(DeadLetter::reason).satisfiesExactly(
                r -> assertThat(r).isEqualTo("unknown-cluster: cluster 'elsewhere' is not one of the clusters served"),
                r -> assertThat(r).startsWith("invalid: ").contains("zero nodes"),
                r -> assertThat(r).contains("heat Gini NaN"),
                r -> assertThat(r).startsWith("undecodable"),
                r -> assertThat(r).contains("key 'c2' is not its cluster 'c1'"),
                r -> assertThat(r).startsWith("unknown-schema: "));
        assertThat(origins).extracting(DeadLetter::sourceTopic).containsExactly(
                "skew.reports", "skew.reports", "skew.reports", "skew.reports", "skew.reports", "skew.alerts");
        assertThat(origins.subList(0, 5)).extracting(DeadLetter::sourceOffset).containsExactly(0L, 1L, 2L, 3L, 4L);
        assertThat(letters.get(3).value()).isEqualTo("not avro at all".getBytes(StandardCharsets.UTF_8));
        assertThat(harness.commands()).as("the good report after the bad ones still runs a round").isNotEmpty();
    }

    @Test
    void nodesWithoutCapacityReportAreCarriedInTheTableAtWeightOne() {
        harness.alert("c2", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
        harness.send(new LoadSnapshot("c2", MINUTE, 0.5, List.of(
                new NodeLoad("a", 900, 100), new NodeLoad("b", 100, 100), new NodeLoad("fresh", 0, 0))));

        assertThat(harness.commands()).extracting(r -> r.value().getNode()).containsExactly("a", "b");
        Map<String, Double> table = harness.weights().stream()
                .collect(Collectors.toMap(TestRecord::key, r -> r.value().getWeight()));
        assertThat(table).containsOnlyKeys("c2/a", "c2/b", "c2/fresh").containsEntry("c2/fresh", 1.0);
    }

    /**
     * One report whose windowEnd is ten years ahead would run a round "then" and hold every later
     * round back as too soon; one alert whose since is that far ahead would make every later
     * confirmation look like an episode already seen. Both are refused, and the ordinary reports
     * after them run their rounds. (The harness's driver clock is the system clock at its start;
     * the scripted times are long before it.)
     */
    @Test
    void aReportOrAlertTenYearsAheadIsDeadLetteredAsFutureAndTheOrdinaryOnesAfterItStillRunRounds() {
        SlotLoadModel model = repairableCluster();
        double[] weights = ones(48);
        long tenYears = System.currentTimeMillis() + 3652L * 24 * 60 * MINUTE;
        harness.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, tenYears, tenYears);
        harness.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
        harness.send(model.snapshot("c1", tenYears, weights));
        for (long t = TICK; t <= 7 * MINUTE; t += TICK) {
            harness.send(model.snapshot("c1", t, weights));
            apply(weights, harness.weights());
        }

        assertThat(harness.deadLetters()).extracting(r -> DeadLetter.fromHeaders(r.headers()).reason()).satisfiesExactly(
                r -> assertThat(r).startsWith("future: since"),
                r -> assertThat(r).startsWith("future: windowEnd"));
        assertThat(harness.commands()).extracting(c -> c.value().getEpoch()).as("rounds of the ordinary reports")
                .contains(1L, 2L, 3L);
    }
}
