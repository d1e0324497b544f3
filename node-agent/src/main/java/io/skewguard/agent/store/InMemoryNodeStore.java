package io.skewguard.agent.store;

import io.skewguard.core.slots.SlotTable;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A {@link NodeStore} that really holds its keys, per slot, in memory: what the simulator and the
 * tests use to prove that no key is lost across copy, switch, abort and cleanup. The semantics are
 * those of every {@link LedgerNodeStore}; {@link RocksDbNodeStore} is the same store kept on disk.
 */
public final class InMemoryNodeStore extends LedgerNodeStore {

    /**
     * @param node this node's id
     * @param slotCount S, a power of two (see {@link SlotTable#requireSlotCount})
     * @param clockMillis the clock that paces copies; tests and the simulator drive it
     * @param peers finds another node's store by id (the source or target of a copy); must return a
     *     {@link LedgerNodeStore} or null
     */
    public InMemoryNodeStore(String node, int slotCount, LongSupplier clockMillis, Function<String, ? extends NodeStore> peers) {
        super(node, slotCount, clockMillis, peers, new MemoryLedger());
    }

    @Override
    public String toString() {
        return "InMemoryNodeStore[" + node() + "]";
    }
}
