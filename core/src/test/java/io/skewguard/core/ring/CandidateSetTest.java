package io.skewguard.core.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

class CandidateSetTest {

    private static List<Node> nodes(int n, int racks) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            nodes.add(racks == 0 ? Node.of("node-" + i) : Node.of("node-" + i, "rack-" + (i % racks)));
        }
        return nodes;
    }

    /** The first m distinct owners met clockwise, straight from the point arrays. */
    private static List<Integer> naiveWalk(HashRing ring, long position, int m) {
        int start = ring.pointIndexAtOrAfter(position);
        Set<Integer> seen = new LinkedHashSet<>();
        for (int step = 0; step < ring.pointCount() && seen.size() < m; step++) {
            seen.add(ring.ownerOfPoint((start + step) % ring.pointCount()));
        }
        return new ArrayList<>(seen);
    }

    @Test
    void withoutRacksTheSetIsTheFirstMDistinctNodesClockwiseAnchorFirst() {
        HashRing ring = HashRing.of(nodes(48, 0));
        SplittableRandom random = new SplittableRandom(3);
        for (int k = 0; k < 500; k++) {
            long position = random.nextLong();
            CandidateSet set = ring.candidates(position, 8);
            assertThat(set.size()).isEqualTo(8);
            assertThat(set.anchor()).isEqualTo(ring.lookup(position));
            List<Integer> expected = naiveWalk(ring, position, 8);
            for (int i = 0; i < 8; i++) {
                assertThat(set.node(i)).isEqualTo(expected.get(i));
            }
        }
    }

    @Test
    void setSizeIsCappedAtTheNumberOfNodes() {
        HashRing ring = HashRing.of(nodes(5, 0));
        CandidateSet set = ring.candidates(123L, 8);
        assertThat(set.size()).isEqualTo(5);
        assertThat(set.nodes()).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
    }

    @Test
    void withEnoughRacksEveryCandidateIsOnADifferentRack() {
        HashRing ring = HashRing.of(nodes(48, 12));
        SplittableRandom random = new SplittableRandom(4);
        for (int k = 0; k < 500; k++) {
            long position = random.nextLong();
            CandidateSet set = ring.candidates(position, 8);
            Set<String> racks = new HashSet<>();
            for (int i = 0; i < set.size(); i++) {
                racks.add(ring.rack(set.node(i)));
            }
            assertThat(racks).hasSize(8);
            assertThat(set.anchor()).isEqualTo(ring.lookup(position));
        }
    }

    @Test
    void withFewerRacksThanMEveryRackComesFirstThenDistinctFill() {
        HashRing ring = HashRing.of(nodes(24, 3));
        SplittableRandom random = new SplittableRandom(5);
        for (int k = 0; k < 500; k++) {
            long position = random.nextLong();
            CandidateSet set = ring.candidates(position, 8);
            assertThat(set.size()).isEqualTo(8);
            assertThat(set.nodes()).doesNotHaveDuplicates();
            Set<String> firstThree = new HashSet<>();
            for (int i = 0; i < 3; i++) {
                firstThree.add(ring.rack(set.node(i)));
            }
            assertThat(firstThree).containsExactlyInAnyOrder("rack-0", "rack-1", "rack-2");
            assertThat(set.anchor()).isEqualTo(ring.lookup(position));
        }
    }

    @Test
    void nodesOnUnknownRacksNeverConflict() {
        List<Node> nodes = new ArrayList<>(nodes(10, 0));
        nodes.add(Node.of("r1", "rack-a"));
        nodes.add(Node.of("r2", "rack-a"));
        HashRing ring = HashRing.of(nodes);
        int r1 = ring.nodes().require("r1");
        int r2 = ring.nodes().require("r2");
        SplittableRandom random = new SplittableRandom(6);
        for (int k = 0; k < 300; k++) {
            long position = random.nextLong();
            CandidateSet eight = ring.candidates(position, 8);
            assertThat(eight.size()).isEqualTo(8);
            assertThat(eight.contains(r1) && eight.contains(r2)).as("two nodes of rack-a among 8").isFalse();
            // with room for everyone, the second rack-a node comes only in the fill walk, after all others
            CandidateSet all = ring.candidates(position, 12);
            assertThat(Math.max(all.positionOf(r1), all.positionOf(r2))).isEqualTo(11);
        }
    }

    @Test
    void replaceKeepsThePositionSoReplacingTheAnchorMakesANewAnchor() {
        CandidateSet set = CandidateSet.of(4, 1, 7);
        assertThat(set.replace(4, 9).nodes()).containsExactly(9, 1, 7);
        assertThat(set.replace(7, 2).nodes()).containsExactly(4, 1, 2);
        assertThat(set.nodes()).containsExactly(4, 1, 7);
        assertThatThrownBy(() -> set.replace(5, 9)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("node 5 is not in candidate set");
        assertThatThrownBy(() -> set.replace(4, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("node 1 is already in candidate set");
    }

    @Test
    void candidateSetsHoldDistinctNonNegativeNodesAndCannotBeChangedFromOutside() {
        int[] raw = {3, 2, 1};
        CandidateSet set = new CandidateSet(raw);
        raw[0] = 99;
        set.nodes()[1] = 99;
        assertThat(set.nodes()).containsExactly(3, 2, 1);
        assertThat(set).isEqualTo(CandidateSet.of(3, 2, 1)).hasSameHashCodeAs(CandidateSet.of(3, 2, 1));
        assertThatThrownBy(() -> CandidateSet.of(1, 2, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("appears twice");
        assertThatThrownBy(() -> CandidateSet.of()).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CandidateSet.of(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void mustBeAtLeastOne() {
        HashRing ring = HashRing.of(nodes(3, 0));
        assertThatThrownBy(() -> ring.candidates(0L, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("m >= 1");
    }
}
