package io.skewguard.core.ring;

import net.openhft.hashing.LongHashFunction;

import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The table between node ids (strings, at the API edge) and node indexes (ints, on the hot paths).
 * The ring, the slot table, the weighted pick and every per-node array ({@code double[]} effective
 * weights, heat, ...) use these indexes.
 *
 * <p>Append-only and immutable: {@link #with(String)} returns a new index that keeps every existing
 * index, so a node that leaves the ring keeps its index and arrays built against an older index stay
 * valid for a newer one. Each node also carries a 64-bit seed, {@code xxh3(id)}, that the weighted pick
 * mixes with the key hash; it depends only on the id, so every process places a key the same way
 * whatever order it learned the nodes in.
 */
public final class NodeIndex {

    private static final LongHashFunction XX3 = LongHashFunction.xx3();
    private static final NodeIndex EMPTY = new NodeIndex(new String[0], new long[0], Map.of());

    private final String[] ids;
    private final long[] seeds;
    private final Map<String, Integer> byId;

    private NodeIndex(String[] ids, long[] seeds, Map<String, Integer> byId) {
        this.ids = ids;
        this.seeds = seeds;
        this.byId = byId;
    }

    /** An index with no nodes. */
    public static NodeIndex empty() {
        return EMPTY;
    }

    /** An index of {@code ids} in iteration order (index 0 is the first); duplicates are rejected. */
    public static NodeIndex of(Collection<String> ids) {
        NodeIndex index = EMPTY;
        for (String id : ids) {
            if (index.indexOf(id) >= 0) {
                throw new IllegalArgumentException("duplicate node id '" + id + "'");
            }
            index = index.with(id);
        }
        return index;
    }

    /** An index of {@code ids} in argument order. */
    public static NodeIndex of(String... ids) {
        return of(Arrays.asList(ids));
    }

    /** This index if it already knows {@code id}, else a new one with {@code id} at index {@link #size()}. */
    public NodeIndex with(String id) {
        Objects.requireNonNull(id, "node id");
        if (byId.containsKey(id)) {
            return this;
        }
        if (id.isBlank()) {
            throw new IllegalArgumentException("node id must not be blank");
        }
        int n = ids.length;
        String[] newIds = Arrays.copyOf(ids, n + 1);
        long[] newSeeds = Arrays.copyOf(seeds, n + 1);
        newIds[n] = id;
        newSeeds[n] = seedOf(id);
        Map<String, Integer> newById = new HashMap<>(byId);
        newById.put(id, n);
        return new NodeIndex(newIds, newSeeds, Map.copyOf(newById));
    }

    /** The index of {@code id}, or -1 when unknown. */
    public int indexOf(String id) {
        Integer index = byId.get(id);
        return index == null ? -1 : index;
    }

    /** The index of {@code id}; an {@link IllegalArgumentException} naming the id when unknown. */
    public int require(String id) {
        int index = indexOf(id);
        if (index < 0) {
            throw new IllegalArgumentException("unknown node '" + id + "'");
        }
        return index;
    }

    /** The id at {@code index}. */
    public String id(int index) {
        return ids[index];
    }

    /** The weighted-pick seed of the node at {@code index}: {@code xxh3(id)}. */
    public long seed(int index) {
        return seeds[index];
    }

    /** Number of nodes ever known to this index; valid indexes are {@code 0 .. size()-1}. */
    public int size() {
        return ids.length;
    }

    /** The ids in index order. */
    public List<String> ids() {
        return List.of(ids);
    }

    /** True when every index of {@code older} names the same node here (this index grew from it). */
    public boolean extendsIndex(NodeIndex older) {
        if (older.ids.length > ids.length) {
            return false;
        }
        for (int i = 0; i < older.ids.length; i++) {
            if (!older.ids[i].equals(ids[i])) {
                return false;
            }
        }
        return true;
    }

    /** The seed a node with this id gets: {@code xxh3} of its UTF-16 chars. */
    public static long seedOf(String id) {
        return XX3.hashChars(id);
    }

    /** The seeds array itself, for {@link WeightedPick}; never modified. */
    long[] seedArray() {
        return seeds;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NodeIndex other && Arrays.equals(ids, other.ids);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(ids);
    }

    @Override
    public String toString() {
        return "NodeIndex" + Arrays.toString(ids);
    }
}
