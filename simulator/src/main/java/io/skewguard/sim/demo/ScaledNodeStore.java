package io.skewguard.sim.demo;

import io.skewguard.agent.store.CopyProgress;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.agent.store.NodeStore;
import io.skewguard.agent.store.Versioned;
import java.util.Optional;

/**
 * An {@link InMemoryNodeStore} seen at the simulated cluster's size: one byte it holds stands for
 * {@code scale} bytes of the simulated node. Only the figures cross the boundary scaled — a COPY's
 * bandwidth (simulated bytes/s, as the migrator budgets it) becomes {@code rate / scale} real bytes/s,
 * and a copy's progress is reported back in simulated bytes — so the agent and the migrator see a
 * terabyte-sized node while the JVM holds megabytes. Every key really lives in the inner store.
 */
final class ScaledNodeStore implements NodeStore {

    private final InMemoryNodeStore inner;
    private final double scale;

    ScaledNodeStore(InMemoryNodeStore inner, double scale) {
        this.inner = inner;
        this.scale = scale;
    }

    InMemoryNodeStore inner() {
        return inner;
    }

    @Override
    public String node() {
        return inner.node();
    }

    @Override
    public int slotCount() {
        return inner.slotCount();
    }

    @Override
    public void put(String key, long version, byte[] value) {
        inner.put(key, version, value);
    }

    @Override
    public Optional<Versioned> get(String key) {
        return inner.get(key);
    }

    @Override
    public void applyWeight(long epoch, double weight) {
        inner.applyWeight(epoch, weight);
    }

    @Override
    public void startCopy(String migrationId, int slot, String sourceNode, long maxBytesPerSec) {
        long real = maxBytesPerSec <= 0 ? maxBytesPerSec : Math.max(1, Math.round(maxBytesPerSec / scale));
        inner.startCopy(migrationId, slot, sourceNode, real);
    }

    @Override
    public CopyProgress copyProgress(String migrationId) {
        CopyProgress p = inner.copyProgress(migrationId);
        return new CopyProgress(p.migrationId(), p.status(), Math.round(p.bytesCopied() * scale),
                Math.round(p.bytesTotal() * scale), p.message());
    }

    @Override
    public void prepareSource(String migrationId, int slot, String targetNode) {
        inner.prepareSource(migrationId, slot, targetNode);
    }

    @Override
    public void commitTarget(String migrationId, int slot) {
        inner.commitTarget(migrationId, slot);
    }

    @Override
    public void commitSource(String migrationId, int slot, String targetNode) {
        inner.commitSource(migrationId, slot, targetNode);
    }

    @Override
    public void abortTarget(String migrationId, int slot) {
        inner.abortTarget(migrationId, slot);
    }

    @Override
    public void abortSource(String migrationId, int slot, String targetNode) {
        inner.abortSource(migrationId, slot, targetNode);
    }

    @Override
    public void cleanup(String migrationId, int slot) {
        inner.cleanup(migrationId, slot);
    }
}
