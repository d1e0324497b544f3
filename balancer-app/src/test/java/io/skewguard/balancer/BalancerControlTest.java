package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.balancer.policy.SlotLoadModel;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.auth.NodeSignature;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The operators' controls (dry run, pause, exclude) and the decision log, against the balancer's topology. */
class BalancerControlTest {

    private static final long SECOND = 1000;
    private static final long MINUTE = 60 * SECOND;
    private static final long TICK = 10 * SECOND;

    private final List<BalancerHarness> harnesses = new ArrayList<>();

    @AfterEach
    void close() {
        harnesses.forEach(BalancerHarness::close);
    }

    private BalancerHarness harness(Map<String, String> overrides) {
        BalancerHarness h = new BalancerHarness(overrides);
        harnesses.add(h);
        return h;
    }

    private BalancerHarness harness() {
        return harness(Map.of("clusters", "c1"));
    }

    /** 48 nodes in 3 capacity classes, mild Zipf, one hot shard: a skew weights can repair. */
    private static SlotLoadModel cluster() {
        double[] capacity = new double[48];
        for (int n = 0; n < capacity.length; n++) {
            capacity[n] = new double[] {1e12, 2e12, 4e12}[n % 3];
        }
        return SlotLoadModel.of(capacity, 256, 8, 0.8, 3.0, 42);
    }

    /** Feeds reports every tick over [from, to), applying the weights the balancer publishes; returns the commands. */
    private static List<WeightCommand> run(BalancerHarness h, SlotLoadModel model, double[] weights, long from, long to) {
        List<WeightCommand> commands = new ArrayList<>();
        for (long t = from; t < to; t += TICK) {
            h.send(model.snapshot("c1", t, weights));
            h.commands().forEach(c -> commands.add(c.value()));
            for (TestRecord<String, NodeWeight> row : h.weights()) {
                weights[Integer.parseInt(row.value().getNode().substring("node-".length()))] = row.value().getWeight();
            }
        }
        return commands;
    }

    private static double[] ones() {
        double[] w = new double[48];
        Arrays.fill(w, 1.0);
        return w;
    }

    private static List<String> reasons(List<TestRecord<String, Decision>> decisions) {
        return decisions.stream().map(d -> d.value().getReason()).toList();
    }

    @Test
    void dryRunSendsNoCommandWhileProposalsAppearAndTurningItOffRunsTheProposedRound() {
        BalancerHarness h = harness();
        SlotLoadModel model = cluster();
        double[] weights = ones();
        h.control(ControlKind.DRY_RUN, true);
        h.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);

        assertThat(run(h, model, weights, TICK, 5 * MINUTE)).as("no command in dry run").isEmpty();
        assertThat(h.weights()).isEmpty();
        List<TestRecord<String, Proposal>> proposals = h.proposals();
        // the same round is proposed on every report, published once per decision-interval (1m)
        assertThat(proposals).hasSizeBetween(4, 6);
        Proposal last = proposals.get(proposals.size() - 1).value();
        assertThat(last.getApp()).isEqualTo("balancer");
        assertThat(last.getMetric()).isEqualTo("heat Gini");
        assertThat(last.getWeights()).isNotEmpty();
        assertThat(last.getBytesToMove()).isZero();
        assertThat(last.getExpected()).as("weights are expected to lower the heat Gini").isLessThan(last.getCurrent());
        assertThat(reasons(h.decisions())).contains("DRY_RUN").doesNotContain("ADJUSTED");

