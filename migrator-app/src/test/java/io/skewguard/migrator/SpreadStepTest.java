package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.migrator.policy.MembershipChanges.Row;
import io.skewguard.migrator.policy.SpreadPolicy;
import io.skewguard.migrator.policy.SpreadRule;
import io.skewguard.migrator.policy.SpreadState;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The slot-table side of the spread rule: rows, capacities and members in, changed rows out. */
class SpreadStepTest {

    private static final SpreadPolicy POLICY = new SpreadPolicy(new SpreadRule(true, 0.5, 0, 0.3, 40, 0.2, 0));

    /** Twelve nodes of 100 units on three racks. */
    private static Map<String, Long> capacity() {
        Map<String, Long> c = new HashMap<>();
        for (int i = 0; i < 12; i++) {
            c.put("n" + i, 100L);
        }
        return c;
    }

    private static Map<String, String> racks() {
        Map<String, String> r = new HashMap<>();
        for (int i = 0; i < 12; i++) {
            r.put("n" + i, "r" + (i % 3));
        }
        return r;
    }

    @Test
    void aHotSlotGetsTheRingsNextNodesAndARowThatNamesANodeTwiceIsLeftAsItIs() {
        List<Row> rows = List.of(
                new Row(0, List.of("n0", "n1", "n2"), List.of(), null, List.of(), List.of(), null),
                // a spread node that is also a candidate: the writers refuse this row, the rule leaves it alone
                new Row(1, List.of("n3", "n4", "n5"), List.of(), null, List.of("n4"), List.of(), "bad"),
                new Row(2, List.of("n6", "n7", "n8"), List.of(), null, List.of(), List.of(), null));
        long[] heat = {600, 300, 100};
        SpreadStep.Result r = SpreadStep.decide("c1", POLICY, SpreadState.empty(), 0, heat, rows, capacity(), racks(), capacity().keySet(),
                4, 150);
        assertThat(r.changed()).containsOnlyKeys(0);
        Row spread = r.changed().get(0);
        // 60 % of the writes: ρ 0.3 needs all 12 nodes' capacity, so all 9 others
        assertThat(spread.spread()).hasSize(9).doesNotContainAnyElementsOf(spread.candidates()).doesNotHaveDuplicates();
        assertThat(spread.spreadReason()).startsWith("spread over 9 more nodes: slot 0 takes 60.0 % of the writes");
    }

    @Test
    void aHotRowWhoseCandidatesRepeatANodeOrWhoseReadOnlyNodeIsNoCandidateIsLeftAsItIs() {
        List<Row> rows = List.of(
                new Row(0, List.of("n0", "n1", "n0"), List.of(), null, List.of(), List.of(), null),
                new Row(1, List.of("n3", "n4", "n5"), List.of("n6"), null, List.of(), List.of(), null),
                new Row(2, List.of(), List.of(), null, List.of(), List.of(), null));
        SpreadStep.Result r = SpreadStep.decide("c1", POLICY, SpreadState.empty(), 0, new long[] {500, 400, 100}, rows, capacity(),
                racks(), capacity().keySet(), 4, 150);
        assertThat(r.changed()).isEmpty();
    }

    @Test
    void noSpreadNodeIsIneligibleOrTheSlotsInFlightTarget() {
        List<Row> rows = List.of(new Row(0, List.of("n0", "n1", "n2"), List.of(), "n5", List.of(), List.of(), null));
        Set<String> eligible = new java.util.HashSet<>(capacity().keySet());
        eligible.remove("n7");
        SpreadStep.Result r = SpreadStep.decide("c1", POLICY, SpreadState.empty(), 0, new long[] {900}, rows, capacity(), racks(), eligible,
                1, 150);
        assertThat(r.changed().get(0).spread()).hasSize(7).doesNotContain("n5", "n7");
    }

    @Test
    void writersKeptFromBeforeDecideAsTheRowsDoAndAreWorkedOutAgainWhenTheRowsOrACapacityChange() {
        List<Row> rows = List.of(
                new Row(0, List.of("n0", "n1", "n2"), List.of(), null, List.of(), List.of(), null),
                new Row(1, List.of("n3", "n4", "n5"), List.of(), null, List.of(), List.of(), null));
        SpreadStep.Writers kept = SpreadStep.Writers.of("c1", rows, capacity());
        // the same rows and equal capacities: kept; heat changes nothing of it
        assertThat(kept.sameInputs(rows, capacity())).isTrue();
        for (long[] heat : List.of(new long[] {600, 400}, new long[] {100, 900}, new long[] {500, 500})) {
            SpreadStep.Result fromRows = SpreadStep.decide("c1", POLICY, SpreadState.empty(), 0, heat, rows, capacity(), racks(),
                    capacity().keySet(), 2, 150);
            SpreadStep.Result fromKept = SpreadStep.decide("c1", POLICY, SpreadState.empty(), 0, heat, kept, racks(),
                    capacity().keySet(), 2, 150);
            assertThat(fromKept.changed()).isEqualTo(fromRows.changed());
            assertThat(fromKept.state()).isEqualTo(fromRows.state());
        }
        // an equal but new list of rows (a row was written) or a changed capacity: worked out again
        assertThat(kept.sameInputs(List.copyOf(new java.util.ArrayList<>(rows)), capacity())).isFalse();
        Map<String, Long> grown = capacity();
        grown.put("n12", 100L);
        assertThat(kept.sameInputs(rows, grown)).isFalse();
        Map<String, Long> shrunk = capacity();
        shrunk.put("n0", 50L);
        assertThat(kept.sameInputs(rows, shrunk)).isFalse();
    }
}
