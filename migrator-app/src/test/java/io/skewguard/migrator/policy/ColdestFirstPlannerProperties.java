package io.skewguard.migrator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

class ColdestFirstPlannerProperties {

    private final ColdestFirstPlanner planner = new ColdestFirstPlanner();

    @Property(tries = 200)
    void neverMovesMoreThanOnePointTwoTimesThePositiveExcess(
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed,
            @ForAll @IntRange(min = 2, max = 40) int nodes,
            @ForAll @IntRange(min = 1, max = 200) int slots,
            @ForAll @IntRange(min = 1, max = 8) int m) {
        ClusterSnapshot snapshot = RandomClusters.of(new Random(seed), nodes, slots, m);

        MigrationPlan plan = planner.plan(snapshot);

        double u = snapshot.targetUtilisation();
        double positiveExcess = snapshot.nodes().stream()
                .mapToDouble(n -> Math.max(0, n.usedBytes() - u * n.totalBytes())).sum();
        assertThat((double) plan.bytesMoved()).isLessThanOrEqualTo(1.2 * positiveExcess + 1);
    }

    @Property(tries = 200)
    void everyMoveLowersTheCvAndRespectsTheCandidateSetAsItStandsThen(
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed,
            @ForAll @IntRange(min = 2, max = 40) int nodes,
            @ForAll @IntRange(min = 1, max = 200) int slots,
            @ForAll @IntRange(min = 1, max = 8) int m) {
        ClusterSnapshot snapshot = RandomClusters.of(new Random(seed), nodes, slots, m);

        MigrationPlan plan = planner.plan(snapshot);

        Map<Integer, List<String>> sets = new HashMap<>();
        snapshot.candidateSets().forEach((slot, set) -> sets.put(slot, new ArrayList<>(set)));
        double cv = snapshot.capacityCv();
        List<Move> done = new ArrayList<>();
        for (Move move : plan.moves()) {
            List<String> set = sets.get(move.slot());
            assertThat(set).contains(move.source()).doesNotContain(move.target());
            set.set(set.indexOf(move.source()), move.target());
            done.add(move);
            double next = ColdestFirstPlannerTest.cvAfter(snapshot, done);
            assertThat(next).isLessThan(cv);
            cv = next;
        }
        if (plan.outcome() == MigrationPlan.Outcome.REACHES_TARGET) {
            assertThat(plan.projectedCv()).isLessThanOrEqualTo(planner.targetCv());
        }
    }

    @Property(tries = 100)
    void aClusterAtOrBelowTheTargetGetsNoMove(
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed, @ForAll @IntRange(min = 1, max = 30) int nodes) {
        Random random = new Random(seed);
        SnapshotBuilder b = SnapshotBuilder.cluster();
        for (int i = 0; i < nodes; i++) {
            long total = 1_000_000L + random.nextInt(1_000_000);
            // every node within ±9 % of 50 %: CV below 0.10
            long used = (long) (total * (0.5 + (random.nextDouble() - 0.5) * 0.09));
            b.node("n" + i, used, total).slot(i, "n" + i).shard(i, "n" + i, used / 2, 0);
        }
        ClusterSnapshot snapshot = b.build();

        MigrationPlan plan = planner.plan(snapshot);

        assertThat(snapshot.capacityCv()).isLessThanOrEqualTo(0.10);
        assertThat(plan.moves()).isEmpty();
        assertThat(plan.outcome()).isEqualTo(MigrationPlan.Outcome.BALANCED);
    }
}
