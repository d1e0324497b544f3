package io.skewguard.migrator;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * A state store keyed {@code cluster/rest}, with each cluster's rows decoded once and kept in
 * memory: the coordinator asks for a cluster's capacity reports and members on every report and
 * every capacity event, and the store would decode every row each time.
 *
 * <p>Correct only while the store's one writer writes through this mirror, which the coordinator
 * is for its stores. A cluster's rows are read from the store the first time they are asked for,
 * then kept; {@link #forget} (on the processor's init, whose task may have restored less than this
 * instance saw) drops them all. Iteration is in the store's key order (UTF-8 bytes, i.e. code
 * points). The values are shared between callers: never change one, put a new one.
 */
final class StoreMirror<V> {

    /** Code-point order, the order of the keys' UTF-8 bytes in the store. */
    private static final Comparator<String> STORE_ORDER = (a, b) -> {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    };

    private final Map<String, NavigableMap<String, V>> clusters = new HashMap<>();
    private KeyValueStore<String, V> store;

    /** From now on the rows are {@code store}'s; what was kept is dropped. */
    void attach(KeyValueStore<String, V> store) {
        this.store = store;
        clusters.clear();
    }

    /** The store itself, for what goes past the mirror (a rewrite of every row); {@link #forget} after changing it. */
    KeyValueStore<String, V> store() {
        return store;
    }

    /** Drops every kept row: the next question reads the store again. */
    void forget() {
        clusters.clear();
    }

    /** The row {@code rest} of {@code cluster}, or null. */
    V get(String cluster, String rest) {
        return rows(cluster).get(rest);
    }

    /** The cluster's rows' values in key order, as they stand now. */
    List<V> values(String cluster) {
        return new ArrayList<>(rows(cluster).values());
    }

    /** How many rows the cluster has. */
    int size(String cluster) {
        return rows(cluster).size();
    }

    void put(String cluster, String rest, V value) {
        store.put(CoordinatorProcessor.storeKey(cluster, rest), value);
        rows(cluster).put(rest, value);
    }

    void delete(String cluster, String rest) {
        store.delete(CoordinatorProcessor.storeKey(cluster, rest));
        rows(cluster).remove(rest);
    }

    /** Deletes every row of {@code cluster}. */
    void deleteAll(String cluster) {
        NavigableMap<String, V> rows = rows(cluster);
        for (String rest : rows.keySet()) {
            store.delete(CoordinatorProcessor.storeKey(cluster, rest));
        }
        rows.clear();
    }

    private NavigableMap<String, V> rows(String cluster) {
        NavigableMap<String, V> rows = clusters.get(cluster);
        if (rows == null) {
            rows = new TreeMap<>(STORE_ORDER);
            String prefix = CoordinatorProcessor.clusterPrefix(cluster);
            try (KeyValueIterator<String, V> it = store.prefixScan(prefix, new StringSerializer())) {
                while (it.hasNext()) {
                    var kv = it.next();
                    rows.put(kv.key.substring(prefix.length()), kv.value);
                }
            }
            clusters.put(cluster, rows);
        }
        return rows;
    }
}
