package io.skewguard.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.ProbeOrder;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SlotAssignment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A slot-table row's spread and held nodes, as writers and readers see them (docs/design.md §3.5). */
class RoutingViewSpreadTest {

    private static final List<String> NODES = List.of("n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10", "n11");
    private static final int SLOTS = 4;

    /** Twelve nodes, four slots, candidate sets of three. */
    private static RoutingView view() {
        return RoutingView.of("c1", SlotTable.fromRing(HashRing.ofIds(NODES.toArray(String[]::new)), 3, SLOTS));
    }

    private static SlotAssignment row(int slot, long epoch, List<String> candidates, List<String> readOnly, List<String> spread,
            List<String> held) {
        return SlotAssignment.newBuilder().setCluster("c1").setSlot(slot).setRoutingEpoch(epoch).setCandidates(candidates)
                .setReadOnly(readOnly).setSpread(spread).setSpreadHeld(held).setSpreadReason("test")
                .setUpdatedAt(Instant.EPOCH).build();
    }

    /** {@code n} keys of {@code slot}. */
    private static List<String> keysOf(RoutingView view, int slot, int n) {
        List<String> keys = new ArrayList<>();
        for (int k = 0; keys.size() < n; k++) {
            if (view.slotOf("key-" + k) == slot) {
                keys.add("key-" + k);
            }
        }
        return keys;
    }

    @Test
    void aSpreadSlotWritesToItsCandidatesAndSpreadNodesButNeverToHeldOrReadOnlyOnes() {
        RoutingView view = view();
        view.apply(row(1, 1, List.of("n0", "n1", "n2"), List.of("n2"), List.of("n5", "n6"), List.of("n7")));
        Set<String> picked = new HashSet<>();
        for (String key : keysOf(view, 1, 4000)) {
            picked.add(view.pick(key));
        }
        assertThat(picked).containsExactlyInAnyOrder("n0", "n1", "n5", "n6");
        assertThat(view.spread(1)).containsExactly("n5", "n6");
        assertThat(view.held(1)).containsExactly("n7");
        assertThat(view.spreadReason(1)).isEqualTo("test");
        assertThat(view.readOnly(1)).containsExactly("n2");
    }

    @Test
    void keysWrittenBeforeASpreadAreFoundAtTheFirstOrSecondProbeAndKeysWrittenAfterAtTheFirst() {
        RoutingView view = view();
        view.apply(row(2, 1, List.of("n0", "n1", "n2"), List.of(), List.of(), List.of()));
        Map<String, String> before = new HashMap<>();
        for (String key : keysOf(view, 2, 3000)) {
            before.put(key, view.pick(key));
        }
        view.apply(row(2, 2, List.of("n0", "n1", "n2"), List.of(), List.of("n3", "n4", "n5", "n6"), List.of()));
        int second = 0;
        for (Map.Entry<String, String> e : before.entrySet()) {
            List<String> order = view.probeOrder(e.getKey());
            assertThat(order).hasSize(7);
            int probe = order.indexOf(e.getValue()) + 1;
            assertThat(probe).isBetween(1, 2);
            second += probe == 2 ? 1 : 0;
            assertThat(order.get(0)).isEqualTo(view.pick(e.getKey()));
        }
        // four of seven equal writers are spread nodes: about 4/7 of the old keys take a second probe
        assertThat(second / 3000.0).isBetween(0.5, 0.65);
    }

    @Test
    void narrowingNeverLosesAKeyWrittenDuringTheSpread() {
        RoutingView view = view();
        view.apply(row(3, 4, List.of("n0", "n1", "n2"), List.of(), List.of("n3", "n4"), List.of()));
        Map<String, String> during = new HashMap<>();
        for (String key : keysOf(view, 3, 2000)) {
            during.put(key, view.pick(key));
        }
        view.apply(row(3, 5, List.of("n0", "n1", "n2"), List.of(), List.of(), List.of("n3", "n4")));
        for (Map.Entry<String, String> e : during.entrySet()) {
            assertThat(view.pick(e.getKey())).isIn("n0", "n1", "n2");
            assertThat(view.probeOrder(e.getKey()).indexOf(e.getValue())).isBetween(0, 2);
        }
    }

