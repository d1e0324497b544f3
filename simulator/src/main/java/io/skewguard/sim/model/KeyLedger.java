package io.skewguard.sim.model;

import io.skewguard.core.ring.CandidateSet;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Map;

/**
 * A sample of real keys and, per node, which of them it stores, shard by shard: the evidence for
 * "every key is still readable". Keys are {@code key-<seed>-<i>}; a key's slot is
 * {@code xxh3(key) mod S} and its node is what the writers' routing view picks among the slot's
 * writers (candidates and spread nodes) under the current {@code w × freeRatio}
 * ({@link Cluster#pickWriter}). Copies, switches, cleanups, aborts, node-loss rebuilds and Ceph
 * relocations move the keys exactly as they move the shard's bytes; {@link #unreadable} then reads
 * every key the way a reader does — probe the slot's holders in the view's {@code ProbeOrder} — and
 * counts the keys no probed node holds, and {@link #probesOf} how many probes each read took.
 */
public final class KeyLedger {

    private final long seed;
    private final Map<Integer, BitSet>[] stores;
    private long[] hashes = new long[1024];
    private long[] names = new long[1024];
    private int count;
    private long rejected;
    private KeyListener listener = (key, node, slot) -> node;

    /** Told about every key written from now on, with the node the pick chose (dual-writes aside). */
    public interface KeyListener {
        /**
         * @return the node that took the key: {@code node}, or where the writer went when {@code node}
         *     refused it (a spread node that cleaned the slot up, {@code RoutingView.fallback})
         */
        int written(String key, int node, int slot);
    }

    /** Which key, of which slot, a node holds: the ledger's content, for mirroring it elsewhere. */
    public interface HeldKey {
        void held(int node, int slot, String key);
    }

    @SuppressWarnings("unchecked")
    KeyLedger(long seed, int maxNodes) {
        this.seed = seed;
        this.stores = new Map[maxNodes];
        for (int i = 0; i < maxNodes; i++) {
            stores[i] = new HashMap<>();
        }
    }

    /** Writes {@code n} new keys through the real pick. */
    void write(Cluster cluster, int n) {
        cluster.refreshEffectiveWeights();
        SlotTable table = cluster.slotTable();
        for (int k = 0; k < n; k++) {
            long name = count + rejected;
            long hash = HashRing.hashKey(name(name));
            int slot = table.slotOfHash(hash);
            int node;
            try {
                node = cluster.pickWriter(hash);
            } catch (IllegalStateException full) {
                rejected++;
                continue;
            }
            if (count == hashes.length) {
                hashes = java.util.Arrays.copyOf(hashes, count * 2);
                names = java.util.Arrays.copyOf(names, count * 2);
            }
            hashes[count] = hash;
            names[count] = name;
            node = listener.written(name(name), node, slot);
            holding(node, slot).set(count);
            int target = cluster.inFlightTarget(slot);
            if (target >= 0 && cluster.inFlightSource(slot) == node) {
                holding(target, slot).set(count); // dual write during the copy
            }
            count++;
        }
    }

    private String name(long name) {
        return "key-" + seed + "-" + name;
    }

    /** Sets the one listener told about every key written from now on. */
    public void listen(KeyListener listener) {
        this.listener = java.util.Objects.requireNonNull(listener, "listener");
    }

    /** Every (node, slot, key) the ledger says is stored now, node by node. */
    public void forEachHeld(HeldKey visitor) {
        for (int node = 0; node < stores.length; node++) {
            for (Map.Entry<Integer, BitSet> e : new java.util.TreeMap<>(stores[node]).entrySet()) {
                BitSet keys = e.getValue();
                for (int id = keys.nextSetBit(0); id >= 0; id = keys.nextSetBit(id + 1)) {
                    visitor.held(node, e.getKey(), name(names[id]));
                }
            }
        }
    }

    /** The keys the ledger says {@code node} holds of {@code slot}. */
    public void forEachHeld(int node, int slot, java.util.function.Consumer<String> visitor) {
        BitSet keys = stores[node].get(slot);
        if (keys != null) {
            for (int id = keys.nextSetBit(0); id >= 0; id = keys.nextSetBit(id + 1)) {
                visitor.accept(name(names[id]));
            }
        }
    }

