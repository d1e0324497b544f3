package io.skewguard.sim.placement;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.skewguard.sim.placement.PlacementSimulation.Change;
import io.skewguard.sim.placement.PlacementSimulation.Row;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;

class PlacementSimulationTest {

    private static List<Row> rows;

    @BeforeAll
    static void runOnce() {
        rows = new PlacementSimulation(200_000, 7, 150).run();
    }

    private static Row row(String schemePrefix, Change change) {
        return rows.stream()
                .filter(r -> r.scheme().startsWith(schemePrefix) && r.change() == change)
                .findFirst()
                .orElseThrow();
    }

    @Test
    void modNRemapsAlmostEveryKey() {
        // a key stays only if hash mod 5 == hash mod 6 (1 in 6) or hash mod 5 == hash mod 4 (1 in 5)
        assertThat(row("hash mod N", Change.GROW).movedFraction()).isCloseTo(5.0 / 6, within(0.01));
        assertThat(row("hash mod N", Change.SHRINK).movedFraction()).isCloseTo(4.0 / 5, within(0.01));
    }

    @Test
    void ringWithVirtualNodesMovesCloseToTheMinimum() {
        assertThat(row("ring, 150", Change.GROW).movedFraction()).isCloseTo(1.0 / 6, within(0.03));
        assertThat(row("ring, 150", Change.SHRINK).movedFraction()).isCloseTo(1.0 / 5, within(0.03));
    }

    @Test
    void ringsOnlyMoveKeysToTheNewNodeOrFromTheLostOne() {
        // on a ring no key moves between surviving nodes, so moved == the joining node's keys
        Row grow = row("bare ring", Change.GROW);
        assertThat(grow.movedFraction()).isLessThan(0.5);
        assertThat(row("ring, 150", Change.GROW).movedFraction()).isLessThan(row("hash mod N", Change.GROW).movedFraction());
    }

    @Test
    void virtualNodesEvenOutTheSpreadThatABareRingLeaves() {
        for (Change change : Change.values()) {
            double bare = row("bare ring", change).maxOverMin();
            double virtual = row("ring, 150", change).maxOverMin();
            assertThat(virtual).isLessThan(1.3);
            assertThat(bare).isGreaterThan(virtual);
        }
    }

    @Test
    void modNSpreadsEvenly() {
        assertThat(row("hash mod N", Change.GROW).maxOverMin()).isLessThan(1.05);
    }

    @Test
    void sameSeedGivesTheSameTable() {
        assertThat(new PlacementSimulation(20_000, 3, 50).run()).isEqualTo(new PlacementSimulation(20_000, 3, 50).run());
        assertThat(new PlacementSimulation(20_000, 3, 50).run()).isNotEqualTo(new PlacementSimulation(20_000, 4, 50).run());
    }

    @Test
    void everyKeyIsCountedOnceAfterTheChange() {
        PlacementSimulation small = new PlacementSimulation(1, 1, 1);
        assertThat(small.run()).allSatisfy(r -> assertThat(r.maxKeys()).isEqualTo(1));
    }

    @Test
    void rejectsNonsenseArguments() {
        assertThatThrownBy(() -> new PlacementSimulation(0, 1, 150)).hasMessageContaining("--keys");
        assertThatThrownBy(() -> new PlacementSimulation(10, 1, 0)).hasMessageContaining("--vnodes");
    }

    @Test
    void tableListsEverySchemeAndChange() {
        String table = PlacementTable.render(rows, 200_000, 7);
        assertThat(table).contains("hash mod N", "bare ring", "ring, 150 vnodes/node", "5→6", "5→4", "max/min");
        assertThat(table.lines().filter(l -> l.contains("%")).count()).isEqualTo(6);
    }
}
