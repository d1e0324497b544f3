package io.skewguard.sim.demo;

import io.skewguard.agent.store.CopyProgress;
import io.skewguard.agent.store.ForwardingNodeStore;
import io.skewguard.agent.store.InMemoryNodeStore;

/**
 * An {@link InMemoryNodeStore} seen at the simulated cluster's size: one byte it holds stands for
 * {@code scale} bytes of the simulated node. Only the figures cross the boundary scaled — a COPY's
 * bandwidth (simulated bytes/s, as the migrator budgets it) becomes {@code rate / scale} real bytes/s,
 * and a copy's progress is reported back in simulated bytes — so the agent and the migrator see a
 * terabyte-sized node while the JVM holds megabytes. Every key really lives in the inner store.
 */
final class ScaledNodeStore extends ForwardingNodeStore {

    private final InMemoryNodeStore inner;
    private final double scale;

    ScaledNodeStore(InMemoryNodeStore inner, double scale) {
        super(inner);
        this.inner = inner;
        this.scale = scale;
    }

    InMemoryNodeStore inner() {
        return inner;
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
}
