package io.skewguard.migrator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotAssemblerTest {

    private final Map<Integer, List<String>> table = Map.of(0, List.of("a", "b"), 1, List.of("b", "c"));

    @Test
    void aShardTakesItsSlotsHeatAndCountsOnlyWhereItsNodeIsACandidate() {
        List<CapacityReading> readings = List.of(
                new CapacityReading("a", 50, 100, "r1", Map.of(0, 30L, 1, 5L), 10),
                new CapacityReading("b", 40, 100, null, Map.of(0, 20L, 1, 20L), 10));

        ClusterSnapshot snapshot = SnapshotAssembler.assemble(readings, new long[] {700}, table, List.of());

        // a's bytes of slot 1 are left-overs (a is not a candidate of slot 1); slot 1 has no heat figure
        assertThat(snapshot.shards()).containsExactlyInAnyOrder(
                new ShardLoad(0, "a", 30, 700), new ShardLoad(0, "b", 20, 700), new ShardLoad(1, "b", 20, 0));
        assertThat(snapshot.nodes()).contains(new NodeCapacity("a", 50, 100, "r1"));
    }

    @Test
    void aCommittedMoveTheReportsDoNotShowYetIsAppliedToTheFigures() {
        // slot 0 went from a to c: c committed at 20, a cleaned up at 25; both reports were read at 10
        AppliedMove move = new AppliedMove(0, "a", "c", 30, 20, 25);
        Map<Integer, List<String>> after = Map.of(0, List.of("c", "b"), 1, List.of("b", "c"));
        List<CapacityReading> stale = List.of(
                new CapacityReading("a", 50, 100, null, Map.of(0, 30L), 10),
                new CapacityReading("c", 10, 100, null, Map.of(1, 10L), 10));

        ClusterSnapshot snapshot = SnapshotAssembler.assemble(stale, new long[0], after, List.of(move));

        assertThat(snapshot.nodes()).containsExactlyInAnyOrder(new NodeCapacity("a", 20, 100, null), new NodeCapacity("c", 40, 100, null));
        assertThat(snapshot.shards()).containsExactlyInAnyOrder(new ShardLoad(0, "c", 30, 0), new ShardLoad(1, "c", 10, 0));
        assertThat(SnapshotAssembler.stillUnreported(List.of(move), stale)).containsExactly(move);
    }

    @Test
    void reportsReadAfterTheMoveAreTakenAsTheyAreAndTheMoveIsForgotten() {
        AppliedMove move = new AppliedMove(0, "a", "c", 30, 20, 25);
        Map<Integer, List<String>> after = Map.of(0, List.of("c", "b"));
        List<CapacityReading> fresh = List.of(
                new CapacityReading("a", 20, 100, null, Map.of(), 25),
                new CapacityReading("c", 41, 100, null, Map.of(0, 31L), 20));

        ClusterSnapshot snapshot = SnapshotAssembler.assemble(fresh, new long[0], after, List.of(move));

        assertThat(snapshot.nodes()).containsExactlyInAnyOrder(new NodeCapacity("a", 20, 100, null), new NodeCapacity("c", 41, 100, null));
        assertThat(SnapshotAssembler.stillUnreported(List.of(move), fresh)).isEmpty();
    }
}
