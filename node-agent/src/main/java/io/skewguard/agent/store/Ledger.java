package io.skewguard.agent.store;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.function.Supplier;

/**
 * Where a {@link LedgerNodeStore} keeps what it holds: the keys' values per slot, and (for a durable
 * ledger) a written-down copy of the store's small state so that a reopened store continues where
 * it stopped. The store decides everything (one source of truth for the semantics); a ledger only
 * reads and writes. Called for a slot's keys only under that slot's lock, for the small state only
 * under the store's state lock (see {@link LedgerNodeStore}'s threads), so calls for different slots
 * run at the same time: a ledger keeps them apart.
 */
interface Ledger {

    /** What the ledger held when it was opened: empty for a new one. */
    Recovered recover();

    /** The entry held under {@code key} of {@code slot}, or null. */
    Versioned value(int slot, String key);

    /** The keys of {@code slot} with the size of their entries, in {@link String#compareTo} order. */
    SortedMap<String, Long> sizes(int slot);

    /**
     * Starts the changes of one store operation: applied all together by {@link Changes#commit}.
     *
     * @throws IllegalStateException if the ledger is closed or failed earlier
     */
    Changes changes();

    /**
     * The writes of one store operation. Reads ({@link #value}) need not see them before the commit:
     * the store reads what it needs before it writes.
     */
    interface Changes {

        /** {@code entry} replaces whatever {@code key} of {@code slot} held; the slot now counts {@code figures}. */
        void put(int slot, String key, Versioned entry, SlotFigures figures);

        /** Every key of {@code slot} goes. */
        void drop(int slot);

        /** The store's small state changed: {@code state} gives it as it stands at commit. */
        void state(Supplier<Snapshot> state);

        /** The key list of the copy of {@code migrationId} is {@code keys} (replacing any earlier one). */
        void copyKeys(String migrationId, List<String> keys);

        /** The copy of {@code migrationId} is gone: so is its key list. */
        void dropCopyKeys(String migrationId);

        /** Makes the changes durable (as far as the ledger is) in one atomic step. */
        void commit();
    }

    /** Keys and bytes (key chars + value bytes per entry) one slot holds. */
    record SlotFigures(long keys, long bytes) {

        static final SlotFigures NONE = new SlotFigures(0, 0);

        /** After {@code key}'s entry {@code before} (null: new key) was replaced by {@code after}. */
        SlotFigures replace(String key, Versioned before, Versioned after) {
            long delta = LedgerNodeStore.size(key, after) - (before == null ? 0 : LedgerNodeStore.size(key, before));
            return new SlotFigures(keys + (before == null ? 1 : 0), bytes + delta);
        }
    }

    /** One copy to this node as written down: everything of it except its key list. */
    record CopyRecord(String migrationId, int slot, String sourceNode, long maxBytesPerSec, long rateSince,
                      long copiedAtRateSince, long bytesTotal, String failure, int next, long bytesCopied) {}

    /** A store's state apart from its keys: dual-writes, slot marks, copies, weight. */
    record Snapshot(long weightEpoch, double weight, Map<Integer, String> forwardTo, Set<Integer> cleaned,
                    Set<Integer> accepting, Map<Integer, String> incoming, List<CopyRecord> copies) {

        static final Snapshot EMPTY = new Snapshot(-1, 1.0, Map.of(), Set.of(), Set.of(), Map.of(), List.of());
    }

    /** What an opened ledger held: the small state, the figures per slot, the key list per copy. */
    record Recovered(Snapshot state, Map<Integer, SlotFigures> figures, Map<String, List<String>> copyKeys) {

        static final Recovered EMPTY = new Recovered(Snapshot.EMPTY, Map.of(), Map.of());
    }
}
