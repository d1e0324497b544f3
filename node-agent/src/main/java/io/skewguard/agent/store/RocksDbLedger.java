package io.skewguard.agent.store;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.Holder;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The ledger of a {@link RocksDbNodeStore}: one RocksDB database in one directory, three column
 * families.
 *
 * <ul>
 *   <li>{@code keys}: one record per key: slot (4 bytes, big-endian) + the key's UTF-16 code units
 *       (big-endian, so byte order is {@link String#compareTo} order and any Java string round-trips)
 *       → version (8 bytes) + value;
 *   <li>{@code copy-keys}: the key list of each copy to this node: migration id + index → key;
 *   <li>{@code default}: the store's identity (node id, slot count), its small state (one record:
 *       dual-writes, slot marks, copies with their progress, weight) and the keys and bytes per slot.
 * </ul>
 *
 * Each store operation is one {@link WriteBatch}: atomic, through the write-ahead log.
 */
final class RocksDbLedger implements Ledger {

    static {
        RocksDB.loadLibrary();
    }

    private static final byte[] KEYS_FAMILY = "keys".getBytes(StandardCharsets.UTF_8);
    private static final byte[] COPY_KEYS_FAMILY = "copy-keys".getBytes(StandardCharsets.UTF_8);
    private static final byte[] IDENTITY = "identity".getBytes(StandardCharsets.UTF_8);
    private static final byte[] STATE = "state".getBytes(StandardCharsets.UTF_8);
    private static final byte[] FIGURES = "figures/".getBytes(StandardCharsets.UTF_8);
    private static final int STATE_FORMAT = 1;

    private final Path directory;
    private final String node;
    private final int slotCount;
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions familyOptions;
    private final WriteOptions writeOptions;
    private final RocksDB db;
    private final List<ColumnFamilyHandle> handles;
    private final ColumnFamilyHandle meta;
    private final ColumnFamilyHandle keys;
    private final ColumnFamilyHandle copyKeys;
    // read by every operation, whichever slot's lock it holds
    private volatile boolean closed;
    private volatile String failure;

    private RocksDbLedger(Path directory, String node, int slotCount, boolean sync) {
        this.directory = directory;
        this.node = node;
        this.slotCount = slotCount;
        this.dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        this.familyOptions = new ColumnFamilyOptions();
        this.writeOptions = new WriteOptions().setSync(sync);
        List<ColumnFamilyDescriptor> families = List.of(
                new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, familyOptions),
                new ColumnFamilyDescriptor(KEYS_FAMILY, familyOptions),
                new ColumnFamilyDescriptor(COPY_KEYS_FAMILY, familyOptions));
        this.handles = new ArrayList<>();
        try {
            this.db = RocksDB.open(dbOptions, directory.toString(), families, handles);
        } catch (RocksDBException e) {
            releaseOptions();
            String why = String.valueOf(e.getMessage());
            if (why.toLowerCase(java.util.Locale.ROOT).contains("lock")) {
                throw new IllegalStateException("the store directory " + directory
                        + " is in use by another process (or already open in this one): " + why, e);
            }
            throw new IllegalStateException("cannot open the store directory " + directory + ": " + why, e);
        }
        this.meta = handles.get(0);
        this.keys = handles.get(1);
        this.copyKeys = handles.get(2);
    }

    /**
     * Opens (creating if missing) the ledger in {@code directory} for node {@code node} with
     * {@code slotCount} slots; {@code sync} makes every commit wait for the disk.
     *
     * @throws IllegalStateException if the directory cannot be opened (in use, not a database)
     * @throws IllegalArgumentException if it holds another node's store or another slot count
     */
    static RocksDbLedger open(Path directory, String node, int slotCount, boolean sync) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create the store directory " + directory + ": " + e.getMessage(), e);
        }
        RocksDbLedger ledger = new RocksDbLedger(directory, node, slotCount, sync);
        try {
            ledger.checkIdentity();
            return ledger;
        } catch (RuntimeException e) {
            ledger.close();
            throw e;
        }
    }

    private void checkIdentity() {
        byte[] mine = encode(out -> {
            writeString(out, node);
            out.writeInt(slotCount);
        });
        byte[] held = read(() -> db.get(meta, IDENTITY));
        if (held == null) {
            write(batch -> batch.put(meta, IDENTITY, mine));
        } else if (!Arrays.equals(held, mine)) {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(held));
            String heldNode;
            int heldSlots;
            try {
                heldNode = readString(in);
                heldSlots = in.readInt();
            } catch (IOException e) {
                throw new IllegalStateException("the store directory " + directory + " has an unreadable identity record", e);
            }
            throw new IllegalArgumentException("the store directory " + directory + " holds the store of node " + heldNode
                    + " with " + heldSlots + " slots, not of node " + node + " with " + slotCount + " slots");
        }
    }

    Path directory() {
        return directory;
    }

    // ------------------------------------------------------------------------------------ reads

    @Override
    public Recovered recover() {
        checkUsable();
        byte[] state = read(() -> db.get(meta, STATE));
        Snapshot snapshot = state == null ? Snapshot.EMPTY : decodeSnapshot(state);
        Map<Integer, SlotFigures> figures = new HashMap<>();
        try (RocksIterator it = db.newIterator(meta)) {
            for (it.seek(FIGURES); it.isValid() && startsWith(it.key(), FIGURES); it.next()) {
                ByteBuffer k = ByteBuffer.wrap(it.key(), FIGURES.length, 4);
                ByteBuffer v = ByteBuffer.wrap(it.value());
                figures.put(k.getInt(), new SlotFigures(v.getLong(), v.getLong()));
            }
        }
        Map<String, List<String>> lists = new LinkedHashMap<>();
        try (RocksIterator it = db.newIterator(copyKeys)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                ByteBuffer k = ByteBuffer.wrap(it.key());
                String migrationId = units(k, k.getInt());
                lists.computeIfAbsent(migrationId, id -> new ArrayList<>()).add(units(ByteBuffer.wrap(it.value()), it.value().length / 2));
            }
        }
        return new Recovered(snapshot, figures, lists);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Asks {@code keyMayExist} first, which looks only in the memtables and the blocks in memory:
     * it answers "not here" for certain, or hands over the value it found there. Only a key it can
     * neither find nor rule out is read with {@code get}. RocksJava's {@code get} throws and catches a
     * C++ exception inside its native code for every key it does not find, and a dual write's target
     * and a copy read mostly keys they do not hold yet: in {@code ./skewguard bench store} that made
     * such a read about 20 µs slower than one that finds its key (docs/benchmarks.md, "Store: a key
     * not found, read without an exception").
     */
    @Override
    public Versioned value(int slot, String key) {
        checkUsable();
        byte[] dataKey = dataKey(slot, key);
        Holder<byte[]> inMemory = new Holder<>();
        if (!db.keyMayExist(keys, dataKey, inMemory)) {
            return null;
        }
        byte[] raw = inMemory.getValue() != null ? inMemory.getValue() : read(() -> db.get(keys, dataKey));
        if (raw == null) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(raw);
        return new Versioned(b.getLong(), Arrays.copyOfRange(raw, Long.BYTES, raw.length));
    }

    @Override
    public SortedMap<String, Long> sizes(int slot) {
        checkUsable();
        byte[] prefix = ByteBuffer.allocate(Integer.BYTES).putInt(slot).array();
        SortedMap<String, Long> out = new TreeMap<>();
        // only the values' lengths are wanted: read into a buffer too small for them, which returns the length
        ByteBuffer none = ByteBuffer.allocateDirect(1);
        try (RocksIterator it = db.newIterator(keys)) {
            for (it.seek(prefix); it.isValid() && startsWith(it.key(), prefix); it.next()) {
                byte[] k = it.key();
                ByteBuffer b = ByteBuffer.wrap(k, Integer.BYTES, k.length - Integer.BYTES);
                String key = units(b, (k.length - Integer.BYTES) / 2);
                none.clear();
                out.put(key, key.length() + (long) (it.value(none) - Long.BYTES));
            }
        }
        return out;
    }

    // ------------------------------------------------------------------------------------ writes

    @Override
    public Changes changes() {
        checkUsable();
        return new Batch();
    }

    /** The writes of one operation, kept in Java until the commit (so an unused one costs no native memory). */
    private final class Batch implements Changes {
        private final List<BatchFiller> steps = new ArrayList<>();
        private Supplier<Snapshot> state;

        @Override
        public void put(int slot, String key, Versioned entry, SlotFigures figures) {
            byte[] value = ByteBuffer.allocate(Long.BYTES + entry.value().length).putLong(entry.version()).put(entry.value()).array();
            byte[] k = dataKey(slot, key);
            byte[] f = ByteBuffer.allocate(2 * Long.BYTES).putLong(figures.keys()).putLong(figures.bytes()).array();
            steps.add(batch -> {
                batch.put(keys, k, value);
                batch.put(meta, figuresKey(slot), f);
            });
        }

        @Override
        public void drop(int slot) {
            byte[] from = ByteBuffer.allocate(Integer.BYTES).putInt(slot).array();
            byte[] to = ByteBuffer.allocate(Integer.BYTES).putInt(slot + 1).array(); // slots are below S ≤ 2^30
            steps.add(batch -> {
                batch.deleteRange(keys, from, to);
                batch.delete(meta, figuresKey(slot));
            });
        }

        @Override
        public void state(Supplier<Snapshot> state) {
            this.state = state;
        }

        @Override
        public void copyKeys(String migrationId, List<String> list) {
            dropCopyKeys(migrationId);
            List<String> snapshot = List.copyOf(list);
            steps.add(batch -> {
                for (int i = 0; i < snapshot.size(); i++) {
                    batch.put(copyKeys, copyKey(migrationId, i), units(snapshot.get(i)));
                }
            });
        }

        @Override
        public void dropCopyKeys(String migrationId) {
            steps.add(batch -> batch.deleteRange(copyKeys, copyKey(migrationId, 0), copyKeyEnd(migrationId)));
        }

        @Override
        public void commit() {
            if (steps.isEmpty() && state == null) {
                return;
            }
            checkUsable();
            write(batch -> {
                for (BatchFiller step : steps) {
                    step.fill(batch);
                }
                if (state != null) {
                    batch.put(meta, STATE, encodeSnapshot(state.get()));
                }
            });
        }
    }

    /** A write batch that failed leaves the store's memory ahead of the disk: from then on the store refuses work. */
    private void write(BatchFiller filler) {
        try (WriteBatch batch = new WriteBatch()) {
            filler.fill(batch);
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            failure = String.valueOf(e.getMessage());
            throw new IllegalStateException("writing to the store directory " + directory + " failed: " + failure
                    + "; the store refuses further work, reopen it", e);
        }
    }

    @FunctionalInterface
    private interface BatchFiller {
        void fill(WriteBatch batch) throws RocksDBException;
    }

    @FunctionalInterface
    private interface Read {
        byte[] get() throws RocksDBException;
    }

    private byte[] read(Read read) {
        try {
            return read.get();
        } catch (RocksDBException e) {
            throw new IllegalStateException("reading the store directory " + directory + " failed: " + e.getMessage(), e);
        }
    }

    private void checkUsable() {
        if (closed) {
            throw new IllegalStateException("the store of node " + node + " in " + directory + " is closed");
        }
        if (failure != null) {
            throw new IllegalStateException("the store of node " + node + " in " + directory + " failed earlier ("
                    + failure + "); reopen it");
        }
    }

    /** Releases every native handle; idempotent. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ColumnFamilyHandle h : handles) {
            h.close();
        }
        if (db != null) {
            db.close();
        }
        releaseOptions();
    }

    private void releaseOptions() {
        writeOptions.close();
        familyOptions.close();
        dbOptions.close();
    }

    // ------------------------------------------------------------------------------------ encodings

    private static byte[] dataKey(int slot, String key) {
        return ByteBuffer.allocate(Integer.BYTES + 2 * key.length()).putInt(slot).put(units(key)).array();
    }

    private static byte[] figuresKey(int slot) {
        return ByteBuffer.allocate(FIGURES.length + Integer.BYTES).put(FIGURES).putInt(slot).array();
    }

    private static byte[] copyKey(String migrationId, int index) {
        return ByteBuffer.allocate(Integer.BYTES + 2 * migrationId.length() + Integer.BYTES)
                .putInt(migrationId.length()).put(units(migrationId)).putInt(index).array();
    }

    /** Past the last possible index of {@code migrationId} (indexes are non-negative ints). */
    private static byte[] copyKeyEnd(String migrationId) {
        return ByteBuffer.allocate(Integer.BYTES + 2 * migrationId.length() + Integer.BYTES)
                .putInt(migrationId.length()).put(units(migrationId)).putInt(Integer.MIN_VALUE).array();
    }

    /** The UTF-16 code units of {@code s}, big-endian: lossless for any Java string, ordered like compareTo. */
    private static byte[] units(String s) {
        ByteBuffer b = ByteBuffer.allocate(2 * s.length());
        for (int i = 0; i < s.length(); i++) {
            b.putChar(s.charAt(i));
        }
        return b.array();
    }

    private static String units(ByteBuffer b, int count) {
        char[] chars = new char[count];
        for (int i = 0; i < count; i++) {
            chars[i] = b.getChar();
        }
        return new String(chars);
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    @FunctionalInterface
    private interface Encoder {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] encode(Encoder encoder) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            encoder.write(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array does not fail
        }
        return bytes.toByteArray();
    }

    private static void writeString(DataOutputStream out, String s) throws IOException {
        out.writeInt(s.length());
        out.writeChars(s);
    }

    private static String readString(DataInputStream in) throws IOException {
        char[] chars = new char[in.readInt()];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = in.readChar();
        }
        return new String(chars);
    }

    private static byte[] encodeSnapshot(Snapshot s) {
        return encode(out -> {
            out.writeInt(STATE_FORMAT);
            out.writeLong(s.weightEpoch());
            out.writeDouble(s.weight());
            out.writeInt(s.forwardTo().size());
            for (Map.Entry<Integer, String> e : s.forwardTo().entrySet()) {
                out.writeInt(e.getKey());
                writeString(out, e.getValue());
            }
            for (Set<Integer> set : List.of(s.cleaned(), s.accepting())) {
                out.writeInt(set.size());
                for (int slot : set) {
                    out.writeInt(slot);
                }
            }
            out.writeInt(s.incoming().size());
            for (Map.Entry<Integer, String> e : s.incoming().entrySet()) {
                out.writeInt(e.getKey());
                writeString(out, e.getValue());
            }
            out.writeInt(s.copies().size());
            for (CopyRecord c : s.copies()) {
                writeString(out, c.migrationId());
                out.writeInt(c.slot());
                writeString(out, c.sourceNode());
                out.writeLong(c.maxBytesPerSec());
                out.writeLong(c.rateSince());
                out.writeLong(c.copiedAtRateSince());
                out.writeLong(c.bytesTotal());
                out.writeBoolean(c.failure() != null);
                if (c.failure() != null) {
                    writeString(out, c.failure());
                }
                out.writeInt(c.next());
                out.writeLong(c.bytesCopied());
            }
        });
    }

    private Snapshot decodeSnapshot(byte[] raw) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(raw))) {
            int format = in.readInt();
            if (format != STATE_FORMAT) {
                throw new IllegalStateException("the store directory " + directory + " holds state format " + format
                        + ", this version reads format " + STATE_FORMAT);
            }
            long weightEpoch = in.readLong();
            double weight = in.readDouble();
            Map<Integer, String> forwardTo = new HashMap<>();
            for (int n = in.readInt(); n > 0; n--) {
                forwardTo.put(in.readInt(), readString(in));
            }
            List<Set<Integer>> sets = new ArrayList<>();
            for (int s = 0; s < 2; s++) {
                Set<Integer> set = new HashSet<>();
                for (int n = in.readInt(); n > 0; n--) {
                    set.add(in.readInt());
                }
                sets.add(set);
            }
            Map<Integer, String> incoming = new HashMap<>();
            for (int n = in.readInt(); n > 0; n--) {
                incoming.put(in.readInt(), readString(in));
            }
            List<CopyRecord> copies = new ArrayList<>();
            for (int n = in.readInt(); n > 0; n--) {
                String id = readString(in);
                int slot = in.readInt();
                String source = readString(in);
                long rate = in.readLong();
                long rateSince = in.readLong();
                long copiedAtRateSince = in.readLong();
                long total = in.readLong();
                String failure = in.readBoolean() ? readString(in) : null;
                copies.add(new CopyRecord(id, slot, source, rate, rateSince, copiedAtRateSince, total, failure,
                        in.readInt(), in.readLong()));
            }
            return new Snapshot(weightEpoch, weight, forwardTo, sets.get(0), sets.get(1), incoming, copies);
        } catch (IOException e) {
            throw new IllegalStateException("the store directory " + directory + " holds an unreadable state record: " + e, e);
        }
    }
}