        h.control(ControlKind.DRY_RUN, false);
        List<WeightCommand> commands = run(h, model, weights, 5 * MINUTE, 5 * MINUTE + TICK);
        assertThat(commands).as("the first round after the dry run is epoch 1 and changes what was proposed").isNotEmpty()
                .allSatisfy(c -> assertThat(c.getEpoch()).isEqualTo(1));
        assertThat(commands.stream().map(c -> c.getNode() + "=" + c.getNewWeight()).toList())
                .containsExactlyElementsOf(last.getWeights().stream().map(w -> w.getNode() + "=" + w.getNewWeight()).toList());
        assertThat(reasons(h.decisions())).contains("ADJUSTED");
    }

    @Test
    void pauseHoldsEveryRoundAndResumeGoesOnWithTheNextEpoch() {
        BalancerHarness h = harness();
        SlotLoadModel model = cluster();
        double[] weights = ones();
        h.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
        List<WeightCommand> before = run(h, model, weights, TICK, 5 * MINUTE);
        long epoch = before.stream().mapToLong(WeightCommand::getEpoch).max().orElseThrow();
        assertThat(epoch).isGreaterThanOrEqualTo(2);
        h.decisions();

        h.control(ControlKind.PAUSE, true);
        assertThat(run(h, model, weights, 5 * MINUTE, 15 * MINUTE)).as("no round while paused").isEmpty();
        List<TestRecord<String, Decision>> paused = h.decisions();
        assertThat(reasons(paused)).containsOnly("PAUSED");
        assertThat(paused).hasSizeBetween(9, 11); // once per decision-interval over ten minutes
        assertThat(paused.get(0).value().getMessage()).startsWith("paused by an operator: no weight round")
                .contains("weights epoch " + epoch);
        assertThat(paused.get(0).value().getFigures()).containsEntry("weightsEpoch", (double) epoch);

        h.control(ControlKind.PAUSE, false);
        List<WeightCommand> after = run(h, model, weights, 15 * MINUTE, 15 * MINUTE + TICK);
        assertThat(after).isNotEmpty().allSatisfy(c -> assertThat(c.getEpoch()).isEqualTo(epoch + 1));
    }

    @Test
    void anExcludedNodeKeepsItsWeightWhileTheOthersMove() {
        SlotLoadModel model = cluster();
        BalancerHarness free = harness();
        free.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
        TreeSet<String> moved = run(free, model, ones(), TICK, 20 * MINUTE).stream().map(WeightCommand::getNode)
                .collect(Collectors.toCollection(TreeSet::new));
        String node = moved.first();

        BalancerHarness h = harness();
        h.control(ControlKind.EXCLUDE, true, null, node, "alice", null);
        h.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
        double[] weights = ones();
        List<WeightCommand> commands = run(h, model, weights, TICK, 20 * MINUTE);
        assertThat(commands).isNotEmpty().noneSatisfy(c -> assertThat(c.getNode()).isEqualTo(node));
        assertThat(weights[Integer.parseInt(node.substring("node-".length()))]).isEqualTo(1.0);

        h.control(ControlKind.EXCLUDE, false, null, node, "alice", null);
        assertThat(run(h, model, weights, 20 * MINUTE, 40 * MINUTE)).as("included again, its weight may move")
                .anySatisfy(c -> assertThat(c.getNode()).isEqualTo(node));
    }

    @Test
    void theDecisionLogSaysWhyNoRoundRanWithItsFigures() {
        BalancerHarness h = harness();
        SlotLoadModel model = cluster();
        double[] weights = ones();
        h.send(model.snapshot("c1", TICK, weights));
        SkewReport observing = SkewReport.newBuilder(BalancerHarness.report(model.snapshot("c1", 2 * TICK, weights)))
                .setHeatState(AlertState.OBSERVING).build();
        h.send(observing);
        List<TestRecord<String, Decision>> early = h.decisions();
        assertThat(reasons(early)).containsExactly("BELOW_THRESHOLD", "COOLDOWN");
        assertThat(early.get(0).key()).isEqualTo("c1");
        assertThat(early.get(0).value().getMessage()).contains("the HEAT alert is NORMAL");
        assertThat(early.get(0).value().getFigures()).containsKeys("heatGini", "weightsEpoch");

        h.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 3 * TICK);
        run(h, model, weights, 3 * TICK, 3 * TICK + 2 * MINUTE);
        List<TestRecord<String, Decision>> repair = h.decisions();
        // eleven reports between two rounds, TOO_SOON said once per decision-interval (1m): twice
        assertThat(reasons(repair)).containsExactly("ADJUSTED", "TOO_SOON", "TOO_SOON");
        assertThat(repair.get(0).value().getActed()).isTrue();
        assertThat(repair.get(0).value().getMessage()).startsWith("weights epoch 1: ");
        assertThat(repair.get(1).value().getActed()).isFalse();
        assertThat(repair.get(1).value().getMessage()).startsWith("next round at ");
    }

    @Test
    void withOperatorKeysAControlFromAnUnknownOperatorOrUnsignedIsRefusedAndChangesNothing(@TempDir Path dir) throws Exception {
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) 3);
        Path keys = dir.resolve("operators");
        Files.writeString(keys, "alice=" + Base64.getEncoder().encodeToString(secret) + "\n");
        BalancerHarness h = harness(Map.of("clusters", "c1", "operator-keys-file", keys.toString()));
        SlotLoadModel model = cluster();
        double[] weights = ones();
        h.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);

        h.control(ControlKind.PAUSE, true, null, null, "mallory", NodeSignature.of(new byte[32]));
        h.control(ControlKind.PAUSE, true, null, null, "alice", null);
        assertThat(run(h, model, weights, TICK, 3 * MINUTE)).as("neither pause was taken").isNotEmpty();

        h.control(ControlKind.PAUSE, true, null, null, "alice", NodeSignature.of(secret));
        assertThat(run(h, model, weights, 3 * MINUTE, 8 * MINUTE)).as("alice's signed pause holds").isEmpty();
        // a refused record leaves the control as it was: still paused
        h.control(ControlKind.PAUSE, false, null, null, "mallory", NodeSignature.of(new byte[32]));
        assertThat(run(h, model, weights, 8 * MINUTE, 12 * MINUTE)).isEmpty();
        assertThat(reasons(h.decisions())).contains("PAUSED");
    }
}
