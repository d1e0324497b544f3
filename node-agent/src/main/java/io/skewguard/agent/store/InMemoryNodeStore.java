package io.skewguard.agent.store;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link NodeStore} that really holds its keys, per slot, in memory: what the simulator and the
 * tests use to prove that no key is lost across copy, switch, abort and cleanup.
 *
 * <p><b>Copy.</b> {@link #startCopy} on the target registers the target with the source (from then
 * on the source forwards every write of the slot: the dual-write) and, in the same step under the
 * source's lock, takes the list of keys the slot holds. {@link #copyProgress} then copies those keys,
 * a chunk at a time, reading each key's current value from the source, as far as
 * {@code maxBytesPerSec × elapsed} allows by the injected clock (the budget is cumulative, so one
 * entry larger than the budget overshoots once and the next call waits for it). Every key is either
 * in the list (copied with its value at copy time or newer) or written after the registration
 * (forwarded), and last-writer-wins makes the two commute: nothing written to the source is missing
 * on the target once the copy is done.
 *
 * <p><b>Size.</b> An entry counts {@code key.length() + value.length} bytes (keys are taken as one
 * byte per char), for copy pacing, progress and {@link #shardBytes()}.
 *
 * <p><b>Threads.</b> Each store guards its state with its own lock. A source forwards after releasing
 * its lock and a target reads from the source without holding its own, so no thread ever holds two
 * store locks: two stores copying to each other cannot deadlock.
 */
public final class InMemoryNodeStore implements NodeStore {

    private static final Logger LOG = LoggerFactory.getLogger(InMemoryNodeStore.class);

    /** Keys copied per acquisition of the source's lock. */
    static final int CHUNK_KEYS = 64;

    private final String node;
    private final int slotCount;
    private final LongSupplier clockMillis;
    private final Function<String, ? extends NodeStore> peers;

    // all guarded by this
    private final Map<Integer, Map<String, Versioned>> slots = new HashMap<>();
    private final Map<Integer, InMemoryNodeStore> forwardTo = new HashMap<>();
    private final Set<Integer> cleaned = new HashSet<>();
    private final Set<Integer> accepting = new HashSet<>();
    private final Map<Integer, String> incoming = new HashMap<>();
    private final Map<String, CopyJob> copies = new HashMap<>();
    private long weightEpoch = -1;
    private double weight = 1.0;

    /**
     * @param node this node's id
     * @param slotCount S, a power of two (see {@link SlotTable#requireSlotCount})
     * @param clockMillis the clock that paces copies; tests and the simulator drive it
     * @param peers finds another node's store by id (the source of a copy); must return an
     *     {@code InMemoryNodeStore} or null
     */
    public InMemoryNodeStore(String node, int slotCount, LongSupplier clockMillis, Function<String, ? extends NodeStore> peers) {
        this.node = Objects.requireNonNull(node, "node");
        this.slotCount = SlotTable.requireSlotCount(slotCount);
        this.clockMillis = Objects.requireNonNull(clockMillis, "clockMillis");
        this.peers = Objects.requireNonNull(peers, "peers");
    }

    @Override
    public String node() {
        return node;
    }

    @Override
    public int slotCount() {
        return slotCount;
    }

    /** The slot of {@code key}: {@code xxh3(key) mod S}, as the slot table computes it. */
    public int slotOf(String key) {
        return SlotTable.slotOf(HashRing.hashKey(key), slotCount);
    }

    // ------------------------------------------------------------------------------------ data path

    @Override
    public void put(String key, long version, byte[] value) {
        int slot = slotOf(key);
        Versioned entry = new Versioned(version, value);
        InMemoryNodeStore target;
        synchronized (this) {
            if (cleaned.contains(slot)) {
                throw new StaleRouteException(node, slot);
            }
            store(slot, key, entry);
            target = forwardTo.get(slot);
        }
        if (target != null) {
            target.acceptForwarded(slot, key, entry);
        }
    }

    @Override
    public synchronized Optional<Versioned> get(String key) {
        Map<String, Versioned> shard = slots.get(slotOf(key));
        return Optional.ofNullable(shard == null ? null : shard.get(key));
    }

    /** A dual-written or copied entry: kept only while this node receives or owns the slot by migration. */
    private synchronized void acceptForwarded(int slot, String key, Versioned entry) {
        if (accepting.contains(slot)) {
            store(slot, key, entry);
        }
    }

    private void store(int slot, String key, Versioned entry) {
        Map<String, Versioned> shard = slots.computeIfAbsent(slot, s -> new HashMap<>());
        if (entry.newerThan(shard.get(key))) {
            shard.put(key, entry);
        }
    }

    // ------------------------------------------------------------------------------------ weights

    @Override
    public synchronized void applyWeight(long epoch, double weight) {
        if (epoch > weightEpoch) {
            this.weightEpoch = epoch;
            this.weight = weight;
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
        synchronized (this) {
            CopyJob existing = copies.get(migrationId);
            if (existing != null && existing.failure == null) {
                existing.rate(maxBytesPerSec, clockMillis.getAsLong());
                return;
            }
            accepting.add(slot);
            incoming.put(slot, migrationId);
            cleaned.remove(slot);
        }
        NodeStore peer = peers.apply(sourceNode);
        if (!(peer instanceof InMemoryNodeStore source)) {
            String why = "source node " + sourceNode + " is unknown to the in-memory cluster";
            synchronized (this) {
                copies.put(migrationId, CopyJob.failed(migrationId, slot, sourceNode, why));
            }
            return;
        }
        List<String> keys = new ArrayList<>();
        long total = source.startForwarding(slot, this, keys);
        synchronized (this) {
            copies.put(migrationId, new CopyJob(migrationId, slot, source, maxBytesPerSec, clockMillis.getAsLong(), keys, total));
        }
        LOG.debug("{}: copy {} of slot {} from {} started, {} keys, {} bytes", node, migrationId, slot, sourceNode, keys.size(), total);
    }

    /** Registers {@code target} for the dual-write of {@code slot} and lists the slot's keys, atomically. */
    private synchronized long startForwarding(int slot, InMemoryNodeStore target, List<String> keysOut) {
        forwardTo.put(slot, target);
        Map<String, Versioned> shard = slots.getOrDefault(slot, Map.of());
        long bytes = 0;
        for (Map.Entry<String, Versioned> e : new TreeMap<>(shard).entrySet()) {
            keysOut.add(e.getKey());
            bytes += size(e.getKey(), e.getValue());
        }
        return bytes;
    }

    private synchronized void stopForwarding(int slot, InMemoryNodeStore target) {
        if (forwardTo.get(slot) == target) {
            forwardTo.remove(slot);
        }
    }

    private synchronized Versioned readForCopy(int slot, String key) {
        Map<String, Versioned> shard = slots.get(slot);
        return shard == null ? null : shard.get(key);
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
        while (true) {
            List<String> chunk;
            synchronized (this) {
                if (copies.get(migrationId) != job || job.done() || job.failure != null || job.budgetLeft(clockMillis.getAsLong()) <= 0) {
                    return job.progress();
                }
                chunk = job.keys.subList(job.next, Math.min(job.keys.size(), job.next + CHUNK_KEYS));
            }
            // read without holding our own lock (see class comment), then apply under it
            List<Versioned> values = new ArrayList<>(chunk.size());
            for (String key : chunk) {
                values.add(job.source.readForCopy(job.slot, key));
            }
            synchronized (this) {
                if (copies.get(migrationId) != job) {
                    return progressOf(migrationId);
                }
                long now = clockMillis.getAsLong();
                for (int i = 0; i < chunk.size() && job.budgetLeft(now) > 0; i++) {
                    String key = chunk.get(i);
                    Versioned value = values.get(i);
                    if (value != null && accepting.contains(job.slot)) {
                        store(job.slot, key, value);
                        job.bytesCopied += size(key, value);
                    }
                    job.next++;
                }
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
        NodeStore peer = peers.apply(targetNode);
        if (peer instanceof InMemoryNodeStore target) {
            synchronized (this) {
                if (!cleaned.contains(slot)) {
                    forwardTo.putIfAbsent(slot, target);
                }
            }
        }
    }

    @Override
    public synchronized void commitTarget(String migrationId, int slot) {
        checkSlot(slot);
        copies.remove(migrationId);
        incoming.remove(slot, migrationId);
        accepting.add(slot);
        cleaned.remove(slot);
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
        synchronized (this) {
            job = copies.remove(migrationId);
            // only the copy this migration brought in is dropped: an ABORT of a migration that never
            // started a copy here must not touch data the node holds for that slot otherwise
            if (incoming.remove(slot, migrationId)) {
                accepting.remove(slot);
                slots.remove(slot);
            }
        }
        if (job != null && job.source != null) {
            job.source.stopForwarding(slot, this);
        }
    }

    @Override
    public void abortSource(String migrationId, int slot, String targetNode) {
        checkSlot(slot);
        if (peers.apply(targetNode) instanceof InMemoryNodeStore target) {
            stopForwarding(slot, target);
        }
    }

    @Override
    public synchronized void cleanup(String migrationId, int slot) {
        checkSlot(slot);
        slots.remove(slot);
        forwardTo.remove(slot);
        accepting.remove(slot);
        cleaned.add(slot);
    }

    // ------------------------------------------------------------------------------------ reads for people and tests

    /** True if this node holds any key of {@code slot}. */
    public synchronized boolean holdsSlot(int slot) {
        Map<String, Versioned> shard = slots.get(slot);
        return shard != null && !shard.isEmpty();
    }

    /** The keys of {@code slot} held here, sorted. */
    public synchronized List<String> keys(int slot) {
        return new ArrayList<>(new TreeMap<>(slots.getOrDefault(slot, Map.of())).keySet());
    }

    /** Bytes held per slot (only slots holding data), sorted by slot: the shards of this node. */
    public synchronized Map<Integer, Long> shardBytes() {
        Map<Integer, Long> out = new TreeMap<>();
        slots.forEach((slot, shard) -> {
            long bytes = 0;
            for (Map.Entry<String, Versioned> e : shard.entrySet()) {
                bytes += size(e.getKey(), e.getValue());
            }
            if (!shard.isEmpty()) {
                out.put(slot, bytes);
            }
        });
        return out;
    }

    /** Bytes held on this node, all slots. */
    public long usedBytes() {
        return shardBytes().values().stream().mapToLong(Long::longValue).sum();
    }

    /** True while this node dual-writes {@code slot} to another node. */
    public synchronized boolean forwards(int slot) {
        return forwardTo.containsKey(slot);
    }

    private void checkSlot(int slot) {
        if (slot < 0 || slot >= slotCount) {
            throw new IllegalArgumentException("slot " + slot + " is outside [0, " + slotCount + ")");
        }
    }

    private static long size(String key, Versioned value) {
        return key.length() + (long) value.value().length;
    }

    @Override
    public String toString() {
        return "InMemoryNodeStore[" + node + "]";
    }

    /** One running copy; mutable, guarded by the target store's lock. */
    private static final class CopyJob {
        final String migrationId;
        final int slot;
        final InMemoryNodeStore source;
        long maxBytesPerSec;
        long rateSince;
        long copiedAtRateSince;
        final List<String> keys;
        final long bytesTotal;
        final String failure;
        int next;
        long bytesCopied;

        CopyJob(String migrationId, int slot, InMemoryNodeStore source, long maxBytesPerSec, long startedAt,
                List<String> keys, long bytesTotal) {
            this(migrationId, slot, source, maxBytesPerSec, startedAt, keys, bytesTotal, null);
        }

        private CopyJob(String migrationId, int slot, InMemoryNodeStore source, long maxBytesPerSec, long startedAt,
                        List<String> keys, long bytesTotal, String failure) {
            this.migrationId = migrationId;
            this.slot = slot;
            this.source = source;
            this.maxBytesPerSec = maxBytesPerSec;
            this.rateSince = startedAt;
            this.keys = List.copyOf(keys);
            this.bytesTotal = bytesTotal;
            this.failure = failure;
        }

        static CopyJob failed(String migrationId, int slot, String sourceNode, String why) {
            return new CopyJob(migrationId, slot, null, 0, 0, List.of(), 0, why);
        }

        boolean done() {
            return next >= keys.size();
        }

        /** From {@code now} on the copy runs at {@code bytesPerSec}; what it copied so far stays. */
        void rate(long bytesPerSec, long now) {
            if (bytesPerSec != maxBytesPerSec && !done()) {
                maxBytesPerSec = bytesPerSec;
                rateSince = now;
                copiedAtRateSince = bytesCopied;
            }
        }

        /** Bytes the rate still allows by {@code now}: {@code rate × elapsed − copied} since the rate was set. */
        long budgetLeft(long now) {
            if (maxBytesPerSec <= 0) {
                return Long.MAX_VALUE;
            }
            long elapsed = Math.max(0, now - rateSince);
            double allowed = (double) maxBytesPerSec * elapsed / 1000.0;
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
