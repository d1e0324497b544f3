package io.skewguard.core.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.core.slots.SlotTable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HashRingExtensionTest {

    /** 24 nodes on 4 racks (n0 on r0, n1 on r1, ...). */
    private static HashRing racked(int nodes, int racks) {
        List<Node> list = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            list.add(Node.of("n" + i, racks == 0 ? null : "r" + (i % racks)));
        }
        return HashRing.of(list, 150);
    }

    private static boolean[] all(HashRing ring) {
        boolean[] eligible = new boolean[ring.nodes().size()];
        Arrays.fill(eligible, true);
        return eligible;
    }

    @Test
    void theExtensionHoldsDistinctEligibleNodesOutsideTheCandidateSet() {
        HashRing ring = racked(24, 4);
        boolean[] eligible = all(ring);
        eligible[ring.nodes().require("n5")] = false;
        for (int slot = 0; slot < 64; slot++) {
            long point = SlotTable.slotPoint(slot, 64);
            CandidateSet set = ring.candidates(point, 4);
            int[] extension = ring.extension(point, set.nodes(), 10, eligible);
            assertThat(extension).hasSize(10).doesNotHaveDuplicates().doesNotContain(ring.nodes().require("n5"));
            for (int node : extension) {
                assertThat(set.contains(node)).isFalse();
            }
        }
    }

    @Test
    void aLongerExtensionStartsWithTheShorterOne() {
        HashRing ring = racked(48, 8);
        for (int slot = 0; slot < 8; slot++) {
            long point = SlotTable.slotPoint(slot, 8);
            int[] set = ring.candidates(point, 8).nodes();
            int[] longest = ring.extension(point, set, 40, all(ring));
            for (int k = 0; k <= 40; k++) {
                assertThat(ring.extension(point, set, k, all(ring))).containsExactly(Arrays.copyOf(longest, k));
            }
        }
    }

    @Test
    void racksAreUsedAsEvenlyAsTheyCanBe() {
        HashRing ring = racked(48, 8);
        for (int slot = 0; slot < 8; slot++) {
            long point = SlotTable.slotPoint(slot, 8);
            int[] set = ring.candidates(point, 8).nodes();
            for (int k = 1; k <= 40; k++) {
                int[] extension = ring.extension(point, set, k, all(ring));
                Map<String, Integer> use = new HashMap<>();
                for (int node : set) {
                    use.merge(ring.rack(node), 1, Integer::sum);
                }
                for (int node : extension) {
                    use.merge(ring.rack(node), 1, Integer::sum);
                }
                int max = use.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
                int min = use.size() < 8 ? 0 : use.values().stream().mapToInt(Integer::intValue).min().orElseThrow();
                assertThat(max - min).as("rack use of slot %d with %d extra nodes: %s", slot, k, use).isLessThanOrEqualTo(1);
            }
        }
    }

    @Test
    void withoutRacksTheExtensionIsTheNextDistinctNodesClockwise() {
        HashRing ring = racked(12, 0);
        long point = SlotTable.slotPoint(3, 16);
        int[] set = ring.candidates(point, 3).nodes();
        int[] extension = ring.extension(point, set, 4, all(ring));
        // the candidate set of 7 from the same point is the set of 3 followed by those 4
        assertThat(ring.candidates(point, 7).nodes()).containsExactly(
                set[0], set[1], set[2], extension[0], extension[1], extension[2], extension[3]);
    }

    @Test
    void noMoreNodesComeBackThanAreEligibleOutsideTheSet() {
        HashRing ring = racked(10, 2);
        long point = SlotTable.slotPoint(1, 8);
        int[] set = ring.candidates(point, 4).nodes();
        int[] extension = ring.extension(point, set, 50, all(ring));
        Set<Integer> distinct = new HashSet<>();
        for (int node : extension) {
            distinct.add(node);
        }
        assertThat(extension).hasSize(6);
        assertThat(distinct).hasSize(6);
        assertThat(ring.extension(point, set, 0, all(ring))).isEmpty();
        assertThatThrownBy(() -> ring.extension(point, set, -1, all(ring))).isInstanceOf(IllegalArgumentException.class);
    }
}
