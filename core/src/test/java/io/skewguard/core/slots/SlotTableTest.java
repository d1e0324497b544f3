package io.skewguard.core.slots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.ring.NodeIndex;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

class SlotTableTest {

    private static HashRing ring(int n) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            nodes.add(Node.of("node-" + i, "rack-" + (i % 16)));
        }
        return HashRing.of(nodes);
    }

    private static final HashRing RING = ring(48);
    private static final SlotTable TABLE = SlotTable.fromRing(RING, 8);

    @Test
    void defaultTableHas256SlotsOfEightDistinctRackDistinctCandidatesAtEpochZero() {
        assertThat(TABLE.slotCount()).isEqualTo(256);
        assertThat(TABLE.routingEpoch()).isZero();
        for (int s = 0; s < 256; s++) {
            CandidateSet set = TABLE.candidates(s);
            assertThat(set.size()).isEqualTo(8);
            assertThat(set.nodes()).doesNotHaveDuplicates();
            assertThat(TABLE.candidateIds(s).stream().map(id -> RING.rack(RING.nodes().require(id))).distinct())
                    .hasSize(8);
        }
    }

    @Test
    void eachSlotsCandidateSetIsTheRingWalkFromTheStartOfItsSegment() {
        for (int s = 0; s < 256; s++) {
            long point = SlotTable.slotPoint(s, 256);
            assertThat(TABLE.candidates(s)).isEqualTo(RING.candidates(point, 8));
            assertThat(TABLE.candidates(s).anchor()).isEqualTo(RING.lookup(point));
        }
        assertThat(SlotTable.slotPoint(0, 256)).isZero();
        assertThat(SlotTable.slotPoint(128, 256)).isEqualTo(Long.MIN_VALUE);
        assertThat(SlotTable.slotPoint(1, 256)).isEqualTo(1L << 56);
        assertThat(SlotTable.slotPoint(0, 1)).isZero();
    }

    @Test
    void candidateSetsAreCappedAtTheNodeCount() {
        SlotTable small = SlotTable.fromRing(ring(3), 8, 16);
        for (int s = 0; s < 16; s++) {
            assertThat(small.candidates(s).size()).isEqualTo(3);
        }
    }

    @Property(tries = 500)
    void slotOfAHashIsItsFloorModuloSEvenForNegativeHashes(@ForAll long keyHash, @ForAll @IntRange(min = 0, max = 12) int bits) {
        int slotCount = 1 << bits;
        int expected = Math.floorMod(keyHash, slotCount);
        assertThat(SlotTable.slotOf(keyHash, slotCount)).isEqualTo(expected);
        assertThat((long) expected).isEqualTo(Long.remainderUnsigned(keyHash, slotCount));
    }

    @Test
    void slotOfAKeyIsXxh3OfTheKeyModuloS() {
        for (int k = 0; k < 5_000; k++) {
            String key = "object-" + k;
            assertThat(TABLE.slotOf(key)).isEqualTo(Math.floorMod(HashRing.hashKey(key), 256));
            byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
            assertThat(TABLE.slotOf(bytes)).isEqualTo(Math.floorMod(HashRing.hashKey(bytes), 256));
        }
    }

    @Test
    void locateAgreesWithTheTable() {
        for (int k = 0; k < 5_000; k++) {
            String key = "object-" + k;
            int slot = TABLE.slotOf(key);
            assertThat(TABLE.locate(key)).isSameAs(TABLE.candidates(slot));
            assertThat(TABLE.locate(key.getBytes(StandardCharsets.UTF_8)))
                    .isSameAs(TABLE.candidates(TABLE.slotOf(key.getBytes(StandardCharsets.UTF_8))));
            assertThat(TABLE.locateHash(HashRing.hashKey(key))).isSameAs(TABLE.candidates(slot));
        }
    }

    @Test
    void slotsAreSpreadEvenlyOverKeys() {
        int[] perSlot = new int[256];
        for (long k = 0; k < 256_000; k++) {
            perSlot[TABLE.slotOfHash(HashRing.hashKey(k))]++;
        }
        assertThat(java.util.Arrays.stream(perSlot).min().orElseThrow()).isGreaterThanOrEqualTo(850);
        assertThat(java.util.Arrays.stream(perSlot).max().orElseThrow()).isLessThanOrEqualTo(1150);
    }

    @Test
    void slotCountMustBeAPowerOfTwoUpTo4096() {
        for (int bad : new int[] {0, -256, 3, 100, 255, 8192, 1 << 30}) {
            assertThatThrownBy(() -> SlotTable.fromRing(RING, 8, bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("slot count must be a power of two between 1 and 4096, but is " + bad);
        }
        assertThat(SlotTable.fromRing(RING, 8, 4096).slotCount()).isEqualTo(4096);
        assertThat(SlotTable.fromRing(RING, 8, 1).slotCount()).isEqualTo(1);
    }

    @Test
    void applyingAnUpdateAtTheCurrentEpochChangesOneSlotAndAdvancesTheEpoch() {
        CandidateSet before = TABLE.candidates(17);
        int source = before.node(2);
        int target = firstNodeNotIn(before);
        SlotUpdate update = new SlotUpdate(0, 17, before.replace(source, target));

        SlotTable after = TABLE.apply(update);

        assertThat(after.routingEpoch()).isEqualTo(1);
        assertThat(after.candidates(17).node(2)).isEqualTo(target);
        assertThat(after.candidates(17).contains(source)).isFalse();
        for (int s = 0; s < 256; s++) {
            if (s != 17) {
                assertThat(after.candidates(s)).isSameAs(TABLE.candidates(s));
            }
        }
        assertThat(TABLE.routingEpoch()).as("the old table is a snapshot").isZero();
        assertThat(TABLE.candidates(17)).isEqualTo(before);
    }

    @Test
    void staleUpdateIsRefusedAndLeavesTheTableUnchanged() {
        SlotTable table = TABLE;
        for (int i = 0; i < 9; i++) {
            CandidateSet current = table.candidates(i);
            table = table.apply(new SlotUpdate(table.routingEpoch(), i, current.replace(current.node(7), firstNodeNotIn(current))));
        }
        assertThat(table.routingEpoch()).isEqualTo(9);
        SlotTable atNine = table;
        List<CandidateSet> rowsBefore = rows(atNine);
        CandidateSet current = atNine.candidates(40);
        SlotUpdate stale = new SlotUpdate(7, 40, current.replace(current.anchor(), firstNodeNotIn(current)));

        assertThatThrownBy(() -> atNine.apply(stale))
                .isInstanceOf(StaleSlotUpdateException.class)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("stale update: expected routing epoch 7 but table is at 9")
                .satisfies(e -> {
                    assertThat(((StaleSlotUpdateException) e).expectedEpoch()).isEqualTo(7);
                    assertThat(((StaleSlotUpdateException) e).actualEpoch()).isEqualTo(9);
                });
        assertThat(atNine.routingEpoch()).isEqualTo(9);
        assertThat(rows(atNine)).isEqualTo(rowsBefore);
    }

    @Test
    void anUpdateFromTheFutureIsAsStaleAsOneFromThePast() {
        CandidateSet current = TABLE.candidates(3);
        assertThatThrownBy(() -> TABLE.apply(new SlotUpdate(1, 3, current)))
                .hasMessage("stale update: expected routing epoch 1 but table is at 0");
    }

    @Test
    void replacementReplacesSourceByTargetAtTheCurrentEpoch() {
        CandidateSet current = TABLE.candidates(5);
        String source = TABLE.nodes().id(current.anchor());
        String target = TABLE.nodes().id(firstNodeNotIn(current));
        SlotUpdate update = TABLE.replacement(5, source, target);
        assertThat(update.expectedEpoch()).isZero();
        SlotTable after = TABLE.apply(update);
        assertThat(after.candidateIds(5).get(0)).isEqualTo(target);
        assertThat(after.candidateIds(5)).doesNotContain(source).hasSize(8);
        assertThatThrownBy(() -> after.apply(update)).isInstanceOf(StaleSlotUpdateException.class);
    }

    @Test
    void updatesNamingUnknownNodesOrSlotsAreRejected() {
        assertThatThrownBy(() -> TABLE.apply(new SlotUpdate(0, 256, TABLE.candidates(0))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slot 256 is outside [0, 256)");
        assertThatThrownBy(() -> TABLE.apply(new SlotUpdate(0, 1, CandidateSet.of(0, 48))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node index 48");
        assertThatThrownBy(() -> TABLE.replacement(1, "node-0", "nobody"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown node 'nobody'");
        assertThatThrownBy(() -> new SlotUpdate(-1, 0, CandidateSet.of(0)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aJoiningNodeCanBecomeAMigrationTargetWithoutChangingRouting() {
        HashRing grown = RING.withNode(Node.of("node-new", "rack-x"));
        SlotTable table = TABLE.withNodes(grown.nodes());
        assertThat(table.routingEpoch()).isZero();
        assertThat(rows(table)).isEqualTo(rows(TABLE));
        SlotTable moved = table.apply(table.replacement(0, table.candidateIds(0).get(1), "node-new"));
        assertThat(moved.candidateIds(0).get(1)).isEqualTo("node-new");
        assertThatThrownBy(() -> TABLE.withNodes(NodeIndex.of("other")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not extend");
    }

    @Test
    void aTableRestoredFromItsRowsEqualsTheOriginal() {
        SlotTable restored = SlotTable.of(TABLE.nodes(), rows(TABLE), 0);
        assertThat(restored).isEqualTo(TABLE);
        assertThatThrownBy(() -> SlotTable.of(TABLE.nodes(), rows(TABLE).subList(0, 100), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("power of two");
    }

    private static List<CandidateSet> rows(SlotTable table) {
        List<CandidateSet> rows = new ArrayList<>();
        for (int s = 0; s < table.slotCount(); s++) {
            rows.add(table.candidates(s));
        }
        return rows;
    }

    private static int firstNodeNotIn(CandidateSet set) {
        for (int node = 0; ; node++) {
            if (!set.contains(node)) {
                return node;
            }
        }
    }
}
