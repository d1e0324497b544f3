package io.skewguard.agent.command;

import io.skewguard.agent.store.NodeStore;

/**
 * One step the {@link CommandApplier} decided the node's store must carry out. The applier only
 * decides; the agent carries the actions out, in order, with {@link #applyTo}. Each is idempotent
 * on the store, so carrying one out twice (after a crash before the state file was written) is
 * harmless.
 */
public sealed interface StoreAction {

    /** Carries this step out on {@code store}. */
    void applyTo(NodeStore store);

    /** A new weight factor. */
    record SetWeight(long epoch, double weight) implements StoreAction {
        @Override
        public void applyTo(NodeStore store) {
            store.applyWeight(epoch, weight);
        }
    }

    /** Target: start (or resume) the dual-write and the copy. */
    record StartCopy(String migrationId, int slot, String source, long maxBytesPerSec) implements StoreAction {
        @Override
        public void applyTo(NodeStore store) {
            store.startCopy(migrationId, slot, source, maxBytesPerSec);
        }
    }

    /** Source: the dual-write is on. */
    record PrepareSource(String migrationId, int slot, String target) implements StoreAction {
        @Override
        public void applyTo(NodeStore store) {
            store.prepareSource(migrationId, slot, target);
        }
    }

    /** Target: the copy is this node's shard now. */
    record CommitTarget(String migrationId, int slot) implements StoreAction {
        @Override
        public void applyTo(NodeStore store) {
            store.commitTarget(migrationId, slot);
        }
    }

    /** Source: the shard belongs to the target now. */
    record CommitSource(String migrationId, int slot, String target) implements StoreAction {
        @Override
        public void applyTo(NodeStore store) {
            store.commitSource(migrationId, slot, target);
        }
    }

    /** Target: drop the copy. */
    record AbortTarget(String migrationId, int slot) implements StoreAction {
        @Override
        public void applyTo(NodeStore store) {
            store.abortTarget(migrationId, slot);
        }
    }

    /** Source: stop the dual-write, keep everything. */
    record AbortSource(String migrationId, int slot, String target) implements StoreAction {
        @Override
        public void applyTo(NodeStore store) {
            store.abortSource(migrationId, slot, target);
        }
    }

    /** Source: free the shard. */
    record Cleanup(String migrationId, int slot) implements StoreAction {
        @Override
        public void applyTo(NodeStore store) {
            store.cleanup(migrationId, slot);
        }
    }
}
