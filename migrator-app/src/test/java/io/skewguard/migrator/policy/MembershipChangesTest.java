package io.skewguard.migrator.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.migrator.policy.MembershipChanges.Row;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MembershipChangesTest {

    private static final Map<String, String> RACKS = Map.of("a", "r1", "b", "r2", "c", "r3", "d", "r1", "e", "r2", "f", "r3");

    private static List<Row> rows() {
        return List.of(new Row(0, List.of("a", "b"), List.of()), new Row(1, List.of("c", "a"), List.of()),
                new Row(2, List.of("e", "f"), List.of()), new Row(3, List.of("d", "b"), List.of("d")));
    }

    @Test
    void aDrainMarksTheNodeReadOnlyInExactlyTheSetsHoldingIt() {
        Map<Integer, Row> marked = MembershipChanges.markReadOnly(rows(), "a");
        assertThat(marked.keySet()).containsExactly(0, 1);
        assertThat(marked.values()).allMatch(r -> r.readOnly().equals(List.of("a")) && r.candidates().contains("a"));
    }

    @Test
    void aCancelClearsOnlyThatNodesMarks() {
        assertThat(MembershipChanges.clearReadOnly(rows(), "d")).containsOnlyKeys(3);
        assertThat(MembershipChanges.clearReadOnly(rows(), "d").get(3).readOnly()).isEmpty();
        assertThat(MembershipChanges.clearReadOnly(rows(), "a")).isEmpty();
    }

    @Test
    void aLeavingNodeIsReplacedInEverySetByANodeOnAFreeRackNeverOneAlreadyThere() {
        Set<String> eligible = Set.of("b", "c", "d", "e", "f");
        Map<Integer, Row> replaced = MembershipChanges.replace(rows(), "a", RACKS, eligible, Set.of(), 4, 150);
        assertThat(replaced.keySet()).containsExactly(0, 1);
        replaced.values().forEach(r -> {
            assertThat(r.candidates()).doesNotContain("a").doesNotHaveDuplicates();
            assertThat(r.candidates().stream().map(RACKS::get).distinct().count()).isEqualTo(2);
        });
        // the same input, the same answer
        assertThat(MembershipChanges.replace(rows(), "a", RACKS, eligible, Set.of(), 4, 150)).isEqualTo(replaced);
    }

    @Test
    void slotsLeftToARunningSwitchAndInFlightTargetsAreNotTouched() {
        List<Row> rows = List.of(new Row(0, List.of("a", "b"), List.of(), "d"), new Row(1, List.of("c", "a"), List.of()));
        Map<Integer, Row> replaced = MembershipChanges.replace(rows, "a", RACKS, Set.of("b", "c", "d", "e", "f"), Set.of(1), 4, 150);
        assertThat(replaced).containsOnlyKeys(0);
        assertThat(replaced.get(0).candidates()).doesNotContain("d"); // d is copying slot 0: an abort would drop it
    }

    @Test
    void withoutAnyEligibleNodeTheSetShrinksButNeverEmpties() {
        List<Row> rows = List.of(new Row(0, List.of("a", "b"), List.of()), new Row(1, List.of("a"), List.of()));
        Map<Integer, Row> replaced = MembershipChanges.replace(rows, "a", RACKS, Set.of(), Set.of(), 2, 150);
        assertThat(replaced.get(0).candidates()).containsExactly("b");
        assertThat(replaced.get(1).candidates()).containsExactly("a");
    }

    @Test
    void aDrainIsOverOnlyWhenAReportAfterTheMarkShowsNoBytesInItsSetsAndNoBatchTouchesIt() {
        Member draining = Member.active("a", "r1", 0).draining(1_000, 2, 20);
        CapacityReading empty = new CapacityReading("a", 0, 100, "r1", Map.of(0, 0L), 2_000);
        CapacityReading holding = new CapacityReading("a", 10, 100, "r1", Map.of(1, 10L), 2_000);
        CapacityReading old = new CapacityReading("a", 0, 100, "r1", Map.of(), 500);
        assertThat(MembershipChanges.drained(draining, empty, rows(), false)).isTrue();
        assertThat(MembershipChanges.drained(draining, holding, rows(), false)).isFalse();
        assertThat(MembershipChanges.drained(draining, old, rows(), false)).isFalse();
        assertThat(MembershipChanges.drained(draining, empty, rows(), true)).isFalse();
        assertThat(MembershipChanges.drained(Member.active("a", "r1", 0), empty, rows(), false)).isFalse();
    }

    @Test
    void theRebuildNamesSlotsAndBytes() {
        assertThat(MembershipChanges.rebuild(Map.of(3, 40_000_000_000L, 17, 2_100_000_000L)))
                .isEqualTo("rebuild from replicas: 2 slots, 42 GB: slots 3 (40 GB), 17 (2.1 GB)");
        assertThat(MembershipChanges.bytes(512)).isEqualTo("512 B");
        assertThat(MembershipChanges.bytes(1_200_000_000_000L)).isEqualTo("1.2 TB");
    }

    /** Slot 0 spread over c and d, with e held. */
    private static List<Row> spreadRows() {
        return List.of(new Row(0, List.of("a", "b"), List.of(), null, List.of("c", "d"), List.of("e"), "spread"),
                new Row(1, List.of("c", "a"), List.of()));
    }

    @Test
    void aDrainMovesTheNodeFromTheSpreadToTheHeldNodesWhereItIsNoCandidate() {
        Map<Integer, Row> marked = MembershipChanges.markReadOnly(spreadRows(), "c");
        assertThat(marked.get(0).spread()).containsExactly("d");
        assertThat(marked.get(0).held()).containsExactly("e", "c");
        assertThat(marked.get(0).readOnly()).isEmpty();
        assertThat(marked.get(1).readOnly()).containsExactly("c");
    }

    @Test
    void aLeavingSpreadOrHeldNodeIsReplacedThereByANodeThatHoldsNothingOfTheSlot() {
        Set<String> eligible = Set.of("a", "b", "d", "e", "f");
        Map<Integer, Row> spreadLeft = MembershipChanges.replace(spreadRows(), "c", RACKS, eligible, Set.of(), 4, 150);
        assertThat(spreadLeft.get(0).spread()).containsExactly("f", "d");
        assertThat(spreadLeft.get(0).candidates()).containsExactly("a", "b");
        Map<Integer, Row> heldLeft = MembershipChanges.replace(spreadRows(), "e", RACKS, Set.of("a", "b", "c", "d", "f"), Set.of(), 4, 150);
        assertThat(heldLeft).containsOnlyKeys(0);
        assertThat(heldLeft.get(0).held()).containsExactly("f");
        // a leaving candidate is never replaced by one of the slot's spread or held nodes
        Map<Integer, Row> candidateLeft = MembershipChanges.replace(spreadRows(), "a", RACKS, Set.of("b", "c", "d", "e", "f"), Set.of(), 4, 150);
        assertThat(candidateLeft.get(0).candidates()).containsExactly("f", "b");
        // nothing eligible left: dropped, and what it held is named for the rebuild
        assertThat(MembershipChanges.replace(spreadRows(), "e", RACKS, Set.of(), Set.of(), 4, 150).get(0).held()).isEmpty();
        CapacityReading e = new CapacityReading("e", 10, 100, "r2", Map.of(0, 10L), 0);
        assertThat(MembershipChanges.held("e", e, spreadRows())).containsExactly(Map.entry(0, 10L));
    }

    @Test
    void aDrainIsOverOnlyOnceTheNodeHoldsNothingOfTheSlotsItSpreadOrHeldEitherAndThenItLeavesThem() {
        Member draining = Member.active("e", "r2", 0).draining(100, 1, 10);
        CapacityReading holding = new CapacityReading("e", 10, 100, "r2", Map.of(0, 10L), 200);
        CapacityReading empty = new CapacityReading("e", 0, 100, "r2", Map.of(), 300);
        assertThat(MembershipChanges.drained(draining, holding, spreadRows(), false)).isFalse();
        assertThat(MembershipChanges.drained(draining, empty, spreadRows(), false)).isTrue();
        Map<Integer, Row> left = MembershipChanges.dropFromSpread(spreadRows(), "e");
        assertThat(left).containsOnlyKeys(0);
        assertThat(left.get(0).held()).isEmpty();
        assertThat(left.get(0).spread()).containsExactly("c", "d");
        // the candidate sets are another update's: a drained node is replaced there, not dropped from a spread
        assertThat(MembershipChanges.replace(spreadRows(), "c", RACKS, Set.of("a", "b", "d", "e", "f"), Set.of(), 4, 150, false))
                .containsOnlyKeys(1);
    }
}
