package io.skewguard.sim.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.migrator.policy.AppliedMove;
import io.skewguard.migrator.policy.ClusterSnapshot;
import io.skewguard.migrator.policy.ClusterView;
import io.skewguard.migrator.policy.ColdestFirstPlanner;
import io.skewguard.migrator.policy.MigrationPlan;
import io.skewguard.migrator.policy.Move;
import io.skewguard.migrator.policy.NodeCapacity;
import io.skewguard.sim.model.Cluster;
import io.skewguard.sim.policy.SkewGuardLoop;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioEvent;
import io.skewguard.sim.scenario.ScenarioLibrary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The plans the migrator makes from {@code scale-512}'s cluster when its repair starts (day 3): the
 * Zipf 0.8 history leaves shards of 30–94 TB that alone hold their nodes far above the mean, so plain
 * plans, one after the other, stop above 0.10 with no move left; plans with relocations (two beside the
 * plain moves, up to eight once those are done) go on to under 0.09. Seconds: the model's first three days and the plans, no topology, no copying
 * (each plan's moves are taken as done before the next).
 */
class Scale512PlanTest {

    private static final long DAY = 86_400_000L;

    @Test
    void theRepairsPlansWithRelocationsGoUnderWhatTheScaleAsksForWherePlainPlansStopAbove() {
        Scenario scenario = ScenarioLibrary.load("scale-512");
        ClusterView view = atRepairStart(scenario);
        double target = scenario.skewguard().migrationTargetCv();
        double overshoot = scenario.skewguard().overshoot();
        assertThat(target).isLessThanOrEqualTo(0.09);

        Repair plain = Repair.of(view, new ColdestFirstPlanner(target, overshoot, false));
        Repair relocating = Repair.of(view, new ColdestFirstPlanner(target, overshoot));

        assertThat(plain.last.moves()).isEmpty();
        assertThat(plain.last.outcome()).isEqualTo(MigrationPlan.Outcome.NO_IMPROVING_MOVE);
        assertThat(plain.last.currentCv()).isGreaterThan(0.10);
        // 0.080 when they stop, the 0.08 they aim at, under the 0.09 the scale asks for
        assertThat(relocating.last.currentCv()).isLessThanOrEqualTo(0.09);
        assertThat(relocating.plans()).isGreaterThan(plain.plans());
    }

    /**
     * The repair's plans one after the other, each made from the cluster the one before leaves with
     * all its moves done (as if every copy ran at once; no time, no writes), until a plan has no move.
     * Every move is checked against the slot table as it stands then, and no node may end a plan over
     * its capacity.
     */
    private record Repair(MigrationPlan last, int plans) {
        static Repair of(ClusterView view, ColdestFirstPlanner planner) {
            Map<Integer, List<String>> sets = new HashMap<>(view.candidateSets());
            List<AppliedMove> done = new ArrayList<>();
            for (int round = 1; round <= 40; round++) {
                ClusterSnapshot snapshot = view.snapshot(sets, done);
                MigrationPlan plan = planner.plan(snapshot);
                if (plan.moves().isEmpty()) {
                    return new Repair(plan, round);
                }
                Map<String, Long> used = new HashMap<>();
                Map<String, Long> total = new HashMap<>();
                for (NodeCapacity n : snapshot.nodes()) {
                    used.put(n.node(), n.usedBytes());
                    total.put(n.node(), n.totalBytes());
                }
                for (Move move : plan.moves()) {
                    List<String> set = new ArrayList<>(sets.get(move.slot()));
                    assertThat(set).contains(move.source()).doesNotContain(move.target());
                    set.set(set.indexOf(move.source()), move.target());
                    sets.put(move.slot(), set);
                    done.add(new AppliedMove(move.slot(), move.source(), move.target(), move.bytes(), Long.MAX_VALUE, Long.MAX_VALUE));
                    used.merge(move.source(), -move.bytes(), Long::sum);
                    used.merge(move.target(), move.bytes(), Long::sum);
                }
                used.forEach((node, bytes) -> assertThat(bytes).as(node).isBetween(0L, total.get(node)));
            }
            throw new AssertionError("the plans still had moves after 40 rounds");
        }
    }

    /** The model played to {@code repair.from} as {@link Simulation} plays it, and the migrator's view of it then. */
    private static ClusterView atRepairStart(Scenario scenario) {
        Cluster cluster = new Cluster(scenario);
        List<ScenarioEvent> events = scenario.events();
        int next = 0;
        long step = scenario.stepMillis();
        for (long now = 0; now <= scenario.repairFromMillis(); now += step) {
            while (next < events.size() && events.get(next).atMillis() <= now) {
                cluster.apply(events.get(next++));
            }
            double days = now / (double) DAY;
            double rate = scenario.writes().bytesPerDay() * Math.pow(1 + scenario.writes().growthPerDay(), days)
                    * (1 + scenario.writes().diurnalAmplitude() * Math.sin(2 * Math.PI * days));
            cluster.write(rate * step / DAY, true);
        }
        return SkewGuardLoop.viewOf(cluster, scenario.repairFromMillis());
    }
}
