package io.skewguard.agent.store;

import java.util.Optional;

/**
 * A {@link NodeStore} that hands every call to another one: extend it and override only what a
 * wrapper changes (the demo scales a copy's bytes, the simulator's fast mode mirrors steps into its
 * byte model).
 */
public abstract class ForwardingNodeStore implements NodeStore {

    private final NodeStore delegate;

    protected ForwardingNodeStore(NodeStore delegate) {
        this.delegate = java.util.Objects.requireNonNull(delegate, "delegate");
    }

    /** The store every call is handed to. */
    protected NodeStore delegate() {
        return delegate;
    }

    @Override
    public String node() {
        return delegate.node();
    }

    @Override
    public int slotCount() {
        return delegate.slotCount();
    }

    @Override
    public void put(String key, long version, byte[] value) {
        delegate.put(key, version, value);
    }

    @Override
    public Optional<Versioned> get(String key) {
        return delegate.get(key);
    }

    @Override
    public void applyWeight(long epoch, double weight) {
        delegate.applyWeight(epoch, weight);
    }

    @Override
    public void startCopy(String migrationId, int slot, String sourceNode, long maxBytesPerSec) {
        delegate.startCopy(migrationId, slot, sourceNode, maxBytesPerSec);
    }

    @Override
    public CopyProgress copyProgress(String migrationId) {
        return delegate.copyProgress(migrationId);
    }

    @Override
    public void prepareSource(String migrationId, int slot, String targetNode) {
        delegate.prepareSource(migrationId, slot, targetNode);
    }

    @Override
    public void commitTarget(String migrationId, int slot) {
        delegate.commitTarget(migrationId, slot);
    }

    @Override
    public void commitSource(String migrationId, int slot, String targetNode) {
        delegate.commitSource(migrationId, slot, targetNode);
    }

    @Override
    public void abortTarget(String migrationId, int slot) {
        delegate.abortTarget(migrationId, slot);
    }

    @Override
    public void abortSource(String migrationId, int slot, String targetNode) {
        delegate.abortSource(migrationId, slot, targetNode);
    }

    @Override
    public void cleanup(String migrationId, int slot) {
        delegate.cleanup(migrationId, slot);
    }
}
