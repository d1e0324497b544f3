package io.skewguard.core.ring;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.core.slots.SlotTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class HashRingReplacementTest {

    /** Nine nodes on three racks (r0: n0, n3, n6; r1: n1, n4, n7; r2: n2, n5, n8). */
    private static HashRing racked() {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 9; i++) {
            nodes.add(Node.of("n" + i, "r" + (i % 3)));
        }
        return HashRing.of(nodes, 150);
    }

    private static boolean[] all(HashRing ring) {
        boolean[] eligible = new boolean[ring.nodes().size()];
        Arrays.fill(eligible, true);
        return eligible;
    }

    @Test
    void theReplacementKeepsEveryRackOfTheSetDistinctAndIsNeverAlreadyInTheSet() {
        HashRing ring = racked();
        for (int slot = 0; slot < 64; slot++) {
            long point = SlotTable.slotPoint(slot, 64);
            CandidateSet set = ring.candidates(point, 3);
            for (int k = 0; k < set.size(); k++) {
                int leaving = set.node(k);
                int replacement = ring.replacement(point, set, leaving, all(ring));
                assertThat(set.contains(replacement)).isFalse();
                // the racks of the set after the replacement stay distinct: it takes the leaving node's rack
                assertThat(ring.rack(replacement)).isEqualTo(ring.rack(leaving));
            }
        }
    }

    @Test
    void theReplacementIsTheFirstEligibleNodeClockwiseOnAFreeRack() {
        HashRing ring = racked();
        long point = SlotTable.slotPoint(5, 64);
        CandidateSet set = ring.candidates(point, 3);
        int leaving = set.node(1);
        int replacement = ring.replacement(point, set, leaving, all(ring));
        // walking the points clockwise, no node on the leaving node's rack outside the set comes first
        int start = 0;
        while (start < ring.pointCount() && Long.compareUnsigned(ring.point(start), point) < 0) {
            start++;
        }
        for (int step = 0; step < ring.pointCount(); step++) {
            int node = ring.ownerOfPoint((start + step) % ring.pointCount());
            if (!set.contains(node) && ring.rack(node).equals(ring.rack(leaving))) {
                assertThat(node).isEqualTo(replacement);
                break;
            }
        }
    }

    @Test
    void ineligibleNodesAreSkipped() {
        HashRing ring = racked();
        long point = SlotTable.slotPoint(9, 64);
        CandidateSet set = ring.candidates(point, 3);
        int leaving = set.node(0);
        boolean[] eligible = all(ring);
        int first = ring.replacement(point, set, leaving, eligible);
        eligible[first] = false;
        int second = ring.replacement(point, set, leaving, eligible);
        assertThat(second).isNotEqualTo(first);
        assertThat(set.contains(second)).isFalse();
        assertThat(ring.rack(second)).isEqualTo(ring.rack(leaving));
    }

    @Test
    void theRackRuleIsRelaxedOnlyWhenNoNodeOnAFreeRackIsLeft() {
        HashRing ring = racked();
        long point = SlotTable.slotPoint(3, 64);
        CandidateSet set = ring.candidates(point, 3);
        int leaving = set.node(2);
        boolean[] eligible = all(ring);
        for (int node = 0; node < eligible.length; node++) {
            if (ring.rack(node).equals(ring.rack(leaving))) {
                eligible[node] = false; // the leaving node's whole rack is gone
            }
        }
        int replacement = ring.replacement(point, set, leaving, eligible);
        assertThat(replacement).isNotNegative();
        assertThat(set.contains(replacement)).isFalse();
        assertThat(ring.rack(replacement)).isNotEqualTo(ring.rack(leaving));
    }

    @Test
    void noEligibleNodeOutsideTheSetGivesMinusOne() {
        HashRing ring = HashRing.of(List.of(Node.of("a"), Node.of("b")), 150);
        CandidateSet set = ring.candidates(0L, 2);
        assertThat(ring.replacement(0L, set, set.node(0), all(ring))).isEqualTo(-1);
    }

    @Test
    void theSameInputGivesTheSameReplacementWhateverOrderTheRingWasBuiltIn() {
        HashRing ring = racked();
        List<Node> reversed = new ArrayList<>(ring.members());
        java.util.Collections.reverse(reversed);
        HashRing other = HashRing.of(reversed, 150);
        for (int slot = 0; slot < 16; slot++) {
            long point = SlotTable.slotPoint(slot, 16);
            CandidateSet set = ring.candidates(point, 3);
            String leaving = ring.nodes().id(set.node(0));
            int[] otherNodes = new int[set.size()];
            for (int k = 0; k < set.size(); k++) {
                otherNodes[k] = other.nodes().indexOf(ring.nodes().id(set.node(k)));
            }
            String a = ring.nodes().id(ring.replacement(point, set, set.node(0), all(ring)));
            String b = other.nodes().id(other.replacement(point, new CandidateSet(otherNodes), other.nodes().indexOf(leaving), all(other)));
            assertThat(a).isEqualTo(b);
        }
    }
}
