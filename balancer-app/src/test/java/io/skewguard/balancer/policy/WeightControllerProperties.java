package io.skewguard.balancer.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;

/** Invariants of one round, for any load and any reachable weights. */
class WeightControllerProperties {

    private static final long ROUND = Duration.ofMinutes(2).toMillis();

    /** A cluster's load and the weights it has now. */
    record Case(List<NodeLoad> loads, List<Double> weights, double gain, double deadband) {

        LoadSnapshot snapshot(long time) {
            return new LoadSnapshot("c1", time, 0.5, loads);
        }

        ControllerState state(WeightController controller) {
            TreeMap<String, NodeControl> nodes = new TreeMap<>();
            for (int i = 0; i < loads.size(); i++) {
                nodes.put(loads.get(i).node(), new NodeControl(weights.get(i), gain, 0, 0));
            }
            ControllerState armed = controller.onHeatConfirmed(
                    new ControllerState(3, ControllerState.NEVER, false, false, ControllerState.NEVER, nodes), 0);
            return armed;
        }

        double ratio(int i) {
            double heat = loads.stream().mapToDouble(NodeLoad::heat).sum();
            double capacity = loads.stream().mapToDouble(NodeLoad::capacity).sum();
            return (loads.get(i).heat() / heat) / (loads.get(i).capacity() / capacity);
        }
    }

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<Integer> size = Arbitraries.integers().between(2, 48);
        return size.flatMap(n -> Combinators.combine(
                        Arbitraries.doubles().between(0, 1e9).list().ofSize(n),
                        Arbitraries.doubles().between(1, 1e12).list().ofSize(n),
                        Arbitraries.doubles().between(0.5, 2.0).list().ofSize(n),
                        Arbitraries.doubles().between(0.01, 0.5),
                        Arbitraries.doubles().between(0.0, 0.2))
                .as((heat, capacity, weights, gain, deadband) -> {
                    List<NodeLoad> loads = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        loads.add(new NodeLoad(String.format("n%02d", i), heat.get(i), capacity.get(i)));
                    }
                    return new Case(loads, weights, gain, deadband);
                }))
                .filter(c -> c.loads().stream().mapToDouble(NodeLoad::heat).sum() > 0);
    }

    private static WeightController controllerFor(Case c) {
        return new WeightController(new ControllerSettings(
                0.5, 2.0, 0.05, c.deadband(), c.gain(), 0.2, Duration.ofMinutes(2), 0));
    }

    @Property
    void everyWeightStaysInsideTheBoundsAndMovesAtMostFivePercent(@ForAll("cases") Case c) {
        WeightController controller = controllerFor(c);
        Round round = controller.onReport(c.state(controller), c.snapshot(ROUND));

        for (WeightChange change : round.changes()) {
            assertThat(change.newWeight()).isBetween(0.5, 2.0);
            assertThat(Math.abs(change.newWeight() - change.oldWeight()))
                    .isLessThanOrEqualTo(0.05 * change.oldWeight() + 1e-12);
        }
        round.state().weights().values().forEach(w -> assertThat(w).isBetween(0.5, 2.0));
    }

    @Property
    void overloadedNodesOnlyGoDownUnderloadedOnlyUpAndTheDeadbandIsLeftAlone(@ForAll("cases") Case c) {
        WeightController controller = controllerFor(c);
        Round round = controller.onReport(c.state(controller), c.snapshot(ROUND));

        for (int i = 0; i < c.loads().size(); i++) {
            double r = c.ratio(i);
            double before = c.weights().get(i);
            double after = round.state().weight(c.loads().get(i).node());
            if (Math.abs(r - 1) <= c.deadband()) {
                assertThat(after).as("node inside the deadband, r=%s", r).isEqualTo(before);
            } else if (r > 1) {
                assertThat(after).as("overloaded node, r=%s", r).isLessThanOrEqualTo(before);
            } else {
                assertThat(after).as("underloaded node, r=%s", r).isGreaterThanOrEqualTo(before);
            }
        }
    }

    @Property
    void anAdjustedRoundOpensExactlyOneNewEpoch(@ForAll("cases") Case c) {
        WeightController controller = controllerFor(c);
        ControllerState before = c.state(controller);
        Round round = controller.onReport(before, c.snapshot(ROUND));

        long expected = round.outcome().opensEpoch() ? before.epoch() + 1 : before.epoch();
        assertThat(round.state().epoch()).isEqualTo(expected);
        assertThat(round.changes().isEmpty()).isEqualTo(!round.outcome().opensEpoch());
    }

    @Property
    void underAFixedLoadEveryWeightApproachesItsBoundMonotonically(@ForAll("cases") Case c) {
        WeightController controller = controllerFor(c);
        ControllerState state = c.state(controller);
        List<Double> previous = new ArrayList<>(c.weights());
        for (int k = 1; k <= 40; k++) {
            state = controller.onReport(state, c.snapshot(k * ROUND)).state();
            for (int i = 0; i < c.loads().size(); i++) {
                double r = c.ratio(i);
                double w = state.weight(c.loads().get(i).node());
                if (r > 1 + c.deadband()) {
                    assertThat(w).isLessThanOrEqualTo(previous.get(i));
                } else if (r < 1 - c.deadband()) {
                    assertThat(w).isGreaterThanOrEqualTo(previous.get(i));
                }
                previous.set(i, w);
            }
        }
    }

    /**
     * A node whose heat share responds to its own weight — it shares all its slots with the rest of
     * the cluster, so its share is {@code w·a / (w·a + b)} — approaches its balance point without
     * ever crossing it: the load ratio keeps its side of 1 (or enters the deadband), and its distance
     * from 1 never grows.
     */
    @Property
    void aNodeWhoseShareFollowsItsWeightApproachesBalanceWithoutOvershoot(
            @ForAll @DoubleRange(min = 0.01, max = 0.99) double initialShare,
            @ForAll @DoubleRange(min = 0.01, max = 0.99) double capacityShare,
            @ForAll @IntRange(min = 2, max = 48) int others) {
        WeightController controller = new WeightController(ControllerSettings.defaults());
        double a = initialShare;
        double b = 1 - initialShare;
        ControllerState state = controller.onHeatConfirmed(ControllerState.initial(), 0);
        double w = 1.0;
        double previousError = Double.NaN;
        for (int k = 1; k <= 60; k++) {
            double share = w * a / (w * a + b);
            double r = share / capacityShare;
            double error = Math.log(r);
            if (!Double.isNaN(previousError) && Math.abs(Math.exp(error) - 1) > 0.05) {
                assertThat(Math.signum(error)).as("round %d keeps its side of balance", k)
                        .isEqualTo(Math.signum(previousError));
                assertThat(Math.abs(error)).isLessThanOrEqualTo(Math.abs(previousError) + 1e-12);
            }
            previousError = error;
            List<NodeLoad> loads = new ArrayList<>();
            loads.add(new NodeLoad("x", share * 1e6, capacityShare * 1e6));
            // the rest of the cluster: equal nodes sharing the remaining heat and capacity
            for (int j = 0; j < others; j++) {
                loads.add(new NodeLoad("o" + j, (1 - share) * 1e6 / others, (1 - capacityShare) * 1e6 / others));
            }
            Round round = controller.onReport(state, new LoadSnapshot("c1", k * ROUND, 0.5, loads));
            state = round.state();
            // only x's weight matters to its share here: the others move together and equally
            w = state.weight("x") / state.weight("o0");
        }
    }
}
