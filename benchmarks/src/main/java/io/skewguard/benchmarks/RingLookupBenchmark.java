package io.skewguard.benchmarks;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import net.openhft.hashing.LongHashFunction;
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
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Ring lookup of a String key: {@link HashRing} (sorted {@code long[]}/{@code int[]} with a prefix index)
 * against the textbook {@code TreeMap<Long, String>} ring ({@code ceilingEntry}, wrap to
 * {@code firstEntry}). Both rings have 150 points per node hashed with the same XXH3, and both hash the
 * key with XXH3 on every call. Keys: 4096 pre-generated 26-char strings, cycled.
 *
 * <p>{@link #hashRingPrehashed}, {@link #treeMapRingPrehashed} and {@link #keyHashOnly} split the cost
 * into ring walk and key hashing (the same XXH3 in both rings). Run with {@code -prof gc}: the HashRing paths must show ≈ 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RingLookupBenchmark {

    static final int KEY_COUNT = 4096;
    static final int KEY_LENGTH = 26;
    private static final LongHashFunction XX3 = LongHashFunction.xx3();

    @Param({"48", "512"})
    int nodes;

    HashRing ring;
    TreeMap<Long, String> treeRing;
    String[] keys;
    long[] keyHashes;
    int cursor;

    @Setup
    public void setUp() {
        List<Node> members = new ArrayList<>(nodes);
        treeRing = new TreeMap<>();
        for (int n = 0; n < nodes; n++) {
            String id = String.format("node-%03d", n);
            members.add(Node.of(id));
            for (int v = 0; v < HashRing.DEFAULT_VNODES_PER_UNIT; v++) {
                treeRing.put(XX3.hashChars(id + "#" + v), id);
            }
        }
        ring = HashRing.of(members);
        keys = randomKeys(new SplittableRandom(42));
        keyHashes = new long[KEY_COUNT];
        for (int i = 0; i < KEY_COUNT; i++) {
            keyHashes[i] = HashRing.hashKey(keys[i]);
        }
    }

    static String[] randomKeys(SplittableRandom random) {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789/-_";
        String[] keys = new String[KEY_COUNT];
        char[] chars = new char[KEY_LENGTH];
        for (int i = 0; i < KEY_COUNT; i++) {
            for (int c = 0; c < KEY_LENGTH; c++) {
                chars[c] = alphabet.charAt(random.nextInt(alphabet.length()));
            }
            keys[i] = new String(chars);
        }
        return keys;
    }

    /** Ours: XXH3 of the key, then prefix bucket and short scan. */
    @Benchmark
    public int hashRing() {
        return ring.lookup(keys[cursor++ & (KEY_COUNT - 1)]);
    }

    /** Baseline: XXH3 of the key, then {@code TreeMap.ceilingEntry} with wrap. */
    @Benchmark
    public String treeMapRing() {
        long hash = XX3.hashChars(keys[cursor++ & (KEY_COUNT - 1)]);
        Map.Entry<Long, String> entry = treeRing.ceilingEntry(hash);
        return (entry != null ? entry : treeRing.firstEntry()).getValue();
    }

    /** Ours without key hashing: the ring walk alone. */
    @Benchmark
    public int hashRingPrehashed() {
        return ring.lookup(keyHashes[cursor++ & (KEY_COUNT - 1)]);
    }

    /** Baseline without key hashing: {@code ceilingEntry} (boxing the hash) with wrap. */
    @Benchmark
    public String treeMapRingPrehashed() {
        Map.Entry<Long, String> entry = treeRing.ceilingEntry(keyHashes[cursor++ & (KEY_COUNT - 1)]);
        return (entry != null ? entry : treeRing.firstEntry()).getValue();
    }

    /** Key hashing alone: XXH3 of a 26-char String. */
    @Benchmark
    public long keyHashOnly() {
        return HashRing.hashKey(keys[cursor++ & (KEY_COUNT - 1)]);
    }
}
