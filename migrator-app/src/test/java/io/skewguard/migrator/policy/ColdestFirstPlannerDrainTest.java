package io.skewguard.migrator.policy;

import static io.skewguard.migrator.policy.SnapshotBuilder.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ColdestFirstPlannerDrainTest {

    private static final long GB = 1L << 30;

    private final ColdestFirstPlanner planner = new ColdestFirstPlanner();

    @Test
    void aDrainingNodeGivesAwayEveryShardWithBytesEvenInABalancedCluster() {
        // every node at 50 %: no CV objective would move anything, the drain still empties d
        ClusterSnapshot snapshot = cluster()
                .node("a", 50 * GB, 100 * GB).node("b", 50 * GB, 100 * GB).node("c", 50 * GB, 100 * GB)
                .node("d", 50 * GB, 100 * GB).node("e", 10 * GB, 100 * GB)
                .slot(0, "d", "a").slot(1, "d", "b").slot(2, "d", "c").slot(3, "d", "e")
                .shard(0, "d", 20 * GB, 9).shard(1, "d", 20 * GB, 1).shard(2, "d", 10 * GB, 5).shard(3, "d", 0, 0)
                .draining("d")
                .build();

        MigrationPlan plan = planner.plan(snapshot);

        assertThat(plan.moves()).filteredOn(m -> m.source().equals("d")).extracting(Move::slot).containsExactly(1, 2, 0);
        assertThat(plan.moves()).noneMatch(m -> m.target().equals("d"));
    }

    @Test
    void aDrainingNodeIsNeverATargetEvenWhenItIsTheEmptiest() {
        ClusterSnapshot snapshot = cluster()
                .node("a", 90 * GB, 100 * GB).node("b", 40 * GB, 100 * GB).node("d", 0, 100 * GB)
                .slot(0, "a").slot(1, "a").slot(2, "a")
                .shard(0, "a", 20 * GB, 0).shard(1, "a", 20 * GB, 1).shard(2, "a", 20 * GB, 2)
                .draining("d")
                .build();

        MigrationPlan plan = planner.plan(snapshot);

        assertThat(plan.moves()).isNotEmpty().noneMatch(m -> m.target().equals("d"));
    }

    @Test
    void theDrainIsNotBoundByTheOvershootAndTheCvIsThatOfTheRemainingNodes() {
        // d holds 80 GB; a and b hold nothing: u* over a and b is 0.4, and all 80 GB go
        ClusterSnapshot snapshot = cluster()
                .node("a", 0, 100 * GB).node("b", 0, 100 * GB).node("d", 80 * GB, 100 * GB)
                .slot(0, "d").slot(1, "d").slot(2, "d").slot(3, "d")
                .shard(0, "d", 20 * GB, 0).shard(1, "d", 20 * GB, 0).shard(2, "d", 20 * GB, 0).shard(3, "d", 20 * GB, 0)
                .draining("d")
                .build();

        MigrationPlan plan = planner.plan(snapshot);

        assertThat(plan.moves()).hasSize(4).allMatch(m -> m.source().equals("d"));
        assertThat(plan.moves().stream().filter(m -> m.target().equals("a")).count()).isEqualTo(2);
        assertThat(plan.projectedCv()).isLessThanOrEqualTo(0.10);
        assertThat(plan.outcome()).isEqualTo(MigrationPlan.Outcome.REACHES_TARGET);
    }

    @Test
    void aDrainKeepsTheRackRuleOfTheCandidateSets() {
        // slot 0 = {d (r1), a (r2)}: b shares a's rack, so only c (r1) may take d's shard
        ClusterSnapshot snapshot = cluster()
                .node("a", 10 * GB, 100 * GB, "r2").node("b", 0, 100 * GB, "r2").node("c", 30 * GB, 100 * GB, "r1")
                .node("d", 20 * GB, 100 * GB, "r1")
                .slot(0, "d", "a").shard(0, "d", 20 * GB, 0)
                .draining("d")
                .build();

        MigrationPlan plan = planner.plan(snapshot);

        assertThat(plan.moves()).extracting(Move::target).containsExactly("c");
    }
}
