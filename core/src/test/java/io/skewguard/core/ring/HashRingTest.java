package io.skewguard.core.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

class HashRingTest {

    private static List<Node> nodes(int n) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            nodes.add(Node.of("node-" + i));
        }
        return nodes;
    }

    /** The textbook ring the arrays must agree with: unsigned positions, ceiling with wrap. */
    private static TreeMap<Long, Integer> referenceRing(HashRing ring) {
        TreeMap<Long, Integer> map = new TreeMap<>(Long::compareUnsigned);
        for (int i = 0; i < ring.pointCount(); i++) {
            map.put(ring.point(i), ring.ownerOfPoint(i));
        }
        return map;
    }

    private static int referenceLookup(TreeMap<Long, Integer> map, long hash) {
        Map.Entry<Long, Integer> e = map.ceilingEntry(hash);
        return (e != null ? e : map.firstEntry()).getValue();
    }

    @Test
    void eachNodeGets150PointsPerUnitOfRingWeight() {
        HashRing ring = HashRing.of(List.of(Node.of("a"), new Node("b", null, 2.0), new Node("c", null, 0.5)));
        int[] perNode = new int[3];
        for (int i = 0; i < ring.pointCount(); i++) {
            perNode[ring.ownerOfPoint(i)]++;
        }
        assertThat(perNode).containsExactly(150, 300, 75);
        assertThat(ring.pointCount()).isEqualTo(525);
    }

    @Test
    void pointsAscendAsUnsignedPositions() {
        HashRing ring = HashRing.of(nodes(20));
        for (int i = 1; i < ring.pointCount(); i++) {
            assertThat(Long.compareUnsigned(ring.point(i - 1), ring.point(i))).isNegative();
        }
    }

    @Test
    void lookupAgreesWithTreeMapCeilingAtSeveralRingSizes() {
        for (int n : new int[] {1, 3, 48, 512}) {
            HashRing ring = HashRing.of(nodes(n));
            TreeMap<Long, Integer> reference = referenceRing(ring);
            SplittableRandom random = new SplittableRandom(n);
            for (int k = 0; k < 20_000; k++) {
                long hash = random.nextLong();
                assertThat(ring.lookup(hash)).as("n=%d hash=%x", n, hash).isEqualTo(referenceLookup(reference, hash));
            }
        }
    }

    @Test
    void pointIndexAtOrAfterIsTheFirstPointAtOrAfterThePositionWithWrap() {
        // the candidate walks start here; empty buckets hold an owner, not a point, so it is found another way
        for (int n : new int[] {1, 3, 48}) {
            HashRing ring = HashRing.of(nodes(n));
            TreeMap<Long, Integer> indexByPoint = new TreeMap<>(Long::compareUnsigned);
            for (int i = 0; i < ring.pointCount(); i++) {
                indexByPoint.put(ring.point(i), i);
            }
            SplittableRandom random = new SplittableRandom(n + 100);
            for (int k = 0; k < 5_000; k++) {
                long hash = random.nextLong();
                Map.Entry<Long, Integer> e = indexByPoint.ceilingEntry(hash);
                assertThat(ring.pointIndexAtOrAfter(hash)).as("n=%d hash=%x", n, hash)
                        .isEqualTo(e == null ? 0 : e.getValue());
            }
        }
    }

    @Property(tries = 300)
    void lookupAgreesWithTreeMapForAnyHash(@ForAll long hash) {
        HashRing ring = SHARED_RING;
        assertThat(ring.lookup(hash)).isEqualTo(referenceLookup(SHARED_REFERENCE, hash));
    }

    private static final HashRing SHARED_RING = HashRing.of(nodes(7), 5);
    private static final TreeMap<Long, Integer> SHARED_REFERENCE = referenceRing(SHARED_RING);

    @Test
    void positionsExactlyOnAPointAndPastTheLastPointResolveCorrectly() {
        HashRing ring = HashRing.of(nodes(5), 10);
        for (int i = 0; i < ring.pointCount(); i++) {
            assertThat(ring.lookup(ring.point(i))).isEqualTo(ring.ownerOfPoint(i));
            assertThat(ring.lookup(ring.point(i) + 1))
                    .isEqualTo(ring.ownerOfPoint((i + 1) % ring.pointCount()));
        }
        long last = ring.point(ring.pointCount() - 1);
        assertThat(ring.lookup(-1L)).as("top of the circle wraps to point 0")
                .isEqualTo(last == -1L ? ring.ownerOfPoint(ring.pointCount() - 1) : ring.ownerOfPoint(0));
        assertThat(ring.lookup(0L)).isEqualTo(ring.ownerOfPoint(0));
    }

    @Test
    void stringBytesAndLongKeysHashWithXxh3() {
        assertThat(HashRing.hashKey("key-1")).isEqualTo(HashRing.hashKey(new StringBuilder("key-1")));
        assertThat(HashRing.hashKey("key-1"))
                .isEqualTo(net.openhft.hashing.LongHashFunction.xx3().hashChars("key-1"));
        byte[] bytes = "key-1".getBytes(StandardCharsets.UTF_8);
        assertThat(HashRing.hashKey(bytes)).isEqualTo(net.openhft.hashing.LongHashFunction.xx3().hashBytes(bytes));
        assertThat(HashRing.hashKey(42L)).isEqualTo(net.openhft.hashing.LongHashFunction.xx3().hashLong(42L));
        HashRing ring = HashRing.of(nodes(10));
        assertThat(ring.lookup("key-1")).isEqualTo(ring.lookup(HashRing.hashKey("key-1")));
        assertThat(ring.lookup(bytes)).isEqualTo(ring.lookup(HashRing.hashKey(bytes)));
        assertThat(ring.lookupId("key-1")).isEqualTo(ring.nodes().id(ring.lookup("key-1")));
    }

    @Test
    void sameMembersGiveTheSameRingWhateverTheOrder() {
        List<Node> forward = nodes(30);
        List<Node> backward = new ArrayList<>(forward);
        java.util.Collections.reverse(backward);
        HashRing a = HashRing.of(forward);
        HashRing b = HashRing.of(backward);
        SplittableRandom random = new SplittableRandom(1);
        for (int k = 0; k < 10_000; k++) {
            long hash = random.nextLong();
            assertThat(b.nodes().id(b.lookup(hash))).isEqualTo(a.nodes().id(a.lookup(hash)));
        }
    }

    @Test
    void addingAnEleventhNodeMovesAboutOneEleventhOfKeysAllToTheNewNode() {
        HashRing before = HashRing.of(nodes(10));
        HashRing after = before.withNode(Node.of("node-10"));
        int newNode = after.nodes().require("node-10");
        int keys = 200_000;
        int moved = 0;
        for (int k = 0; k < keys; k++) {
            long hash = HashRing.hashKey((long) k);
            int was = before.lookup(hash);
            int is = after.lookup(hash);
            if (was != is) {
                moved++;
                assertThat(is).isEqualTo(newNode);
            }
        }
        assertThat(moved / (double) keys).isCloseTo(1.0 / 11, within(0.02));
    }

    @Test
    void removingANodeMovesOnlyItsKeysAboutOneNth() {
        HashRing before = HashRing.of(nodes(10));
        int gone = before.nodes().require("node-3");
        HashRing after = before.withoutNode("node-3");
        int keys = 200_000;
        int moved = 0;
        for (int k = 0; k < keys; k++) {
            long hash = HashRing.hashKey((long) k);
            int was = before.lookup(hash);
            int is = after.lookup(hash);
            if (was != is) {
                moved++;
                assertThat(was).isEqualTo(gone);
            }
            assertThat(is).isNotEqualTo(gone);
        }
        assertThat(moved / (double) keys).isCloseTo(1.0 / 10, within(0.02));
    }

    @Test
    void nodeIndexesStayStableWhenNodesLeaveAndJoin() {
        HashRing ring = HashRing.of(nodes(4));
        HashRing changed = ring.withoutNode("node-1").withNode(Node.of("node-9"));
        assertThat(changed.nodes().extendsIndex(ring.nodes())).isTrue();
        assertThat(changed.nodes().indexOf("node-2")).isEqualTo(2);
        assertThat(changed.nodes().indexOf("node-9")).isEqualTo(4);
        assertThat(changed.isMember(1)).isFalse();
        assertThat(changed.memberCount()).isEqualTo(4);
    }

    @Test
    void heavierNodeOwnsProportionallyMoreOfTheRing() {
        HashRing ring = HashRing.of(List.of(Node.of("a"), Node.of("b"), new Node("big", null, 2.0)));
        int big = ring.nodes().require("big");
        int keys = 200_000;
        int onBig = 0;
        for (int k = 0; k < keys; k++) {
            if (ring.lookup(HashRing.hashKey((long) k)) == big) {
                onBig++;
            }
        }
        assertThat(onBig / (double) keys).isCloseTo(0.5, within(0.05));
    }

    @Test
    void emptyRingAndBadSettingsAreRefusedClearly() {
        HashRing empty = HashRing.of(List.of());
        assertThatThrownBy(() -> empty.lookup(1L)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no nodes");
        assertThatThrownBy(() -> HashRing.of(nodes(2), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("vnodes per unit");
        assertThatThrownBy(() -> HashRing.of(List.of(Node.of("a"), Node.of("a"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicate node id 'a'");
        assertThatThrownBy(() -> HashRing.ofIds("a").withoutNode("b"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'b' is not on the ring");
        assertThatThrownBy(() -> new Node("a", null, 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
