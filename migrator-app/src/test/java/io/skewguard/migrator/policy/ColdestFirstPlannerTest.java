package io.skewguard.migrator.policy;

import static io.skewguard.migrator.policy.SnapshotBuilder.cluster;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.core.stats.CoefficientOfVariation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ColdestFirstPlannerTest {

    private static final long GB = 1L << 30;

    private final ColdestFirstPlanner planner = new ColdestFirstPlanner();
    private final ColdestFirstPlanner plainPlanner = new ColdestFirstPlanner(ColdestFirstPlanner.DEFAULT_TARGET_CV, ColdestFirstPlanner.DEFAULT_OVERSHOOT, false);

    @Test
    void balancedClusterYieldsNoMove() {
        ClusterSnapshot balanced = cluster()
                .node("a", 50 * GB, 100 * GB).node("b", 52 * GB, 100 * GB).node("c", 100 * GB, 200 * GB)
                .slot(0, "a", "b").shard(0, "a", 10 * GB, 1).shard(0, "b", 10 * GB, 1)
                .build();

        MigrationPlan plan = planner.plan(balanced);

        assertThat(plan.moves()).isEmpty();
        assertThat(plan.outcome()).isEqualTo(MigrationPlan.Outcome.BALANCED);
    }

    @Test
    void overloadedNodeGivesUpItsColdestShardFirst() {
        ClusterSnapshot skewed = cluster()
                .node("a", 90 * GB, 100 * GB).node("b", 30 * GB, 100 * GB).node("c", 30 * GB, 100 * GB)
                .slot(1, "a").slot(2, "a").slot(3, "a")
                .shard(1, "a", 10 * GB, 500).shard(2, "a", 10 * GB, 5).shard(3, "a", 10 * GB, 80)
                .build();

        MigrationPlan plan = planner.plan(skewed);

        assertThat(plan.moves()).isNotEmpty();
        assertThat(plan.moves().get(0).slot()).isEqualTo(2);
        assertThat(plan.moves().get(0).source()).isEqualTo("a");
        if (plan.moves().size() > 1) {
            assertThat(plan.moves().get(1).slot()).isEqualTo(3);
        }
    }

    @Test
    void shardGoesToTheEmptiestNodeNotAlreadyInItsCandidateSet() {
        // d is the emptiest but already holds slot 1; c is the emptiest eligible
        ClusterSnapshot skewed = cluster()
                .node("a", 95 * GB, 100 * GB).node("b", 40 * GB, 100 * GB)
                .node("c", 30 * GB, 100 * GB).node("d", 10 * GB, 100 * GB)
                .slot(1, "a", "d").slot(2, "b")
                .shard(1, "a", 20 * GB, 0).shard(1, "d", 20 * GB, 0)
                .build();

        MigrationPlan plan = planner.plan(skewed);

        assertThat(plan.moves()).first().isEqualTo(new Move(1, "a", "c", 20 * GB));
    }

    @Test
    void targetOnARackTheCandidateSetAlreadyUsesIsNotEligibleWhenTheSourceRackWouldBeLost() {
        // slot 7 = {a@r1, b@r2}; a is overloaded. c (r2) is emptiest but would leave {c@r2, b@r2}: one rack
        ClusterSnapshot skewed = cluster()
                .node("a", 90 * GB, 100 * GB, "r1").node("b", 50 * GB, 100 * GB, "r2")
                .node("c", 10 * GB, 100 * GB, "r2").node("d", 30 * GB, 100 * GB, "r3")
                .slot(7, "a", "b").shard(7, "a", 20 * GB, 0).shard(7, "b", 20 * GB, 0)
                .build();

        MigrationPlan plan = planner.plan(skewed);

        assertThat(plan.moves()).first().isEqualTo(new Move(7, "a", "d", 20 * GB));
    }

    @Test
    void sameRackTargetIsFineWhenTheSourceRackIsNotTheOnlyCopyOfThatRack() {
        // slot 7 = {a@r1, b@r1}: moving a to c@r1 keeps the number of racks
        ClusterSnapshot skewed = cluster()
                .node("a", 90 * GB, 100 * GB, "r1").node("b", 50 * GB, 100 * GB, "r1")
                .node("c", 10 * GB, 100 * GB, "r1").node("d", 30 * GB, 100 * GB, "r2")
                .slot(7, "a", "b").shard(7, "a", 20 * GB, 0)
                .build();

        MigrationPlan plan = planner.plan(skewed);

        assertThat(plan.moves()).first().isEqualTo(new Move(7, "a", "c", 20 * GB));
    }

    @Test
    void stopsAsSoonAsTheProjectedCvIsAtTheTarget() {
        ClusterSnapshot skewed = manyShardsOnOneNode();

        MigrationPlan plan = planner.plan(skewed);

        assertThat(plan.outcome()).isEqualTo(MigrationPlan.Outcome.REACHES_TARGET);
        assertThat(plan.projectedCv()).isLessThanOrEqualTo(0.10);
        List<Move> allButLast = plan.moves().subList(0, plan.moves().size() - 1);
        assertThat(cvAfter(skewed, allButLast)).isGreaterThan(0.10);
    }

    @Test
    void projectedCvIsTheCvOfTheClusterOnceTheMovesAreDone() {
        ClusterSnapshot skewed = manyShardsOnOneNode();

        MigrationPlan plan = planner.plan(skewed);

        assertThat(plan.currentCv()).isCloseTo(skewed.capacityCv(), org.assertj.core.data.Offset.offset(1e-9));
        assertThat(plan.projectedCv()).isCloseTo(cvAfter(skewed, plan.moves()), org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void shardsLargerThanTheSourcesAllowanceStayAndThePlanSaysNoMoveImproves() {
        // a is 10 GB above target; its only shard is 50 GB: moving it would overshoot the bound
        ClusterSnapshot skewed = cluster()
                .node("a", 60 * GB, 100 * GB).node("b", 40 * GB, 100 * GB)
                .slot(0, "a").shard(0, "a", 50 * GB, 0)
                .build();

        MigrationPlan plan = planner.plan(skewed);

        assertThat(plan.moves()).isEmpty();
        assertThat(plan.outcome()).isEqualTo(MigrationPlan.Outcome.NO_IMPROVING_MOVE);
    }

    @Test
    void samePlanForTheSameClusterWhateverTheOrderOfItsLists() {
        ClusterSnapshot skewed = RandomClusters.of(new Random(42), 40, 256, 4);
        List<NodeCapacity> nodes = new ArrayList<>(skewed.nodes());
        List<ShardLoad> shards = new ArrayList<>(skewed.shards());
        Collections.shuffle(nodes, new Random(1));
        Collections.shuffle(shards, new Random(2));

        MigrationPlan first = planner.plan(skewed);
        MigrationPlan again = planner.plan(skewed);
        MigrationPlan shuffled = planner.plan(new ClusterSnapshot(nodes, shards, skewed.candidateSets()));

        assertThat(first.moves()).isNotEmpty();
        assertThat(again).isEqualTo(first);
        assertThat(shuffled.moves()).isEqualTo(first.moves());
    }

    /** Node a at 90 % holds 40 equal cold shards; b..e at 30 %. */
    private static ClusterSnapshot manyShardsOnOneNode() {
        SnapshotBuilder b = cluster().node("a", 90 * GB, 100 * GB);
        for (String n : List.of("b", "c", "d", "e")) {
            b.node(n, 30 * GB, 100 * GB);
        }
        for (int slot = 0; slot < 40; slot++) {
            b.slot(slot, "a").shard(slot, "a", 2 * GB, slot);
        }
        return b.build();
    }

    @Test
    void aShardThatAloneHoldsItsNodeAboveTheMeanIsRelocatedToALargerNodeThatFirstMakesRoom() {
        // a holds one 85 GB shard of slot 1 (and 5 GB of other data) on 100 GB: no plan that keeps it there brings a to the mean
        // (0.243); d (200 GB) would hold it at 0.425 once its four 10 GB shards went to b, c, e and f
        ClusterSnapshot stuck = blocked(90 * GB)
                .build();

        MigrationPlan plain = plainPlanner.plan(stuck);
        MigrationPlan plan = planner.plan(stuck);

        // without relocations: no move, a stays at 0.90
        assertThat(plain.outcome()).isEqualTo(MigrationPlan.Outcome.NO_IMPROVING_MOVE);
        assertThat(plain.moves()).isEmpty();
        // with them: d's shards go first (all of one size: coldest first), each to the emptiest node that stays under the mean
        assertThat(plan.moves().subList(0, 4)).extracting(Move::source).containsOnly("d");
        assertThat(plan.moves().subList(0, 4)).extracting(Move::slot).containsExactly(10, 11, 12, 13);
        assertThat(plan.moves().subList(0, 4)).extracting(Move::target).containsExactlyInAnyOrder("b", "c", "e", "f");
        assertThat(plan.moves().get(4)).isEqualTo(new Move(1, "a", "d", 85 * GB));
        assertThat(plan.projectedCv()).isLessThan(plain.projectedCv() - ColdestFirstPlanner.MIN_RELOCATION_GAIN);
        assertThat(cvAfter(stuck, plan.moves())).isCloseTo(plan.projectedCv(), org.assertj.core.data.Offset.offset(1e-9));
        // the batches run d's giving before the relocation: the first starts d→b only of d's moves, not a→d
        assertThat(BatchSelection.select(plan.moves(), 16)).doesNotContain(new Move(1, "a", "d", 85 * GB));
    }

    @Test
    void aRelocationStartsBesideThePlainMovesWhichRunFirstAndTheEmptiedNodeIsFilledOnlyAfterItsShardLeft() {
        // as above, and g (60 of 100 GB in 10 GB shards) gives to h (empty) whatever a and d do
        ClusterSnapshot stuck = blocked(90 * GB).node("g", 60 * GB, 100 * GB).node("h", 0, 100 * GB)
                .slot(20, "g").shard(20, "g", 10 * GB, 1).slot(21, "g").shard(21, "g", 10 * GB, 2)
                .slot(22, "g").shard(22, "g", 10 * GB, 3).slot(23, "g").shard(23, "g", 10 * GB, 4)
                .slot(24, "g").shard(24, "g", 10 * GB, 5).slot(25, "g").shard(25, "g", 10 * GB, 6)
                .build();

        // the plain plan has moves (g gives) and stops above the target, held by a's shard
        MigrationPlan plain = plainPlanner.plan(stuck);
        assertThat(plain.moves()).isNotEmpty().extracting(Move::source).containsOnly("g");
        assertThat(plain.outcome()).isEqualTo(MigrationPlan.Outcome.NO_IMPROVING_MOVE);
        // the plan relocates a's shard beside those moves rather than after them: a chain of serial copies
        MigrationPlan plan = planner.plan(stuck);
        Move relocated = new Move(1, "a", "d", 85 * GB);
        assertThat(plan.projectedCv()).isLessThan(plain.projectedCv() - ColdestFirstPlanner.MIN_RELOCATION_GAIN);
        assertThat(cvAfter(stuck, plan.moves())).isCloseTo(plan.projectedCv(), org.assertj.core.data.Offset.offset(1e-9));
        List<Move> moves = plan.moves();
        int relocation = moves.indexOf(relocated);
        assertThat(relocation).isPositive();
        int firstOfD = 0;
        while (!moves.get(firstOfD).source().equals("d")) {
            firstOfD++;
        }
        assertThat(relocation).isGreaterThan(firstOfD);
        // the moves that touch neither a nor d come first: g's giving, as the plain plan has it
        assertThat(firstOfD).isPositive();
        for (int i = 0; i < firstOfD; i++) {
            assertThat(List.of(moves.get(i).source(), moves.get(i).target())).doesNotContain("a", "d");
            assertThat(moves.get(i).source()).isEqualTo("g");
        }
        for (int i = firstOfD; i < relocation; i++) {
            assertThat(moves.get(i).source()).as("d makes room").isEqualTo("d");
        }
        for (int i = 0; i < relocation; i++) {
            assertThat(moves.get(i).target()).as("a takes nothing before its shard leaves").isNotEqualTo("a");
        }
        assertThat(moves.subList(relocation + 1, moves.size())).extracting(Move::target).contains("a");
        // the first batch runs g's giving and d's first giving, not the relocation itself
        List<Move> batch = BatchSelection.select(moves, 16);
        assertThat(batch).extracting(Move::source).contains("g", "d");
        assertThat(batch).doesNotContain(relocated);
        // once d has made part of its room, the next plan goes on with the same relocation: d is not filled again
        MigrationPlan again = planner.plan(ColdestFirstPlannerProperties.after(stuck, batch));
        assertThat(again.moves()).contains(relocated);
        assertThat(again.moves().subList(0, again.moves().indexOf(relocated))).extracting(Move::target).doesNotContain("d");
    }

    @Test
    void aNodeThatMakesRoomGivesTheLargestShardsThatFitFirstSoThatItsChainOfSerialCopiesIsShort() {
        // a's 85 GB shard goes to d (400 GB); d must give about 68 GB of its 100: ten 4 GB shards (coldest) and
        // one of 60 GB. Coldest first that is all ten and then the 60 GB one, eleven serial copies; the largest
        // that fit first, the 60 GB one and then as few 4 GB ones as the rest of the room needs
        SnapshotBuilder b = cluster().node("a", 90 * GB, 100 * GB).node("d", 100 * GB, 400 * GB).node("g", 0, 300 * GB)
                .slot(1, "a").shard(1, "a", 85 * GB, 900).slot(2, "a").shard(2, "a", 5 * GB, 1)
                .slot(20, "d").shard(20, "d", 60 * GB, 11);
        for (int slot = 10; slot < 20; slot++) {
            b.slot(slot, "d").shard(slot, "d", 4 * GB, slot - 9);
        }
        for (String n : List.of("b", "c", "e", "f")) {
            b.node(n, 40 * GB, 100 * GB);
        }
        for (int i = 0; i < 4; i++) {
            b.slot(30 + i, List.of("b", "c", "e", "f").get(i)).shard(30 + i, List.of("b", "c", "e", "f").get(i), 40 * GB, 1);
        }
        ClusterSnapshot stuck = b.build();

        MigrationPlan plan = planner.plan(stuck);

        Move relocated = new Move(1, "a", "d", 85 * GB);
        assertThat(plan.moves()).contains(relocated);
        List<Move> room = plan.moves().subList(0, plan.moves().indexOf(relocated)).stream()
                .filter(m -> m.source().equals("d")).toList();
        assertThat(room).extracting(Move::slot).containsExactly(20, 10, 11, 12);
        assertThat(cvAfter(stuck, plan.moves())).isCloseTo(plan.projectedCv(), org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void aNodeWhoseReportListsAByteMoreThanItUsesEndsAtZeroNotBelowIt() {
        // a's report rounds: its one shard is a byte more than its used bytes; relocated, a holds nothing
        ClusterSnapshot rounded = blocked(85 * GB - 1)
                .build();

        MigrationPlan plan = planner.plan(rounded);

        assertThat(plan.moves()).contains(new Move(1, "a", "d", 85 * GB));
        assertThat(plan.projectedCv()).isFinite().isLessThan(plan.currentCv());
    }

    @Test
    void noRelocationWhereNoNodeWouldCutTheShardsExcessEnough() {
        // every node has 100 GB: the 85 GB shard weighs 0.85 wherever it goes; the plain plan has no move
        ClusterSnapshot stuck = cluster()
                .node("a", 90 * GB, 100 * GB).node("b", 10 * GB, 100 * GB).node("c", 10 * GB, 100 * GB)
                .slot(1, "a").shard(1, "a", 85 * GB, 900)
                .slot(3, "b").shard(3, "b", 10 * GB, 1).slot(4, "c").shard(4, "c", 10 * GB, 1)
                .build();

        assertThat(plainPlanner.plan(stuck).moves()).isEmpty();
        assertThat(planner.plan(stuck)).isEqualTo(plainPlanner.plan(stuck));
        assertThat(planner.plan(stuck).outcome()).isEqualTo(MigrationPlan.Outcome.NO_IMPROVING_MOVE);
    }

    @Test
    void aPlanThatReachesItsTargetIsNeverReplacedByRelocations() {
        // a's 70 GB shard weighs 0.7 there and 0.35 on d, but a's other shards alone bring the CV under 0.3
        ClusterSnapshot reachable = cluster()
                .node("a", 95 * GB, 100 * GB).node("d", 40 * GB, 200 * GB).node("b", 40 * GB, 100 * GB)
                .slot(1, "a").shard(1, "a", 70 * GB, 900).slot(2, "a").shard(2, "a", 25 * GB, 1)
                .slot(10, "d").shard(10, "d", 40 * GB, 1).slot(3, "b").shard(3, "b", 40 * GB, 1)
                .build();
        ColdestFirstPlanner loose = new ColdestFirstPlanner(0.5, ColdestFirstPlanner.DEFAULT_OVERSHOOT);
        ColdestFirstPlanner looseAndPlain = new ColdestFirstPlanner(0.5, ColdestFirstPlanner.DEFAULT_OVERSHOOT, false);

        MigrationPlan plan = loose.plan(reachable);

        assertThat(plan.outcome()).isEqualTo(MigrationPlan.Outcome.REACHES_TARGET);
        assertThat(plan).isEqualTo(looseAndPlain.plan(reachable));
        assertThat(plan.moves()).extracting(Move::slot).doesNotContain(1);
    }

    /**
     * a holds one 85 GB shard of slot 1 (and other data up to {@code usedByA}) on 100 GB; d (200 GB)
     * holds four 10 GB shards; b, c, e and f (100 GB) one 10 GB shard each.
     */
    private static SnapshotBuilder blocked(long usedByA) {
        return cluster().node("a", usedByA, 100 * GB).node("d", 40 * GB, 200 * GB)
                .node("b", 10 * GB, 100 * GB).node("c", 10 * GB, 100 * GB).node("e", 10 * GB, 100 * GB).node("f", 10 * GB, 100 * GB)
                .slot(1, "a").shard(1, "a", 85 * GB, 900)
                .slot(3, "b").shard(3, "b", 10 * GB, 1).slot(4, "c").shard(4, "c", 10 * GB, 1)
                .slot(5, "e").shard(5, "e", 10 * GB, 1).slot(6, "f").shard(6, "f", 10 * GB, 1)
                .slot(10, "d").shard(10, "d", 10 * GB, 1).slot(11, "d").shard(11, "d", 10 * GB, 2)
                .slot(12, "d").shard(12, "d", 10 * GB, 3).slot(13, "d").shard(13, "d", 10 * GB, 4);
    }

    static double cvAfter(ClusterSnapshot snapshot, List<Move> moves) {
        Map<String, Long> used = new HashMap<>();
        Map<String, Long> total = new HashMap<>();
        for (NodeCapacity n : snapshot.nodes()) {
            used.put(n.node(), n.usedBytes());
            total.put(n.node(), n.totalBytes());
        }
        for (Move m : moves) {
            used.merge(m.source(), -m.bytes(), Long::sum);
            used.merge(m.target(), m.bytes(), Long::sum);
        }
        double[] u = snapshot.nodes().stream().mapToDouble(n -> (double) used.get(n.node()) / total.get(n.node())).toArray();
        return CoefficientOfVariation.of(u);
    }

    @Test
    void anExcludedNodeIsNeitherSourceNorTargetButCountsInTheCv() {
        // a and b are overloaded, c and d empty; a and d are excluded: only b gives, only c takes
        SnapshotBuilder b = cluster()
                .node("a", 90 * GB, 100 * GB).node("b", 90 * GB, 100 * GB).node("c", 10 * GB, 100 * GB).node("d", 10 * GB, 100 * GB);
        for (int slot = 0; slot < 8; slot++) {
            b.slot(slot, "a").shard(slot, "a", 10 * GB, slot);
            b.slot(8 + slot, "b").shard(8 + slot, "b", 10 * GB, slot);
        }
        ClusterSnapshot free = b.build();
        ClusterSnapshot excluding = b.excluded("a").excluded("d").build();

        MigrationPlan plan = planner.plan(excluding);

        assertThat(plan.moves()).isNotEmpty().allSatisfy(m -> {
            assertThat(m.source()).isEqualTo("b");
            assertThat(m.target()).isEqualTo("c");
        });
        assertThat(plan.currentCv()).as("the excluded nodes count in the CV").isEqualTo(planner.plan(free).currentCv());
        assertThat(plan.outcome()).isEqualTo(MigrationPlan.Outcome.NO_IMPROVING_MOVE);
    }

    @Test
    void anExcludedDrainingNodeGivesNothing() {
        ClusterSnapshot snapshot = cluster()
                .node("a", 50 * GB, 100 * GB).node("b", 10 * GB, 100 * GB).node("c", 10 * GB, 100 * GB)
                .slot(0, "a").shard(0, "a", 50 * GB, 0)
                .draining("a").excluded("a")
                .build();

        assertThat(planner.plan(snapshot).moves()).isEmpty();
    }
}
