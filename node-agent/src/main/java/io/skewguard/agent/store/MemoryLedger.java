package io.skewguard.agent.store;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The ledger of an {@link InMemoryNodeStore}: the keys in hash maps, nothing written down. Its
 * changes take effect at once (the store reads before it writes, so that is the same as at commit),
 * and the store's small state lives in the store itself.
 */
final class MemoryLedger implements Ledger, Ledger.Changes {

    // one map per slot, each used under its slot's lock; the map of slots is shared by them
    private final Map<Integer, Map<String, Versioned>> slots = new ConcurrentHashMap<>();

    @Override
    public Recovered recover() {
        return Recovered.EMPTY;
    }

    @Override
    public Versioned value(int slot, String key) {
        Map<String, Versioned> shard = slots.get(slot);
        return shard == null ? null : shard.get(key);
    }

    @Override
    public SortedMap<String, Long> sizes(int slot) {
        SortedMap<String, Long> out = new TreeMap<>();
        slots.getOrDefault(slot, Map.of()).forEach((key, entry) -> out.put(key, LedgerNodeStore.size(key, entry)));
        return out;
    }

    @Override
    public Changes changes() {
        return this;
    }

    @Override
    public void put(int slot, String key, Versioned entry, SlotFigures figures) {
        slots.computeIfAbsent(slot, s -> new HashMap<>()).put(key, entry);
    }

    @Override
    public void drop(int slot) {
        slots.remove(slot);
    }

    @Override
    public void state(Supplier<Snapshot> state) {
        // the store keeps its state itself; nothing to write down
    }

    @Override
    public void copyKeys(String migrationId, List<String> keys) {
        // the copy keeps its key list itself
    }

    @Override
    public void dropCopyKeys(String migrationId) {
        // see copyKeys
    }

    @Override
    public void commit() {
        // every change took effect when it was made
    }
}