    /** Every written key: its name and hash, in write order. */
    public void forEachWritten(java.util.function.ObjLongConsumer<String> visitor) {
        for (int id = 0; id < count; id++) {
            visitor.accept(name(names[id]), hashes[id]);
        }
    }

    private BitSet holding(int node, int slot) {
        return stores[node].computeIfAbsent(slot, s -> new BitSet());
    }

    void copyShard(int slot, int source, int target) {
        BitSet keys = stores[source].get(slot);
        if (keys != null) {
            holding(target, slot).or(keys);
        }
    }

    void dropShard(int slot, int node) {
        stores[node].remove(slot);
    }

    void moveShard(int slot, int from, int to) {
        copyShard(slot, from, to);
        dropShard(slot, from);
    }

    /**
     * Ceph relocation of slot {@code slot} after node {@code node}'s weight went from {@code oldWeight}
     * to {@code newWeight}: a key sitting on its old rendezvous winner (by weight alone, as CRUSH
     * places) moves to its new winner.
     */
    void relocate(Cluster cluster, int slot, int node, double oldWeight, double newWeight) {
        CandidateSet set = cluster.slotTable().candidates(slot);
        double[] before = new double[cluster.maxNodes()];
        double[] after = new double[cluster.maxNodes()];
        for (int k = 0; k < set.size(); k++) {
            int n = set.node(k);
            double w = cluster.alive(n) ? cluster.weight(n) : 0;
            before[n] = n == node ? oldWeight : w;
            after[n] = n == node ? newWeight : w;
        }
        for (int k = 0; k < set.size(); k++) {
            int holder = set.node(k);
            BitSet keys = stores[holder].get(slot);
            if (keys == null) {
                continue;
            }
            for (int id = keys.nextSetBit(0); id >= 0; id = keys.nextSetBit(id + 1)) {
                long hash = hashes[id];
                int was = cluster.pick().pick(hash, set, before);
                int now = cluster.pick().pick(hash, set, after);
                if (was == holder && now != holder) {
                    keys.clear(id);
                    holding(now, slot).set(id);
                }
            }
        }
    }

    /** How many written keys no holder of their slot holds, probing in read order. */
    public long unreadable(Cluster cluster) {
        return unreadable(cluster, ledger());
    }

    /** {@link #probesOf(Cluster, Holder)} on this ledger's own record of who holds which key. */
    public int[] probesOf(Cluster cluster) {
        return probesOf(cluster, ledger());
    }

    private Holder ledger() {
        return (node, slot, id, key) -> {
            BitSet keys = stores[node].get(slot);
            return keys != null && keys.get(id);
        };
    }

    /** Whether a node holds a key; {@code id} is the key's place in write order. */
    public interface Holder {
        boolean holds(int node, int slot, int id, String key);
    }

    /**
     * How many written keys no live holder of their slot (candidate, spread or held node) holds
     * according to {@code holder}, probing the way a reader does (the routing view's {@code ProbeOrder}).
     */
    public long unreadable(Cluster cluster, Holder holder) {
        long missing = 0;
        for (int probe : probesOf(cluster, holder)) {
            missing += probe == 0 ? 1 : 0;
        }
        return missing;
    }

    /**
     * For every written key in write order, the 1-based probe at which a reader finds it on a live node
     * according to {@code holder} (the routing view's {@code ProbeOrder} of its slot), 0 when none has it.
     */
    public int[] probesOf(Cluster cluster, Holder holder) {
        cluster.refreshEffectiveWeights();
        SlotTable table = cluster.slotTable();
        int[] probes = new int[count];
        for (int id = 0; id < count; id++) {
            long hash = hashes[id];
            int slot = table.slotOfHash(hash);
            String key = name(names[id]);
            int keyId = id;
            probes[id] = cluster.probe(hash, node -> cluster.alive(node) && holder.holds(node, slot, keyId, key));
        }
        return probes;
    }

    /** The slot of the key written {@code id}-th. */
    public int slotOf(Cluster cluster, int id) {
        return cluster.slotTable().slotOfHash(hashes[id]);
    }

    /** Keys written and stored (key names run over stored and refused keys alike). */
    public int written() {
        return count;
    }

    /** Keys refused because every candidate of their slot was full. */
    public long rejected() {
        return rejected;
    }
}
