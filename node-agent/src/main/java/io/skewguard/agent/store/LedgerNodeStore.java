package io.skewguard.agent.store;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link NodeStore} that really holds its keys, per slot, in a {@link Ledger}: in memory
 * ({@link InMemoryNodeStore}) or in a RocksDB directory ({@link RocksDbNodeStore}). The semantics
 * live here once; the two differ only in where the keys and the written-down state go.
 *
 * <p><b>Copy.</b> {@link #startCopy} on the target registers the target with the source (from then
 * on the source forwards every write of the slot: the dual-write) and, in the same step under the
 * source's lock, takes the list of keys the slot holds. {@link #copyProgress} then copies those keys,
 * a chunk at a time, reading each key's current value from the source, as far as
 * {@code maxBytesPerSec × elapsed} allows by the injected clock (the budget is cumulative, so one
 * entry larger than the budget overshoots once and the next call waits for it); with a
 * {@link LatencyGovernor} ({@link #governedBy}) the rate is scaled by the governor's pace, which follows
 * the write latency the governed stores measure. Every key is either
 * in the list (copied with its value at copy time or newer) or written after the registration
 * (forwarded), and last-writer-wins makes the two commute: nothing written to the source is missing
 * on the target once the copy is done.
 *
 * <p><b>Peers.</b> Source and target of a copy are stores of this kind in the same process, found
 * by node id through the {@code peers} function; mixing in-memory and RocksDB stores is fine. A
 * store records its peers by id (so that a reopened store finds them again) and looks them up when
 * it needs them.
 *
 * <p><b>Size.</b> An entry counts {@code key.length() + value.length} bytes (keys are taken as one
 * byte per char), for copy pacing, progress and {@link #shardBytes()}.
 *
 * <p><b>Threads.</b> A store has a lock per slot (one per slot up to {@value #SLOT_LOCKS} slots, then slot mod {@value #SLOT_LOCKS}: closing takes them all, one inside the other) and a lock
 * for its small state (dual-writes, slot marks, copies, weight: the store's monitor). A write or read
 * of a key takes only its slot's lock, so the data path waits only for work on the same slot: a
 * copy's chunk, the listing of a slot starting a copy or a switch of that slot, never work on another
 * slot. An operation that changes a slot's marks takes the slot's lock, then the state lock, in that
 * order and never the other; one that changes only the state (a copy's progress, a weight) takes the
 * state lock alone. A source forwards after releasing its locks and a target reads from the source
 * without holding its own, so no thread ever holds two stores' locks: two stores copying to each other
 * cannot deadlock.
 *
 * <p><b>Atomicity.</b> Every change of one operation (the keys of a copied chunk together with the
 * copy's progress, a cleanup's dropped data together with its slot marks) reaches the ledger as one
 * commit, so a durable ledger never holds half an operation.
 */
public abstract sealed class LedgerNodeStore implements NodeStore permits InMemoryNodeStore, RocksDbNodeStore {

    private static final Logger LOG = LoggerFactory.getLogger(LedgerNodeStore.class);

    /** Keys copied per acquisition of the source's lock. */
    static final int CHUNK_KEYS = 64;

    /** Longest a copy whose budget pays for less than a chunk waits before it copies what the budget pays for. */
    static final long CHUNK_WAIT_MILLIS = 1_000;

    /** Locks per store for the data path, at most: slot {@code s} takes lock {@code s mod SLOT_LOCKS}. */
    static final int SLOT_LOCKS = 256;

    private final String node;
    private final int slotCount;
    private final LongSupplier clockMillis;
    private final Function<String, ? extends NodeStore> peers;
    private final Ledger ledger;

    /** The data path's locks: see the class comment. */
    private final Object[] slotLocks;

    // per slot: changed under the slot's lock (and, but for figures, the state lock); read under either
    private final Map<Integer, Ledger.SlotFigures> figures = new ConcurrentHashMap<>();
    private final Map<Integer, String> forwardTo = new ConcurrentHashMap<>();
    private final Set<Integer> cleaned = ConcurrentHashMap.newKeySet();
    private final Set<Integer> accepting = ConcurrentHashMap.newKeySet();
    private final Map<Integer, String> incoming = new ConcurrentHashMap<>();
    // guarded by this (the state lock)
    private final Map<String, CopyJob> copies = new HashMap<>();
    private long weightEpoch = -1;
    private double weight = 1.0;
    private volatile LatencyGovernor governor;

    /**
     * A store over {@code ledger}, continuing from what the ledger recovers.
     *
     * @param node this node's id
     * @param slotCount S, a power of two (see {@link SlotTable#requireSlotCount})
     * @param clockMillis the clock that paces copies; tests and the simulator drive it
     * @param peers finds another node's store by id (the source or target of a copy); returns a
     *     {@code LedgerNodeStore} or null
     */
    LedgerNodeStore(String node, int slotCount, LongSupplier clockMillis, Function<String, ? extends NodeStore> peers, Ledger ledger) {
        this.node = Objects.requireNonNull(node, "node");
        this.slotCount = SlotTable.requireSlotCount(slotCount);
        this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
        this.peers = Objects.requireNonNull(peers, "peers");
        this.ledger = Objects.requireNonNull(ledger, "ledger");
        this.slotLocks = new Object[Math.min(slotCount, SLOT_LOCKS)];
        for (int i = 0; i < slotLocks.length; i++) {
            slotLocks[i] = new Object();
        }
        restore(ledger.recover());
    }

    /** The lock of {@code slot}'s data (slot counts and {@link #SLOT_LOCKS} are powers of two). */
    private Object lockOf(int slot) {
        return slotLocks[slot & (slotLocks.length - 1)];
    }

    /** Runs {@code action} holding every lock of this store, so that no operation runs meanwhile (closing). */
    final void exclusively(Runnable action) {
        lockAll(0, action);
    }

    private void lockAll(int from, Runnable action) {
        if (from == slotLocks.length) {
            synchronized (this) {
                action.run();
            }
            return;
        }
        synchronized (slotLocks[from]) {
            lockAll(from + 1, action);
        }
    }

    @Override
    public String node() {
        return node;
    }

    @Override
    public int slotCount() {
        return slotCount;
    }

    /**
     * From now on this store's writes are timed by {@code governor} and its copies run at the
     * governor's pace times their granted rate ({@link CopyPacer}); null: copies run at their granted
     * rate, writes are not timed.
     */
    public void governedBy(LatencyGovernor governor) {
        this.governor = governor;
    }

    /** The slot of {@code key}: {@code xxh3(key) mod S}, as the slot table computes it. */
    public int slotOf(String key) {
        return SlotTable.slotOf(HashRing.hashKey(key), slotCount);
    }

    // ------------------------------------------------------------------------------------ data path

    /**
     * {@inheritDoc}
     *
     * <p>If the slot's dual-write target (recorded by id) cannot be found among the peers, the write
     * is kept here and then refused with an {@link IllegalStateException}: the writer retries, and
     * nothing is acknowledged that the target would miss.
     */
    @Override
    public void put(String key, long version, byte[] value) {
        LatencyGovernor timer = governor;
        if (timer == null) {
            write(key, version, value);
            return;
        }
        long start = timer.now();
        write(key, version, value);
        timer.recordWrite(start);
    }

    private void write(String key, long version, byte[] value) {
        int slot = slotOf(key);
        Versioned entry = new Versioned(version, value);
        String targetNode;
        synchronized (lockOf(slot)) {
            Ledger.Changes changes = ledger.changes();
            if (cleaned.contains(slot)) {
                throw new StaleRouteException(node, slot);
            }
            store(changes, slot, key, entry);
            changes.commit();
            targetNode = forwardTo.get(slot);
        }
        if (targetNode != null) {
            forward(slot, targetNode, key, entry);
        }
    }

    @Override
    public Optional<Versioned> get(String key) {
        int slot = slotOf(key);
        synchronized (lockOf(slot)) {
            return Optional.ofNullable(ledger.value(slot, key));
        }
    }

    /**
     * A dual-written entry from the slot's source, taken as a write of this node: kept while this node
     * receives or owns the slot by migration, and forwarded on if this node itself dual-writes the slot
     * to a later target. A source forwards after releasing its lock, so the entry can come late: after
     * this node has given the slot on and cleaned it up. It is then refused with a
     * {@link StaleRouteException}, which reaches the writer through the source's {@link #put}: the
     * writer routes again by its newer slot table. Kept here without that, it would be dropped with
     * this node's copy of the slot, and it would be on no node. Not kept and not refused: the
     * migration that forwarded here was aborted, and the source keeps the slot and the entry.
     */
    void acceptForwarded(int slot, String key, Versioned entry) {
        String onward;
        synchronized (lockOf(slot)) {
            if (cleaned.contains(slot)) {
                throw new StaleRouteException(node, slot);
            }
            if (!accepting.contains(slot)) {
                return;
            }
            Ledger.Changes changes = ledger.changes();
            store(changes, slot, key, entry);
            changes.commit();
            onward = forwardTo.get(slot);
        }
        if (onward != null) {
            forward(slot, onward, key, entry);
        }
    }

    /** Outside every lock of this store: {@code entry} to {@code targetNode}, the slot's dual-write target. */
    private void forward(int slot, String targetNode, String key, Versioned entry) {
        LedgerNodeStore target = peer(targetNode);
        if (target == null) {
            throw new IllegalStateException("node " + node + " dual-writes slot " + slot + " to node " + targetNode
                    + ", which is not open in this process; the write was kept here but not forwarded");
        }
        target.acceptForwarded(slot, key, entry);
    }

    /** Under {@code slot}'s lock. */
    private void store(Ledger.Changes changes, int slot, String key, Versioned entry) {
        Versioned current = ledger.value(slot, key);
        if (entry.newerThan(current)) {
            Ledger.SlotFigures after = figures.getOrDefault(slot, Ledger.SlotFigures.NONE).replace(key, current, entry);
            figures.put(slot, after);
            changes.put(slot, key, entry, after);
        }
    }

    /** Under {@code slot}'s lock and the state lock. */
    private void drop(Ledger.Changes changes, int slot) {
        figures.remove(slot);
        changes.drop(slot);
    }

    // ------------------------------------------------------------------------------------ weights

    @Override
    public synchronized void applyWeight(long epoch, double weight) {
        Ledger.Changes changes = ledger.changes();
        if (epoch > weightEpoch) {
            this.weightEpoch = epoch;
            this.weight = weight;
            changes.state(this::snapshot);
            changes.commit();
        }
    }

    /** The weight factor last applied (1.0 before any). */
    public synchronized double weight() {
        return weight;
    }

    /** The weight-table epoch of {@link #weight()}; -1 before any. */
    public synchronized long weightEpoch() {
        return weightEpoch;
    }

    // ------------------------------------------------------------------------------------ copy

    @Override
    public void startCopy(String migrationId, int slot, String sourceNode, long maxBytesPerSec) {
        checkSlot(slot);
        synchronized (lockOf(slot)) {
            synchronized (this) {
                Ledger.Changes changes = ledger.changes();
                CopyJob existing = copies.get(migrationId);
                if (existing != null && existing.failure == null) {
                    existing.rate(maxBytesPerSec, clockMillis.getAsLong());
                    changes.state(this::snapshot);
                    changes.commit();
                    return;
                }
                accepting.add(slot);
                incoming.put(slot, migrationId);
                cleaned.remove(slot);
                changes.state(this::snapshot);
                changes.commit();
            }
        }
        LedgerNodeStore source = peer(sourceNode);
        if (source == null) {
            String why = "source node " + sourceNode + " is unknown to this process's stores";
            synchronized (this) {
                Ledger.Changes changes = ledger.changes();
                copies.put(migrationId, CopyJob.failed(migrationId, slot, sourceNode, why));
                changes.dropCopyKeys(migrationId);
                changes.state(this::snapshot);
                changes.commit();
            }
            return;
        }
        List<String> keys = new ArrayList<>();
        long total = source.startForwarding(slot, node, keys);
        synchronized (this) {
            Ledger.Changes changes = ledger.changes();
            CopyJob job = new CopyJob(migrationId, slot, sourceNode, maxBytesPerSec, clockMillis.getAsLong(), keys, total);
            copies.put(migrationId, job);
            changes.copyKeys(migrationId, job.keys);
            changes.state(this::snapshot);
            changes.commit();
        }
        LOG.debug("{}: copy {} of slot {} from {} started, {} keys, {} bytes", node, migrationId, slot, sourceNode, keys.size(), total);
    }

    /**
     * Registers {@code target} for the dual-write of {@code slot} and lists the slot's keys, atomically
     * for the slot's writes (under its lock; the state lock only for the registration).
     */
    private long startForwarding(int slot, String target, List<String> keysOut) {
        synchronized (lockOf(slot)) {
            synchronized (this) {
                Ledger.Changes changes = ledger.changes();
                forwardTo.put(slot, target);
                changes.state(this::snapshot);
                changes.commit();
            }
            long bytes = 0;
            for (Map.Entry<String, Long> e : ledger.sizes(slot).entrySet()) {
                keysOut.add(e.getKey());
                bytes += e.getValue();
            }
            return bytes;
        }
    }

    private void stopForwarding(int slot, String target) {
        synchronized (lockOf(slot)) {
            synchronized (this) {
                if (target.equals(forwardTo.get(slot))) {
                    Ledger.Changes changes = ledger.changes();
                    forwardTo.remove(slot);
                    changes.state(this::snapshot);
                    changes.commit();
                }
            }
        }
    }

    private Versioned readForCopy(int slot, String key) {
        synchronized (lockOf(slot)) {
            return ledger.value(slot, key);
        }
    }

    @Override
    public CopyProgress copyProgress(String migrationId) {
        CopyJob job;
        synchronized (this) {
            job = copies.get(migrationId);
            if (job == null) {
                return CopyProgress.unknown(migrationId);
            }
        }
        LedgerNodeStore source = job.failure == null && !job.done() ? peer(job.sourceNode) : null;
        if (source == null && job.failure == null && !job.done()) {
            // a reopened store whose source is not open in this process: the copy cannot go on
            synchronized (this) {
                if (copies.get(migrationId) == job && job.failure == null) {
                    Ledger.Changes changes = ledger.changes();
                    job.fail("source node " + job.sourceNode + " is unknown to this process's stores");
                    changes.state(this::snapshot);
                    changes.commit();
                }
                return progressOf(migrationId);
            }
        }
        LatencyGovernor pacing = governor;
        double pace = pacing == null ? 1.0 : pacing.pace();
        while (true) {
            List<String> chunk;
            synchronized (this) {
                long at = clockMillis.getAsLong();
                job.pace(pace, at);
                if (copies.get(migrationId) != job || job.done() || job.failure != null || !job.chunkPaid(at)) {
                    return job.progress();
                }
                chunk = job.keys.subList(job.next, Math.min(job.keys.size(), job.next + CHUNK_KEYS));
            }
            // read without holding our own lock (see class comment), then apply under it
            List<Versioned> values = new ArrayList<>(chunk.size());
            for (String key : chunk) {
                values.add(source.readForCopy(job.slot, key));
            }
            synchronized (lockOf(job.slot)) {
                synchronized (this) {
                    if (copies.get(migrationId) != job) {
                        return progressOf(migrationId);
                    }
                    Ledger.Changes changes = ledger.changes();
                    long now = clockMillis.getAsLong();
                    for (int i = 0; i < chunk.size() && job.budgetLeft(now) > 0; i++) {
                        String key = chunk.get(i);
                        Versioned value = values.get(i);
                        if (value != null && accepting.contains(job.slot)) {
                            store(changes, job.slot, key, value);
                            job.bytesCopied += size(key, value);
                        }
                        job.next++;
                    }
                    job.lastChunkAt = now;
                    changes.state(this::snapshot);
                    changes.commit();
                }
            }
            if (pacing != null) {
                pacing.copied();
            }
        }
    }

    private synchronized CopyProgress progressOf(String migrationId) {
        CopyJob job = copies.get(migrationId);
        return job == null ? CopyProgress.unknown(migrationId) : job.progress();
    }

    // ------------------------------------------------------------------------------------ switch

    @Override
    public void prepareSource(String migrationId, int slot, String targetNode) {
        checkSlot(slot);
        if (peer(targetNode) != null) {
            synchronized (lockOf(slot)) {
                synchronized (this) {
                    Ledger.Changes changes = ledger.changes();
                    if (!cleaned.contains(slot) && forwardTo.putIfAbsent(slot, targetNode) == null) {
                        changes.state(this::snapshot);
                        changes.commit();
                    }
                }
            }
        }
    }

    @Override
    public void commitTarget(String migrationId, int slot) {
        checkSlot(slot);
        synchronized (lockOf(slot)) {
            synchronized (this) {
                Ledger.Changes changes = ledger.changes();
                if (copies.remove(migrationId) != null) {
                    changes.dropCopyKeys(migrationId);
                }
                incoming.remove(slot, migrationId);
                accepting.add(slot);
                cleaned.remove(slot);
                changes.state(this::snapshot);
                changes.commit();
            }
        }
    }

    @Override
    public void commitSource(String migrationId, int slot, String targetNode) {
        // nothing changes here until cleanup: data and dual-write stay for writers with an older slot table
        checkSlot(slot);
    }

    /** Drops the copy of {@code migrationId} only: a node's own data of the slot is never touched. */
    @Override
    public void abortTarget(String migrationId, int slot) {
        checkSlot(slot);
        CopyJob job;
        synchronized (lockOf(slot)) {
            synchronized (this) {
                Ledger.Changes changes = ledger.changes();
                job = copies.remove(migrationId);
                if (job != null) {
                    changes.dropCopyKeys(migrationId);
                }
                // only the copy this migration brought in is dropped: an ABORT of a migration that never
                // started a copy here must not touch data the node holds for that slot otherwise
                if (incoming.remove(slot, migrationId)) {
                    accepting.remove(slot);
                    drop(changes, slot);
                }
                changes.state(this::snapshot);
                changes.commit();
            }
        }
        if (job != null) {
            LedgerNodeStore source = peer(job.sourceNode);
            if (source != null) {
                source.stopForwarding(slot, node);
            }
        }
    }

    @Override
    public void abortSource(String migrationId, int slot, String targetNode) {
        checkSlot(slot);
        stopForwarding(slot, targetNode);
    }

    @Override
    public void cleanup(String migrationId, int slot) {
        checkSlot(slot);
        synchronized (lockOf(slot)) {
            synchronized (this) {
                Ledger.Changes changes = ledger.changes();
                drop(changes, slot);
                forwardTo.remove(slot);
                accepting.remove(slot);
                cleaned.add(slot);
                changes.state(this::snapshot);
                changes.commit();
            }
        }
    }

    /**
     * The storage layer rebuilds {@code slot} on this node from replicas: the node replaced a lost or
     * removed one in the slot's candidate set. Writes of the slot are taken again, also when this node
     * cleaned the slot up after an earlier migration away (which would otherwise refuse them as stale).
     * Idempotent.
     */
    public void rebuildSlot(int slot) {
        checkSlot(slot);
        synchronized (lockOf(slot)) {
            synchronized (this) {
                if (cleaned.remove(slot)) {
                    Ledger.Changes changes = ledger.changes();
                    changes.state(this::snapshot);
                    changes.commit();
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------ reads for people and tests

    /** True if this node holds any key of {@code slot}. */
    public boolean holdsSlot(int slot) {
        return figures.getOrDefault(slot, Ledger.SlotFigures.NONE).keys() > 0;
    }

    /** The keys of {@code slot} held here, sorted. */
    public List<String> keys(int slot) {
        synchronized (lockOf(slot)) {
            return new ArrayList<>(ledger.sizes(slot).keySet());
        }
    }

    /** Bytes held per slot (only slots holding data), sorted by slot: the shards of this node. */
    public Map<Integer, Long> shardBytes() {
        Map<Integer, Long> out = new TreeMap<>();
        figures.forEach((slot, f) -> {
            if (f.keys() > 0) {
                out.put(slot, f.bytes());
            }
        });
        return out;
    }

    /** Bytes held on this node, all slots. */
    public long usedBytes() {
        return shardBytes().values().stream().mapToLong(Long::longValue).sum();
    }

    /** True while this node dual-writes {@code slot} to another node. */
    public boolean forwards(int slot) {
        return forwardTo.containsKey(slot);
    }

    private LedgerNodeStore peer(String id) {
        return peers.apply(id) instanceof LedgerNodeStore store ? store : null;
    }

    private void checkSlot(int slot) {
        if (slot < 0 || slot >= slotCount) {
            throw new IllegalArgumentException("slot " + slot + " is outside [0, " + slotCount + ")");
        }
    }

    static long size(String key, Versioned value) {
        return key.length() + (long) value.value().length;
    }

    // ------------------------------------------------------------------------------------ written-down state

    /** The state apart from the keys, as the ledger writes it down (called under the state lock). */
    private Ledger.Snapshot snapshot() {
        List<Ledger.CopyRecord> jobs = new ArrayList<>(copies.size());
        for (CopyJob job : copies.values()) {
            jobs.add(job.record());
        }
        return new Ledger.Snapshot(weightEpoch, weight, Map.copyOf(forwardTo), Set.copyOf(cleaned), Set.copyOf(accepting),
                Map.copyOf(incoming), jobs);
    }

    private void restore(Ledger.Recovered recovered) {
        Ledger.Snapshot s = recovered.state();
        weightEpoch = s.weightEpoch();
        weight = s.weight();
        forwardTo.putAll(s.forwardTo());
        cleaned.addAll(s.cleaned());
        accepting.addAll(s.accepting());
        incoming.putAll(s.incoming());
        figures.putAll(recovered.figures());
        for (Ledger.CopyRecord r : s.copies()) {
            copies.put(r.migrationId(), CopyJob.of(r, recovered.copyKeys().getOrDefault(r.migrationId(), List.of())));
        }
    }

    /** One copy to this node; mutable, guarded by the target store's lock. */
    private static final class CopyJob {
        final String migrationId;
        final int slot;
        final String sourceNode;
        long maxBytesPerSec;
        double pace = 1.0;
        long rateSince;
        long copiedAtRateSince;
        long lastChunkAt;
        final List<String> keys;
        final long bytesTotal;
        String failure;
        int next;
        long bytesCopied;

        CopyJob(String migrationId, int slot, String sourceNode, long maxBytesPerSec, long startedAt,
                List<String> keys, long bytesTotal) {
            this(migrationId, slot, sourceNode, maxBytesPerSec, startedAt, keys, bytesTotal, null);
        }

        private CopyJob(String migrationId, int slot, String sourceNode, long maxBytesPerSec, long startedAt,
                        List<String> keys, long bytesTotal, String failure) {
            this.migrationId = migrationId;
            this.slot = slot;
            this.sourceNode = sourceNode;
            this.maxBytesPerSec = maxBytesPerSec;
            this.rateSince = startedAt;
            this.lastChunkAt = startedAt;
            this.keys = List.copyOf(keys);
            this.bytesTotal = bytesTotal;
            this.failure = failure;
        }

        static CopyJob failed(String migrationId, int slot, String sourceNode, String why) {
            return new CopyJob(migrationId, slot, sourceNode, 0, 0, List.of(), 0, why);
        }

        /** The job as it was written down, with its key list. */
        static CopyJob of(Ledger.CopyRecord r, List<String> keys) {
            CopyJob job = new CopyJob(r.migrationId(), r.slot(), r.sourceNode(), r.maxBytesPerSec(), r.rateSince(),
                    keys, r.bytesTotal(), r.failure());
            job.copiedAtRateSince = r.copiedAtRateSince();
            job.lastChunkAt = r.rateSince();
            job.next = r.next();
            job.bytesCopied = r.bytesCopied();
            return job;
        }

        Ledger.CopyRecord record() {
            return new Ledger.CopyRecord(migrationId, slot, sourceNode, maxBytesPerSec, rateSince, copiedAtRateSince,
                    bytesTotal, failure, next, bytesCopied);
        }

        void fail(String why) {
            failure = why;
        }

        boolean done() {
            return next >= keys.size();
        }

        /**
         * From {@code now} on the copy runs at {@code bytesPerSec}; what it copied so far stays, and
         * so does what the old rate had allowed and it had not used yet, up to one chunk.
         */
        void rate(long bytesPerSec, long now) {
            if (bytesPerSec != maxBytesPerSec && !done()) {
                long carry = carry(now);
                maxBytesPerSec = bytesPerSec;
                rebase(now, carry);
            }
        }

        /** From {@code now} on the copy runs at {@code pace} × its rate (the latency governor's pace), as {@link #rate}. */
        void pace(double newPace, long now) {
            if (newPace != pace && !done()) {
                long carry = carry(now);
                pace = newPace;
                rebase(now, carry);
            }
        }

        private long carry(long now) {
            long left = budgetLeft(now);
            return left == Long.MAX_VALUE ? 0 : Math.max(0, Math.min(left, chunkBytes()));
        }

        private void rebase(long now, long carry) {
            rateSince = now;
            copiedAtRateSince = bytesCopied - carry;
        }

        /** What the next chunk is expected to weigh: its keys at the shard's mean entry size. */
        private long chunkBytes() {
            if (keys.isEmpty()) {
                return 0;
            }
            long meanEntry = Math.max(1, bytesTotal / keys.size());
            return meanEntry * Math.min(CHUNK_KEYS, keys.size() - next);
        }

        /**
         * Whether to copy now: the budget left by {@code now} pays for the next chunk, or it pays for
         * something and the last chunk is {@link #CHUNK_WAIT_MILLIS} old. A slow copy so copies a whole
         * chunk under one acquisition of the lock, or what it may once a second, instead of a key or two
         * on every call: each acquisition (a commit of its own) costs the writers the same wait however
         * little it copies.
         */
        boolean chunkPaid(long now) {
            long left = budgetLeft(now);
            return left > 0 && (left >= chunkBytes() || now - lastChunkAt >= CHUNK_WAIT_MILLIS);
        }

        /**
         * Bytes the rate still allows by {@code now}: {@code rate × pace × elapsed − copied} since the
         * rate or the pace was set. A rate of 0 (no limit) has no pace either.
         */
        long budgetLeft(long now) {
            if (maxBytesPerSec <= 0) {
                return Long.MAX_VALUE;
            }
            long elapsed = Math.max(0, now - rateSince);
            double allowed = (double) maxBytesPerSec * pace * elapsed / 1000.0;
            return allowed >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) allowed - (bytesCopied - copiedAtRateSince);
        }

        CopyProgress progress() {
            if (failure != null) {
                return new CopyProgress(migrationId, CopyProgress.Status.FAILED, 0, 0, failure);
            }
            return new CopyProgress(migrationId, done() ? CopyProgress.Status.DONE : CopyProgress.Status.RUNNING,
                    bytesCopied, bytesTotal, null);
        }
    }
}
