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
import net.jqwik.api.statistics.Statistics;

class ColdestFirstPlannerProperties {

    private final ColdestFirstPlanner planner = new ColdestFirstPlanner();
    private final ColdestFirstPlanner plainPlanner = new ColdestFirstPlanner(ColdestFirstPlanner.DEFAULT_TARGET_CV, ColdestFirstPlanner.DEFAULT_OVERSHOOT, false);

    @Property(tries = 200)
    void withoutRelocationsNeverMovesMoreThanOnePointTwoTimesThePositiveExcess(
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed,
            @ForAll @IntRange(min = 2, max = 40) int nodes,
            @ForAll @IntRange(min = 1, max = 200) int slots,
            @ForAll @IntRange(min = 1, max = 8) int m) {
        ClusterSnapshot snapshot = RandomClusters.of(new Random(seed), nodes, slots, m);

        MigrationPlan plan = plainPlanner.plan(snapshot);

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

        MigrationPlan plan = plainPlanner.plan(snapshot);

        double cv = snapshot.capacityCv();
        List<Move> done = new ArrayList<>();
        Map<Integer, List<String>> sets = sets(snapshot);
        for (Move move : plan.moves()) {
            follow(sets, move);
            done.add(move);
            double next = ColdestFirstPlannerTest.cvAfter(snapshot, done);
            assertThat(next).isLessThan(cv);
            cv = next;
        }
        if (plan.outcome() == MigrationPlan.Outcome.REACHES_TARGET) {
            assertThat(plan.projectedCv()).isLessThanOrEqualTo(planner.targetCv());
        }
    }

    /**
     * Clusters with blocking shards (a shard of up to 95 % of its node), once the plain plan has run:
     * the plan is the plain one unless that one stops above the target (here it has no move left); a
     * plan with relocations is then lower by the minimum gain, every move respects the candidate set as
     * it stands then, and the plan as a whole lowers the CV to what it projects.
     */
    @Property(tries = 1000)
    void aPlanWithRelocationsIsTakenOnlyWhereThePlainOneStopsAndItEndsLower(
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed,
            @ForAll @IntRange(min = 4, max = 40) int nodes,
            @ForAll @IntRange(min = 4, max = 200) int slots,
            @ForAll @IntRange(min = 2, max = 8) int m) {
        ClusterSnapshot blocked = RandomClusters.withBlockers(new Random(seed), nodes, slots, m);
        // the cluster once the plain plan has run: relocations are for where it has nothing left
        ClusterSnapshot snapshot = after(blocked, plainPlanner.plan(blocked).moves());
        relocationsOnlyWhereThePlainPlanStopsAndLower(snapshot);
    }

    /**
     * The same clusters before any plan has run, where the plain plan still has moves: a plan with
     * relocations beside them obeys the same rules.
     */
    @Property(tries = 500)
    void relocationsBesideThePlainMovesFollowTheSameRules(
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long seed,
            @ForAll @IntRange(min = 4, max = 40) int nodes,
            @ForAll @IntRange(min = 4, max = 200) int slots,
            @ForAll @IntRange(min = 2, max = 8) int m) {
        relocationsOnlyWhereThePlainPlanStopsAndLower(RandomClusters.withBlockers(new Random(seed), nodes, slots, m));
    }

    private void relocationsOnlyWhereThePlainPlanStopsAndLower(ClusterSnapshot snapshot) {
        MigrationPlan plain = plainPlanner.plan(snapshot);
        MigrationPlan plan = planner.plan(snapshot);

        boolean relocating = !plan.moves().equals(plain.moves());
        Statistics.label("relocating").collect(relocating);
        Statistics.label("relocating").coverage(checker -> checker.check(true).percentage(p -> p >= 0.5));
        if (!relocating) {
            return;
        }
        assertThat(plain.outcome()).isEqualTo(MigrationPlan.Outcome.NO_IMPROVING_MOVE);
        assertThat(plan.projectedCv()).isLessThan(plain.projectedCv() - ColdestFirstPlanner.MIN_RELOCATION_GAIN);
        Map<Integer, List<String>> sets = sets(snapshot);
        for (Move move : plan.moves()) {
            follow(sets, move);
        }
        double after = ColdestFirstPlannerTest.cvAfter(snapshot, plan.moves());
        assertThat(after).isLessThan(snapshot.capacityCv()).isCloseTo(plan.projectedCv(), org.assertj.core.data.Offset.offset(1e-9));
    }

    /** The cluster with {@code moves} done: bytes, shards and candidate sets. */
    static ClusterSnapshot after(ClusterSnapshot snapshot, List<Move> moves) {
        Map<String, Long> used = new HashMap<>();
        snapshot.nodes().forEach(n -> used.put(n.node(), n.usedBytes()));
        Map<Integer, List<String>> sets = sets(snapshot);
        List<ShardLoad> shards = new ArrayList<>(snapshot.shards());
        for (Move move : moves) {
            follow(sets, move);
            used.merge(move.source(), -move.bytes(), Long::sum);
            used.merge(move.target(), move.bytes(), Long::sum);
            for (int i = 0; i < shards.size(); i++) {
                ShardLoad s = shards.get(i);
                if (s.slot() == move.slot() && s.node().equals(move.source())) {
                    shards.set(i, new ShardLoad(s.slot(), move.target(), s.bytes(), s.heat()));
                }
            }
        }
        List<NodeCapacity> nodes = snapshot.nodes().stream()
                .map(n -> new NodeCapacity(n.node(), used.get(n.node()), n.totalBytes(), n.rack())).toList();
        return new ClusterSnapshot(nodes, shards, sets);
    }

    private static Map<Integer, List<String>> sets(ClusterSnapshot snapshot) {
        Map<Integer, List<String>> sets = new HashMap<>();
        snapshot.candidateSets().forEach((slot, set) -> sets.put(slot, new ArrayList<>(set)));
        return sets;
    }

    private static void follow(Map<Integer, List<String>> sets, Move move) {
        List<String> set = sets.get(move.slot());
        assertThat(set).contains(move.source()).doesNotContain(move.target());
        set.set(set.indexOf(move.source()), move.target());
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