    @Test
    void twoViewsWithTheSameSlotTableChooseTheSameNodeForEveryKey() {
        RoutingView a = view();
        RoutingView b = view();
        SlotAssignment spread = row(0, 1, List.of("n0", "n1", "n2"), List.of("n1"),
                List.of("n9", "n3", "n7"), List.of("n11"));
        NodeWeight w = NodeWeight.newBuilder().setCluster("c1").setNode("n9").setEpoch(1).setWeight(1.7)
                .setUpdatedAt(Instant.EPOCH).build();
        // learned in another order: the node indexes differ, the picks must not
        a.apply(w);
        a.apply(spread);
        b.apply(spread);
        b.apply(w);
        b.setFreeRatio("n3", 0.4);
        a.setFreeRatio("n3", 0.4);
        for (int k = 0; k < 20_000; k++) {
            assertThat(b.pick("key-" + k)).isEqualTo(a.pick("key-" + k));
            assertThat(b.probeOrder("key-" + k)).isEqualTo(a.probeOrder("key-" + k));
        }
    }

    @Test
    void aSpreadNodeThatRefusesAWriteFallsBackToTheSlotsOwnWinner() {
        RoutingView view = view();
        view.apply(row(1, 1, List.of("n0", "n1", "n2"), List.of(), List.of("n5"), List.of()));
        int fellBack = 0;
        for (String key : keysOf(view, 1, 2000)) {
            String node = view.pick(key);
            String fallback = view.fallback(key, node);
            if (node.equals("n5")) {
                assertThat(fallback).isIn("n0", "n1", "n2").isEqualTo(view.probeOrder(key).get(1));
                fellBack++;
            } else {
                assertThat(fallback).as("a candidate's refusal is a stale table, not a spread").isNull();
            }
        }
        assertThat(fellBack).isPositive();
    }

    @Test
    void rowsWhoseSpreadOrHeldNodesAreCandidatesOrRepeatAreRefusedNamingThem() {
        RoutingView view = view();
        assertThatThrownBy(() -> view.apply(row(1, 1, List.of("n0", "n1", "n2"), List.of(), List.of("n1"), List.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("slot 1: spread node n1 is also one of its candidates [n0, n1, n2]");
        assertThatThrownBy(() -> view.apply(row(1, 1, List.of("n0", "n1", "n2"), List.of(), List.of("n5"), List.of("n5"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("slot 1: spread node n5 is also one of its held nodes [n5]");
        assertThatThrownBy(() -> view.apply(row(1, 1, List.of("n0", "n1", "n2"), List.of(), List.of(), List.of("n2"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("slot 1: held node n2 is also one of its candidates [n0, n1, n2]");
        assertThatThrownBy(() -> view.apply(row(1, 1, List.of("n0", "n1", "n2"), List.of(), List.of("n5", "n5"), List.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slot 1:").hasMessageContaining("appears twice");
        // nothing of the refused rows was taken
        assertThat(view.spread(1)).isEmpty();
        assertThat(view.routingEpoch(1)).isZero();
    }

    @Test
    void aReaderFindsEveryKeyThroughProbeWithoutAllocatingAList() {
        RoutingView view = view();
        view.apply(row(1, 1, List.of("n0", "n1", "n2"), List.of(), List.of("n5", "n6", "n8"), List.of("n9")));
        ProbeOrder order = new ProbeOrder(view.maxHolders());
        int[] probes = new int[view.maxHolders()];
        for (String key : keysOf(view, 1, 500)) {
            int home = view.nodes().indexOf(view.pick(key));
            assertThat(view.probe(HashRing.hashKey(key), order, probes, node -> node == home)).isEqualTo(1);
        }
        assertThat(view.probe(HashRing.hashKey(keysOf(view, 1, 1).get(0)), order, probes, node -> false)).isZero();
    }
}
