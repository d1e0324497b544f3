package io.skewguard.benchmarks;

import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.ring.WeightedPick;
import io.skewguard.core.slots.SlotTable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Write placement for a pre-hashed key: find the slot's candidate set in a 256-slot table (m = 8,
 * 16 racks) and run the weighted rendezvous over its 8 candidates with uneven effective weights.
 * {@link #pickTop3} ranks the best 3 (read probe order). Run with {@code -prof gc}: both must show
 * ≈ 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class WeightedPickBenchmark {

    @Param({"48", "512"})
    int nodes;

    SlotTable table;
    WeightedPick pick;
    double[] effectiveWeight;
    long[] keyHashes;
    int[] top = new int[3];
    double[] topScores = new double[3];
    int cursor;

    @Setup
    public void setUp() {
        List<Node> members = new ArrayList<>(nodes);
        for (int n = 0; n < nodes; n++) {
            members.add(Node.of(String.format("node-%03d", n), "rack-" + (n % 16)));
        }
        HashRing ring = HashRing.of(members);
        table = SlotTable.fromRing(ring, SlotTable.DEFAULT_CANDIDATES);
        pick = WeightedPick.over(ring.nodes());
        SplittableRandom random = new SplittableRandom(7);
        effectiveWeight = new double[ring.nodes().size()];
        for (int n = 0; n < effectiveWeight.length; n++) {
            double weightFactor = 0.5 + 1.5 * random.nextDouble();
            double freeRatio = 0.05 + 0.9 * random.nextDouble();
            effectiveWeight[n] = weightFactor * freeRatio;
        }
        String[] keys = RingLookupBenchmark.randomKeys(new SplittableRandom(42));
        keyHashes = new long[keys.length];
        for (int i = 0; i < keys.length; i++) {
            keyHashes[i] = HashRing.hashKey(keys[i]);
        }
    }

    /** Slot lookup plus pick among its 8 candidates. */
    @Benchmark
    public int pick() {
        long keyHash = keyHashes[cursor++ & (RingLookupBenchmark.KEY_COUNT - 1)];
        CandidateSet candidates = table.locateHash(keyHash);
        return pick.pick(keyHash, candidates, effectiveWeight);
    }

    /** Slot lookup plus the 3 best candidates in score order. */
    @Benchmark
    public int pickTop3() {
        long keyHash = keyHashes[cursor++ & (RingLookupBenchmark.KEY_COUNT - 1)];
        CandidateSet candidates = table.locateHash(keyHash);
        pick.pickTop(keyHash, candidates, effectiveWeight, 3, top, topScores);
        return top[0] + top[1] + top[2];
    }
}
