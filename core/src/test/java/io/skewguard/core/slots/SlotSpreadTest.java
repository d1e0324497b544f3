package io.skewguard.core.slots;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlotSpreadTest {

    @Test
    void anUnspreadSlotWritesToItsCandidatesAndHoldsNothingElse() {
        SlotSpread s = SlotSpread.of(CandidateSet.of(3, 1, 4));
        assertThat(s.writers()).isEqualTo(CandidateSet.of(3, 1, 4));
        assertThat(s.ownWriters()).isEqualTo(CandidateSet.of(3, 1, 4));
        assertThat(s.holders()).isEqualTo(CandidateSet.of(3, 1, 4));
        assertThat(s.isSpread()).isFalse();
    }

    @Test
    void spreadNodesWriteBesidesTheCandidatesAndReadOnlyCandidatesDoNot() {
        SlotSpread s = SlotSpread.of(CandidateSet.of(3, 1, 4), new int[] {1}, new int[] {7, 9}, new int[] {2});
        assertThat(s.writers()).isEqualTo(CandidateSet.of(3, 4, 7, 9));
        assertThat(s.ownWriters()).isEqualTo(CandidateSet.of(3, 4));
        assertThat(s.holders()).isEqualTo(CandidateSet.of(3, 1, 4, 7, 9, 2));
    }

    @Test
    void narrowingTurnsEverySpreadNodeIntoAHeldOneAndKeepsEveryHolder() {
        SlotSpread s = SlotSpread.of(CandidateSet.of(3, 1, 4), new int[0], new int[] {7, 9}, new int[] {2});
        SlotSpread narrow = s.narrowed();
        assertThat(narrow.writers()).isEqualTo(CandidateSet.of(3, 1, 4));
        assertThat(narrow.held()).containsExactly(2, 7, 9);
        assertThat(sorted(narrow.holders().nodes())).containsExactly(sorted(s.holders().nodes()));
        assertThat(narrow.narrowed()).isEqualTo(narrow);
    }

    @Test
    void wideningAgainMakesHeldNodesWritersAndKeepsTheOthersHeld() {
        SlotSpread s = SlotSpread.of(CandidateSet.of(3, 1, 4), new int[0], new int[] {7}, new int[] {2, 9});
        SlotSpread wide = s.widenedTo(new int[] {9, 8});
        assertThat(wide.spread()).containsExactly(9, 8);
        assertThat(wide.held()).containsExactly(2, 7);
        assertThat(wide.holders().nodes()).contains(3, 1, 4, 9, 8, 2, 7);
    }

    @Test
    void everyCandidateReadOnlyAndNothingSpreadFallsBackToAllCandidates() {
        SlotSpread s = SlotSpread.of(CandidateSet.of(3, 1), new int[] {3, 1}, new int[0], new int[0]);
        assertThat(s.writersFallBack()).isTrue();
        assertThat(s.writers()).isEqualTo(CandidateSet.of(3, 1));
        SlotSpread spread = s.widenedTo(new int[] {5});
        assertThat(spread.writersFallBack()).isFalse();
        assertThat(spread.writers()).isEqualTo(CandidateSet.of(5));
    }

    @Test
    void listsThatRepeatANodeOrMarkANonCandidateReadOnlyAreRefused() {
        CandidateSet c = CandidateSet.of(3, 1, 4);
        assertThatThrownBy(() -> SlotSpread.of(c, new int[0], new int[] {1}, new int[0]))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SlotSpread.of(c, new int[0], new int[] {7}, new int[] {7}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SlotSpread.of(c, new int[] {7}, new int[0], new int[0]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("read-only node 7");
    }

    @Test
    void aSpreadUpdateTakesTheRingsExtensionAndZeroExtrasNarrows() {
        HashRing ring = ring(12);
        SlotTable table = SlotTable.fromRing(ring, 3, 16);
        SlotSpread start = SlotSpread.of(table.candidates(5));
        boolean[] eligible = all(ring);
        SlotSpread wide = new SpreadUpdate(5, 4, "hot").apply(ring, 16, start, eligible);
        assertThat(wide.spread()).containsExactly(ring.extension(SlotTable.slotPoint(5, 16), table.candidates(5).nodes(), 4, eligible));
        assertThat(wide.candidates()).isEqualTo(start.candidates());
        SlotSpread narrow = new SpreadUpdate(5, 0, "cool").apply(ring, 16, wide, eligible);
        assertThat(narrow.isSpread()).isFalse();
        assertThat(narrow.held()).containsExactly(wide.spread());
    }

    @Test
    void aSpreadOfASlotThatDoesNotExistIsRefusedWithTheReason() {
        HashRing ring = ring(12);
        SlotSpread any = SlotSpread.of(CandidateSet.of(0, 1, 2));
        assertThatThrownBy(() -> new SpreadUpdate(16, 2, "hot").apply(ring, 16, any, all(ring)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refused: a spread of slot 16, which does not exist (the table has 16 slots, 0 to 15)");
        assertThatThrownBy(() -> new SpreadUpdate(-1, 2, "hot").apply(ring, 16, any, all(ring)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not exist");
    }

    @Test
    void aSpreadWiderThanTheLiveNodesAllowIsRefusedWithTheReason() {
        HashRing ring = ring(12);
        SlotTable table = SlotTable.fromRing(ring, 3, 16);
        boolean[] eligible = all(ring);
        eligible[ring.nodes().require("n0")] = false;
        SlotSpread start = SlotSpread.of(table.candidates(2));
        int outside = 12 - 3 - (table.candidates(2).contains(ring.nodes().require("n0")) ? 0 : 1);
        assertThatThrownBy(() -> new SpreadUpdate(2, outside + 1, "hot").apply(ring, 16, start, eligible))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refused: a spread of slot 2 to " + (outside + 1) + " extra nodes, but only " + outside
                        + " live nodes outside its candidate set can take its writes");
        assertThat(new SpreadUpdate(2, outside, "hot").apply(ring, 16, start, eligible).spreadCount()).isEqualTo(outside);
        assertThatThrownBy(() -> new SpreadUpdate(2, -1, "x")).isInstanceOf(IllegalArgumentException.class);
    }

    static HashRing ring(int n) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            nodes.add(Node.of("n" + i));
        }
        return HashRing.of(nodes, 150);
    }

    static boolean[] all(HashRing ring) {
        boolean[] eligible = new boolean[ring.nodes().size()];
        Arrays.fill(eligible, true);
        return eligible;
    }

    private static int[] sorted(int[] a) {
        int[] c = a.clone();
        Arrays.sort(c);
        return c;
    }
}
