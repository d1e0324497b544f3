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
}
