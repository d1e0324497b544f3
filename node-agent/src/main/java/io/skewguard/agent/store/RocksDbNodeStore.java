package io.skewguard.agent.store;

import io.skewguard.core.slots.SlotTable;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * A {@link NodeStore} kept in a RocksDB directory: the semantics of every {@link LedgerNodeStore}
 * (the same as {@link InMemoryNodeStore}'s, in the same code), and everything it knows survives a
 * {@link #close()} and reopen or a kill of the process: the keys, the dual-write marks, the copies
 * under way with their key lists and progress, the slots committed here or cleaned up, the weight.
 *
 * <p><b>Layout.</b> The directory is one RocksDB database (column families {@code keys},
 * {@code copy-keys} and {@code default} for the state, see {@code RocksDbLedger}); it records the
 * node id and slot count it was created for and refuses to be opened as another node's store.
 *
 * <p><b>Durability.</b> Every operation is one atomic write batch through RocksDB's write-ahead log.
 * With {@link Durability#PROCESS_KILL} (the default) the log is written to the operating system
 * before the operation returns, which survives a crash or {@code SIGKILL} of the JVM but not a
 * power loss or kernel crash (the last operations may be lost, never half of one).
 * {@link Durability#POWER_LOSS} also waits for {@code fsync} on every operation: slower, and it
 * survives those too.
 *
 * <p><b>Copies after a reopen.</b> A copy runs inside {@link #copyProgress} (paced by the clock,
 * like the in-memory store's), so no thread needs restarting: the reopened store holds the copy's
 * key list and progress and the next {@code copyProgress} carries on. The pace counts from when the
 * rate was set, so time spent closed is budget the copy may catch up with (as for any pause between
 * two {@code copyProgress} calls). The agent's resume after a restart calls {@link #startCopy} for
 * every copy it recorded as running; with the same rate that changes nothing.
 *
 * <p>Close it when done (try-with-resources): closing releases the native handles and the
 * directory's lock, and is idempotent; any later operation throws {@link IllegalStateException}.
 */
public final class RocksDbNodeStore extends LedgerNodeStore implements AutoCloseable {

    /** What a completed operation survives. */
    public enum Durability {
        /** A crash or kill of the process: the write-ahead log is in the operating system's hands. */
        PROCESS_KILL,
        /** Also a power loss or kernel crash: every operation waits for {@code fsync} of the log. */
        POWER_LOSS
    }

    private final RocksDbLedger ledger;

    private RocksDbNodeStore(String node, int slotCount, LongSupplier clockMillis, Function<String, ? extends NodeStore> peers,
                             RocksDbLedger ledger) {
        super(node, slotCount, clockMillis, peers, ledger);
        this.ledger = ledger;
    }

    /** {@link #open(Path, String, int, LongSupplier, Function, Durability)} surviving a process kill. */
    public static RocksDbNodeStore open(Path directory, String node, int slotCount, LongSupplier clockMillis,
                                        Function<String, ? extends NodeStore> peers) {
        return open(directory, node, slotCount, clockMillis, peers, Durability.PROCESS_KILL);
    }

    /**
     * Opens the store of {@code node} in {@code directory}, creating it if missing, and continues
     * from whatever it held.
     *
     * @param slotCount S, a power of two; must be the one the directory was created with
     * @param clockMillis the clock that paces copies
     * @param peers finds another node's store by id (the source or target of a copy); returns a
     *     {@link LedgerNodeStore} or null
     * @throws IllegalStateException if the directory is in use by another process, or not a store
     * @throws IllegalArgumentException if it holds another node's store or another slot count
     */
    public static RocksDbNodeStore open(Path directory, String node, int slotCount, LongSupplier clockMillis,
                                        Function<String, ? extends NodeStore> peers, Durability durability) {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(node, "node");
        SlotTable.requireSlotCount(slotCount);
        Objects.requireNonNull(durability, "durability");
        RocksDbLedger ledger = RocksDbLedger.open(directory, node, slotCount, durability == Durability.POWER_LOSS);
        try {
            return new RocksDbNodeStore(node, slotCount, clockMillis, peers, ledger);
        } catch (RuntimeException e) {
            ledger.close();
            throw e;
        }
    }

    /** The directory this store lives in. */
    public Path directory() {
        return ledger.directory();
    }

    /** Releases the native handles and the directory once no operation is running; idempotent. */
    @Override
    public void close() {
        exclusively(ledger::close);
    }

    @Override
    public String toString() {
        return "RocksDbNodeStore[" + node() + " in " + ledger.directory() + "]";
    }
}
