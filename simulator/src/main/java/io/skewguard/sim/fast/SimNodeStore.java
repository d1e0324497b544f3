package io.skewguard.sim.fast;

import io.skewguard.agent.store.CopyProgress;
import io.skewguard.agent.store.ForwardingNodeStore;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.sim.model.Cluster;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * A simulated node as its agent sees it, in fast mode: the node's sampled keys really live in an
 * {@link InMemoryNodeStore} (writes, dual-writes, the copy, commit, abort and cleanup are that
 * store's own code), and the node's bytes live in the {@link Cluster} model, where shards are
 * terabytes. Every operation is carried out on both:
 *
 * <ul>
 *   <li>a COPY copies the sampled keys at once (they are a sample, not the bytes) and the shard's
 *       bytes in simulated time at the COPY's {@code maxBytesPerSec} — a repeated COPY with another
 *       rate changes the pace from then on, as the in-memory store does: the copy is DONE when the
 *       bytes copied cover the shard's bytes when the copy started (writes during the copy are
 *       dual-written by the model, see {@link Cluster#markInFlight}) and the keys are copied;
 *   <li>a weight goes to the writers' weight factor in the model ({@link Cluster#setWeight});
 *   <li>an ABORT on the target drops the model's copy, a CLEANUP frees the source's shard.
 * </ul>
 *
 * The slot-table switch itself is not the store's business: the writers (the model) follow the
 * migrator's slot-table topic, see {@link FastSkewGuard}.
 */
final class SimNodeStore extends ForwardingNodeStore {

    private final InMemoryNodeStore keys;
    private final Cluster cluster;
    private final int node;
    private final LongSupplier clock;
    private final Map<String, Copy> copies = new HashMap<>();

    /** The bytes side of one copy. */
    private static final class Copy {
        final int slot;
        final int source;
        final double bytes;
        long bytesPerSec;
        long rateSince;
        double copiedAtRateSince;
        boolean keysCopiedInModel;

        Copy(int slot, int source, double bytes, long bytesPerSec, long startedAt) {
            this.slot = slot;
            this.source = source;
            this.bytes = bytes;
            this.bytesPerSec = bytesPerSec;
            this.rateSince = startedAt;
        }

        double copied(long now) {
            if (bytesPerSec <= 0) {
                return bytes;
            }
            return Math.min(bytes, copiedAtRateSince + bytesPerSec * (Math.max(0, now - rateSince) / 1000.0));
        }

        /** A repeated COPY with another rate: what was copied stays, the rest goes at the new rate. */
        void rate(long next, long now) {
            if (next != bytesPerSec) {
                copiedAtRateSince = copied(now);
                rateSince = now;
                bytesPerSec = next;
            }
        }
    }

    SimNodeStore(InMemoryNodeStore keys, Cluster cluster, LongSupplier clock) {
        super(keys);
        this.keys = keys;
        this.cluster = cluster;
        this.node = cluster.nodes().require(keys.node());
        this.clock = clock;
    }

    InMemoryNodeStore keys() {
        return keys;
    }

    @Override
    public void applyWeight(long epoch, double weight) {
        keys.applyWeight(epoch, weight);
        cluster.setWeight(node, weight);
    }

    @Override
    public void startCopy(String migrationId, int slot, String sourceNode, long maxBytesPerSec) {
        keys.startCopy(migrationId, slot, sourceNode, 0);
        Copy running = copies.get(migrationId);
        if (running != null) {
            running.rate(maxBytesPerSec, clock.getAsLong());
        } else {
            int source = cluster.nodes().require(sourceNode);
            copies.put(migrationId, new Copy(slot, source, cluster.shardBytes(slot, source), maxBytesPerSec, clock.getAsLong()));
        }
    }

    @Override
    public CopyProgress copyProgress(String migrationId) {
        CopyProgress k = keys.copyProgress(migrationId);
        Copy c = copies.get(migrationId);
        if (c == null || k.status() == CopyProgress.Status.FAILED || k.status() == CopyProgress.Status.UNKNOWN) {
            return k;
        }
        double copied = c.copied(clock.getAsLong());
        boolean done = copied >= c.bytes && k.status() == CopyProgress.Status.DONE;
        if (!done && !cluster.alive(c.source)) {
            // the source was lost mid-copy: the rest of its shard cannot be read any more
            return new CopyProgress(migrationId, CopyProgress.Status.FAILED, Math.round(copied), Math.round(c.bytes),
                    "source node " + cluster.nodes().id(c.source) + " is lost");
        }
        if (done && !c.keysCopiedInModel) {
            cluster.copyShard(c.slot, c.source, node); // the model's key ledger follows the store
            c.keysCopiedInModel = true;
        }
        return new CopyProgress(migrationId, done ? CopyProgress.Status.DONE : CopyProgress.Status.RUNNING,
                Math.round(copied), Math.round(c.bytes), null);
    }

    @Override
    public void abortTarget(String migrationId, int slot) {
        keys.abortTarget(migrationId, slot);
        copies.remove(migrationId);
        cluster.dropCopy(slot, node);
    }

    @Override
    public void cleanup(String migrationId, int slot) {
        keys.cleanup(migrationId, slot);
        cluster.cleanup(slot, node);
    }
}
