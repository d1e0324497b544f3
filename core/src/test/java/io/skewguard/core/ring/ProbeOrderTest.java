package io.skewguard.core.ring;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.core.slots.SlotSpread;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.core.slots.SpreadUpdate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class ProbeOrderTest {

    /** Rings by (nodes, racks), built once: a ring of 48 nodes sorts 7 200 points. */
    private static final java.util.Map<Long, HashRing> RINGS = new java.util.concurrent.ConcurrentHashMap<>();

    private static HashRing ring(int n, int racks) {
        return RINGS.computeIfAbsent(((long) n << 32) | racks, k -> build(n, racks));
    }

    private static HashRing build(int n, int racks) {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            nodes.add(Node.of("n" + i, racks == 0 ? null : "r" + (i % racks)));
        }
        return HashRing.of(nodes, 150);
    }

    private static double[] weights(int n, SplittableRandom random) {
        double[] w = new double[n];
        for (int i = 0; i < n; i++) {
            w[i] = 0.5 + 1.5 * random.nextDouble();
        }
        return w;
    }

    private static boolean[] all(int n) {
        boolean[] e = new boolean[n];
        Arrays.fill(e, true);
        return e;
    }

    /** 1-based probe at which {@code node} comes in the order, or 0 when it never does. */
    private static int probeOf(int node, int[] order, int count) {
        for (int i = 0; i < count; i++) {
            if (order[i] == node) {
                return i + 1;
            }
        }
        return 0;
    }

    @Property(tries = 100)
    void aSpreadNeverChangesWhereAKeyWrittenBeforeItIsFound(@ForAll long seed, @ForAll @IntRange(min = 1, max = 30) int extras) {
        SplittableRandom random = new SplittableRandom(seed);
        HashRing ring = ring(40, 5);
        SlotTable table = SlotTable.fromRing(ring, 8, 64);
        int slot = random.nextInt(64);
        double[] w = weights(40, random);
        WeightedPick pick = WeightedPick.over(ring.nodes());
        SlotSpread before = SlotSpread.of(table.candidates(slot));
        SlotSpread after = new SpreadUpdate(slot, extras, "hot").apply(ring, 64, before, all(40));
        ProbeOrder probes = new ProbeOrder(8);
        int[] order = new int[after.holders().size()];
        for (int k = 0; k < 200; k++) {
            long hash = random.nextLong();
            int home = pick.pick(hash, before.writers(), w);
            int count = probes.order(pick, hash, after, w, order);
            assertThat(count).isEqualTo(8 + extras);
            int probe = probeOf(home, order, count);
            // found, and at probe 1 (the spread's winner is a candidate) or 2 (it is a spread node)
            assertThat(probe).isBetween(1, 2);
            assertThat(probe == 1).isEqualTo(pick.pick(hash, after.writers(), w) == home);
            // a key written now is found at once
            assertThat(order[0]).isEqualTo(pick.pick(hash, after.writers(), w));
        }
    }

    @Property(tries = 100)
    void narrowingNeverLosesAKeyWrittenDuringTheSpread(@ForAll long seed, @ForAll @IntRange(min = 1, max = 30) int extras) {
        SplittableRandom random = new SplittableRandom(seed);
        HashRing ring = ring(40, 0);
        SlotTable table = SlotTable.fromRing(ring, 8, 64);
        int slot = random.nextInt(64);
        double[] w = weights(40, random);
        WeightedPick pick = WeightedPick.over(ring.nodes());
        SlotSpread spread = new SpreadUpdate(slot, extras, "hot").apply(ring, 64, SlotSpread.of(table.candidates(slot)), all(40));
        SlotSpread narrow = spread.narrowed();
        ProbeOrder probes = new ProbeOrder(1);
        int[] order = new int[narrow.holders().size()];
        for (int k = 0; k < 200; k++) {
            long hash = random.nextLong();
            int home = pick.pick(hash, spread.writers(), w);
            int count = probes.order(pick, hash, narrow, w, order);
            assertThat(probeOf(home, order, count)).isBetween(1, 2);
            assertThat(order[0]).isEqualTo(pick.pick(hash, narrow.writers(), w));
        }
    }

    @Property(tries = 100)
    void whateverTheWeightsDidSinceEveryHolderIsProbedOnce(@ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        HashRing ring = ring(30, 3);
        SlotTable table = SlotTable.fromRing(ring, 6, 32);
        int slot = random.nextInt(32);
        SlotSpread s = new SpreadUpdate(slot, 1 + random.nextInt(20), "hot")
                .apply(ring, 32, SlotSpread.of(table.candidates(slot)), all(30));
        s = SlotSpread.of(s.candidates(), new int[] {s.candidates().node(1)}, s.spread(), s.held());
        double[] w = weights(30, random);
        w[s.candidates().node(0)] = 0; // a full node
        ProbeOrder probes = new ProbeOrder(4);
        int[] order = new int[s.holders().size()];
        int count = probes.order(WeightedPick.over(ring.nodes()), random.nextLong(), s, w, order);
        int[] sorted = Arrays.copyOf(order, count);
        Arrays.sort(sorted);
        int[] holders = s.holders().nodes();
        Arrays.sort(holders);
        assertThat(sorted).containsExactly(holders);
        // no positive weight: after every other candidate
        int full = probeOf(s.candidates().node(0), order, count);
        for (int k = 1; k < s.candidates().size(); k++) {
            assertThat(probeOf(s.candidates().node(k), order, count)).isLessThan(full);
        }
    }

    @Property(tries = 100)
    void aKeyWrittenBeforeTheSpreadIsFoundAmongTheFirstMPlusTwoProbesWhateverTheWeightsDidSince(@ForAll long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        HashRing ring = ring(48, 8);
        SlotTable table = SlotTable.fromRing(ring, 8, 64);
        int slot = random.nextInt(64);
        WeightedPick pick = WeightedPick.over(ring.nodes());
        SlotSpread before = SlotSpread.of(table.candidates(slot));
        SlotSpread after = new SpreadUpdate(slot, 40, "hot").apply(ring, 64, before, all(48));
        double[] then = weights(48, random);
        double[] now = weights(48, random); // other weights and free ratios since
        ProbeOrder probes = new ProbeOrder(48);
        int[] order = new int[48];
        for (int k = 0; k < 200; k++) {
            long hash = random.nextLong();
            int home = pick.pick(hash, before.writers(), then);
            int count = probes.order(pick, hash, after, now, order);
            assertThat(probeOf(home, order, count)).isBetween(1, 10);
        }
    }

    @Test
    void anUnspreadSlotIsProbedInPickTopOrder() {
        HashRing ring = ring(20, 4);
        SlotTable table = SlotTable.fromRing(ring, 8, 16);
        WeightedPick pick = WeightedPick.over(ring.nodes());
        double[] w = weights(20, new SplittableRandom(7));
        w[table.candidates(3).node(2)] = 0;
        ProbeOrder probes = new ProbeOrder(8);
        int[] order = new int[8];
        int[] top = new int[8];
        double[] scores = new double[8];
        SplittableRandom random = new SplittableRandom(1);
        for (int k = 0; k < 500; k++) {
            long hash = random.nextLong();
            assertThat(probes.order(pick, hash, SlotSpread.of(table.candidates(3)), w, order)).isEqualTo(8);
            pick.pickTop(hash, table.candidates(3), w, 8, top, scores);
            assertThat(order).containsExactly(top);
        }
    }

    @Test
    void aKeyWrittenBeforeADrainMarkIsFoundByTheThirdProbe() {
        HashRing ring = ring(20, 0);
        SlotTable table = SlotTable.fromRing(ring, 4, 16);
        WeightedPick pick = WeightedPick.over(ring.nodes());
        double[] w = weights(20, new SplittableRandom(3));
        CandidateSet c = table.candidates(9);
        SlotSpread drained = new SpreadUpdate(9, 3, "hot").apply(ring, 16, SlotSpread.of(c), all(20));
        drained = SlotSpread.of(c, new int[] {c.node(0), c.node(1)}, drained.spread(), drained.held());
        ProbeOrder probes = new ProbeOrder(7);
        int[] order = new int[7];
        SplittableRandom random = new SplittableRandom(2);
        for (int k = 0; k < 500; k++) {
            long hash = random.nextLong();
            int home = pick.pick(hash, c, w);
            int count = probes.order(pick, hash, drained, w, order);
            assertThat(probeOf(home, order, count)).isBetween(1, 3);
        }
    }
}
