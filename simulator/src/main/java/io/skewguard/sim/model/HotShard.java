package io.skewguard.sim.model;

import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;

/**
 * A hot spot: one shard's write rate × k from its start on (docs/design.md §10). The shard is (slot s, the
 * writer of s taking most of its writes then: a candidate, or a spread node of a spread slot); the
 * extra writes, {@code (k − 1)} times that shard's write share of the cluster, come from the event's
 * hot keys of slot s (32 unless the scenario says) that the writers' pick places on that node at the
 * start. Every step each hot key's share goes to whichever writer the routing view picks for it
 * under the current {@code w × freeRatio} — so lowering the hot node's weight, or widening the slot's spread, moves
 * exactly the hot keys whose rendezvous winner changes, as it would in a real cluster.
 */
public final class HotShard {

    private final int slot;
    private final int node;
    private final double extraShare;
    private final long[] keys;
    private final double shardBytesAtStart;

    private HotShard(int slot, int node, double extraShare, long[] keys, double shardBytesAtStart) {
        this.slot = slot;
        this.node = node;
        this.extraShare = extraShare;
        this.keys = keys;
        this.shardBytesAtStart = shardBytesAtStart;
    }

    static HotShard start(Cluster cluster, int slot, double factor, int keyCount) {
        cluster.refreshEffectiveWeights();
        double[] effective = cluster.effectiveWeights();
        CandidateSet set = cluster.writers(slot);
        int hot = set.node(0);
        double sum = 0;
        for (int k = 0; k < set.size(); k++) {
            int n = set.node(k);
            sum += effective[n];
            if (effective[n] > effective[hot]) {
                hot = n;
            }
        }
        double fraction = sum > 0 ? effective[hot] / sum : 1.0 / set.size();
        long[] keys = new long[keyCount];
        int found = 0;
        long seed = cluster.scenario().seed();
        for (long i = 0; found < keyCount; i++) {
            long hash = HashRing.hashKey("hot-" + seed + "-" + slot + "-" + i);
            // when every candidate is full no key lands anywhere: any key of the slot will do
            if (cluster.slotTable().slotOfHash(hash) == slot && (sum <= 0 || cluster.pickWriter(hash) == hot)) {
                keys[found++] = hash;
            }
        }
        return new HotShard(slot, hot, (factor - 1) * cluster.share(slot) * fraction, keys,
                cluster.shardBytes(slot, hot));
    }

    /** Writes this step's extra bytes of the hot keys ({@code stepBytes} is the cluster's step writes). */
    double write(Cluster cluster, double stepBytes) {
        double perKey = stepBytes * extraShare / keys.length;
        double written = 0;
        for (long hash : keys) {
            int target;
            try {
                target = cluster.pickWriter(hash);
            } catch (IllegalStateException full) {
                cluster.refuse(perKey);
                continue;
            }
            cluster.addWrite(slot, target, perKey);
            written += perKey;
        }
        return written;
    }

    public int slot() {
        return slot;
    }

    /** The node whose shard turned hot. */
    public int node() {
        return node;
    }

    /** Size of the hot shard when the hot spot started. */
    public double shardBytesAtStart() {
        return shardBytesAtStart;
    }
}
