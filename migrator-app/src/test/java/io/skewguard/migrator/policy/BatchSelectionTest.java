package io.skewguard.migrator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class BatchSelectionTest {

    @Test
    void aNodeTakesPartInAtMostOneMigrationAsSourceOrTarget() {
        List<Move> plan = List.of(
                new Move(1, "a", "x", 1), new Move(2, "a", "y", 1), new Move(3, "b", "x", 1), new Move(4, "x", "c", 1),
                new Move(5, "b", "y", 1));

        assertThat(BatchSelection.select(plan, 10)).containsExactly(new Move(1, "a", "x", 1), new Move(5, "b", "y", 1));
    }

    @Test
    void aSlotMovesAtMostOncePerBatch() {
        List<Move> plan = List.of(new Move(1, "a", "x", 1), new Move(1, "b", "y", 1));

        assertThat(BatchSelection.select(plan, 10)).containsExactly(new Move(1, "a", "x", 1));
    }

    @Test
    void disjointPairsRunInParallelUpToTheLimit() {
        List<Move> plan = List.of(new Move(1, "a", "x", 1), new Move(2, "b", "y", 1), new Move(3, "c", "z", 1));

        assertThat(BatchSelection.select(plan, 2)).containsExactly(new Move(1, "a", "x", 1), new Move(2, "b", "y", 1));
    }

    @Test
    void nextToCarriedMigrationsTheirNodesAndSlotsAreTakenAndOnlyTheFreeCountIsAdded() {
        List<Move> plan = List.of(new Move(1, "a", "x", 1), new Move(2, "b", "y", 1), new Move(3, "c", "z", 1), new Move(4, "e", "w", 1),
                new Move(5, "f", "v", 1));

        assertThat(BatchSelection.select(plan, 2, java.util.Set.of("a", "y"), java.util.Set.of(3)))
                .containsExactly(new Move(4, "e", "w", 1), new Move(5, "f", "v", 1));
        assertThat(BatchSelection.select(plan, 0, java.util.Set.of(), java.util.Set.of())).isEmpty();
    }

    @Test
    void aNodeThatStillHasToGiveTakesNothingInThisBatch() {
        // t makes room (t→u), then the big shard goes a→t, then a is refilled (b→a); t is busy with its
        // first move, so a→t waits, and a, which has yet to give, takes nothing either: b→a waits too
        List<Move> plan = List.of(new Move(1, "t", "u", 1), new Move(2, "a", "t", 9), new Move(3, "b", "a", 1), new Move(4, "c", "d", 1));

        assertThat(BatchSelection.select(plan, 10)).containsExactly(new Move(1, "t", "u", 1), new Move(4, "c", "d", 1));
        // once t has made room, the relocation starts; a still takes nothing while it gives
        assertThat(BatchSelection.select(plan.subList(1, 4), 10)).containsExactly(new Move(2, "a", "t", 9), new Move(4, "c", "d", 1));
        // and a node whose giving waits on a carried migration takes nothing meanwhile
        assertThat(BatchSelection.select(plan.subList(1, 4), 10, java.util.Set.of("t"), java.util.Set.of()))
                .containsExactly(new Move(4, "c", "d", 1));
    }
}
