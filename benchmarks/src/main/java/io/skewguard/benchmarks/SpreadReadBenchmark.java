package io.skewguard.benchmarks;

import io.skewguard.agent.RoutingView;
import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.ring.ProbeOrder;
import io.skewguard.core.ring.WeightedPick;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SlotAssignment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A read in a spread slot (docs/design.md §3.5): {@link RoutingView#probe} computes the slot's probe
 * order ({@link ProbeOrder}: every holder scored, the writers' and own writers' winners first) and asks
 * the nodes in it until one holds the key. 48 nodes on 16 racks with uneven weights and free ratios,
 * 256 slots of 8 candidates, every slot spread over {@code extras} nodes of the ring's extension; the
 * keys were written before the spread (the worst case: a spread node wins for some of them, and
 * their read takes a second probe). Baseline in the same run: the read of a slot that is not spread
 * as readers did it before spreading, {@code pickTop} over the 8 candidates. Run with
 * {@code -prof gc}: 0 B/op.
 *
 * <p>{@link #probeCounts} counts the probes themselves, exactly, for the table of docs/benchmarks.md.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class SpreadReadBenchmark {

    private static final int KEY_COUNT = 1 << 16;
    static final int NODES = 48;
    static final int SLOTS = 256;

    @Param({"0", "4", "8", "24", "40"})
    int extras;

    RoutingView view;
    long[] keys;
    int[] home;
    ProbeOrder order;
    int[] probes;
    WeightedPick pick;
    CandidateSet[] candidates;
    double[] effective;
    int[] top;
    double[] scores;
    int cursor;

    @Setup
    public void setUp() {
        Configuration s = build(extras, 42);
        view = s.view;
        keys = s.keys;
        home = s.home;
        order = new ProbeOrder(view.maxHolders());
        probes = new int[view.maxHolders()];
        pick = WeightedPick.over(view.nodes());
        candidates = new CandidateSet[SLOTS];
        for (int slot = 0; slot < SLOTS; slot++) {
            candidates[slot] = view.route(slot).candidates();
        }
        effective = new double[view.nodes().size()];
        for (int n = 0; n < effective.length; n++) {
            effective[n] = view.effectiveWeight(n);
        }
        top = new int[8];
        scores = new double[8];
    }

    /** One read of a key written before its slot spread: probes until the node holding it. */
    @Benchmark
    public int read() {
        int k = cursor++ & (KEY_COUNT - 1);
        int holder = home[k];
        return view.probe(keys[k], order, probes, node -> node == holder);
    }

    /** The baseline: a reader's order of an unspread slot before spreading, {@code pickTop} over its 8 candidates. */
    @Benchmark
    public int pickTopCandidates() {
        int k = cursor++ & (KEY_COUNT - 1);
        long hash = keys[k];
        pick.pickTop(hash, candidates[SlotTable.slotOf(hash, SLOTS)], effective, 8, top, scores);
        return top[0];
    }

    /** The routing state and keys of one configuration: every slot spread over {@code extras} nodes after the keys were written. */
    static Configuration build(int extras, long seed) {
        List<Node> members = new ArrayList<>(NODES);
        for (int n = 0; n < NODES; n++) {
            members.add(Node.of(String.format("node-%03d", n), "rack-" + (n % 16)));
        }
        HashRing ring = HashRing.of(members);
        SlotTable table = SlotTable.fromRing(ring, SlotTable.DEFAULT_CANDIDATES, SLOTS);
        RoutingView view = RoutingView.of("c1", table);
        SplittableRandom random = new SplittableRandom(7);
        for (int n = 0; n < NODES; n++) {
            String id = String.format("node-%03d", n);
            view.apply(NodeWeight.newBuilder().setCluster("c1").setNode(id).setEpoch(1)
                    .setWeight(0.5 + 1.5 * random.nextDouble()).setUpdatedAt(Instant.EPOCH).build());
            view.setFreeRatio(id, 0.05 + 0.9 * random.nextDouble());
        }
        long[] keys = new long[KEY_COUNT];
        int[] home = new int[KEY_COUNT];
        SplittableRandom keyRandom = new SplittableRandom(seed);
        for (int i = 0; i < KEY_COUNT; i++) {
            keys[i] = HashRing.hashKey("object/" + Long.toHexString(keyRandom.nextLong()));
            home[i] = view.nodes().indexOf(view.pickHash(keys[i]));
        }
        boolean[] all = new boolean[ring.nodes().size()];
        Arrays.fill(all, true);
        for (int slot = 0; slot < SLOTS; slot++) {
            int[] extension = ring.extension(SlotTable.slotPoint(slot, SLOTS), table.candidates(slot).nodes(), extras, all);
            List<String> spread = new ArrayList<>();
            for (int n : extension) {
                spread.add(ring.nodes().id(n));
            }
            view.apply(SlotAssignment.newBuilder().setCluster("c1").setSlot(slot).setRoutingEpoch(1)
                    .setCandidates(table.candidateIds(slot)).setSpread(spread).setUpdatedAt(Instant.EPOCH).build());
        }
        return new Configuration(view, keys, home);
    }

    record Configuration(RoutingView view, long[] keys, int[] home) {}

    /**
     * Exact probes per read, mean and p99, with {@code extras} spread nodes per slot: keys written
     * before the spread, and keys written after it; one markdown row.
     */
    static String probeCounts(int extras) {
        Configuration s = build(extras, 42);
        ProbeOrder order = new ProbeOrder(s.view.maxHolders());
        int[] probes = new int[s.view.maxHolders()];
        int[] before = new int[KEY_COUNT];
        int[] after = new int[KEY_COUNT];
        for (int k = 0; k < KEY_COUNT; k++) {
            int holder = s.home[k];
            before[k] = s.view.probe(s.keys[k], order, probes, node -> node == holder);
            int now = s.view.nodes().indexOf(s.view.pickHash(s.keys[k]));
            after[k] = s.view.probe(s.keys[k], order, probes, node -> node == now);
        }
        return String.format(Locale.ROOT, "| %d | %d | %.3f | %d | %d | %.3f | %d |", extras, 8 + extras, mean(before), p99(before),
                Arrays.stream(before).max().orElse(0), mean(after), p99(after));
    }

    private static double mean(int[] v) {
        return Arrays.stream(v).average().orElse(0);
    }

    private static int p99(int[] v) {
        int[] sorted = v.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.ceil(0.99 * sorted.length) - 1];
    }
}
