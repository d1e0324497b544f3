package io.skewguard.sim.placement;

import io.skewguard.core.ring.HashRing;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * The placement table of the second seed (docs/design.md §10): how many keys move when a cluster of 5 nodes
 * grows to 6 or shrinks to 4, and how evenly the keys spread afterwards, for {@code hash mod N}, a bare
 * ring (one point per node) and a ring with virtual nodes.
 *
 * <p>What is measured: for each scheme and change, the fraction of keys whose node differs before and
 * after the change (an even scheme moves 1/6 for 5→6 and 1/5 for 5→4: the new node's fair share, or the
 * lost node's keys), and max/min keys per node after the change (1.0 = perfectly
 * even). Keys are {@code keys} seeded random 64-bit ids hashed with XXH3, so the same seed gives the same
 * table. Cost: O(keys × schemes) ring lookups, a few hundred milliseconds for a million keys.
 */
public final class PlacementSimulation {

    /** The two changes of the seed: a node joins (5→6) and a node leaves (5→4, the last one). */
    public enum Change {
        GROW("5→6", 5, 6),
        SHRINK("5→4", 5, 4);

        final String label;
        final int before;
        final int after;

        Change(String label, int before, int after) {
            this.label = label;
            this.before = before;
            this.after = after;
        }

        public String label() {
            return label;
        }

        /**
         * The fair share of the node that joined or left: the fraction of keys an even scheme moves. A
         * scheme moves fewer only by giving a new node less than its share.
         */
        public double fairShare() {
            return 1.0 / Math.max(before, after);
        }
    }

    /** One row of the table. */
    public record Row(String scheme, Change change, double movedFraction, long maxKeys, long minKeys) {
        /** max/min keys per node after the change; infinite when a node got no key. */
        public double maxOverMin() {
            return minKeys == 0 ? Double.POSITIVE_INFINITY : (double) maxKeys / minKeys;
        }
    }

    private final int keys;
    private final long seed;
    private final int vnodes;

    public PlacementSimulation(int keys, long seed, int vnodes) {
        if (keys < 1) {
            throw new IllegalArgumentException("--keys must be at least 1, but is " + keys);
        }
        if (vnodes < 1) {
            throw new IllegalArgumentException("--vnodes must be at least 1, but is " + vnodes);
        }
        this.keys = keys;
        this.seed = seed;
        this.vnodes = vnodes;
    }

    /** Runs every scheme under both changes; rows in scheme order, then change order. */
    public List<Row> run() {
        long[] keyHashes = keyHashes();
        List<PlacementScheme> schemes =
                List.of(new PlacementScheme.ModN(), new PlacementScheme.Ring(1), new PlacementScheme.Ring(vnodes));
        List<Row> rows = new ArrayList<>();
        for (PlacementScheme scheme : schemes) {
            for (Change change : Change.values()) {
                rows.add(measure(scheme, change, keyHashes));
            }
        }
        return rows;
    }

    private long[] keyHashes() {
        SplittableRandom random = new SplittableRandom(seed);
        long[] hashes = new long[keys];
        for (int i = 0; i < keys; i++) {
            hashes[i] = HashRing.hashKey(random.nextLong());
        }
        return hashes;
    }

    private static Row measure(PlacementScheme scheme, Change change, long[] keyHashes) {
        List<String> before = nodeIds(change.before);
        List<String> after = nodeIds(change.after);
        PlacementScheme.Placement was = scheme.over(before);
        PlacementScheme.Placement now = scheme.over(after);
        long moved = 0;
        long[] perNode = new long[after.size()];
        for (long hash : keyHashes) {
            // node ids n0..n(k-1) in both lists, so equal indexes mean the same node
            int from = was.nodeOf(hash);
            int to = now.nodeOf(hash);
            if (from != to) {
                moved++;
            }
            perNode[to]++;
        }
        long max = Long.MIN_VALUE;
        long min = Long.MAX_VALUE;
        for (long count : perNode) {
            max = Math.max(max, count);
            min = Math.min(min, count);
        }
        return new Row(scheme.name(), change, (double) moved / keyHashes.length, max, min);
    }

    private static List<String> nodeIds(int count) {
        return IntStream.range(0, count).mapToObj(i -> "node-" + i).toList();
    }
}
