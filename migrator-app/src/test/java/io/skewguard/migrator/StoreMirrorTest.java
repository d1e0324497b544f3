package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The mirror answers as the store would, in the store's order, and writes through to it. */
class StoreMirrorTest {

    private KeyValueStore<String, String> store;
    private final StoreMirror<String> mirror = new StoreMirror<>();

    @BeforeEach
    void openStore() {
        store = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("rows"), Serdes.String(), Serdes.String())
                .withLoggingDisabled().build();
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
        store.init(context.getStateStoreContext(), store);
        mirror.attach(store);
    }

    @Test
    void rowsAlreadyInTheStoreAreSeenAndWritesReachTheStore() {
        store.put(CoordinatorProcessor.storeKey("c1", "n1"), "old");
        store.put(CoordinatorProcessor.storeKey("c2", "n1"), "other cluster");

        assertThat(mirror.get("c1", "n1")).isEqualTo("old");
        mirror.put("c1", "n2", "new");
        mirror.put("c1", "n1", "newer");
        mirror.delete("c2", "n1");

        assertThat(store.get(CoordinatorProcessor.storeKey("c1", "n1"))).isEqualTo("newer");
        assertThat(store.get(CoordinatorProcessor.storeKey("c1", "n2"))).isEqualTo("new");
        assertThat(store.get(CoordinatorProcessor.storeKey("c2", "n1"))).isNull();
        assertThat(mirror.values("c1")).containsExactly("newer", "new");
        assertThat(mirror.size("c1")).isEqualTo(2);
        assertThat(mirror.size("c2")).isZero();
    }

    @Test
    void valuesComeInTheStoresKeyOrderAlsoForKeysOutsideTheBasicPlane() {
        // U+FF5E sorts before U+1F600 by code point (and UTF-8 bytes), after it by UTF-16 units
        List<String> nodes = List.of("n-\uD83D\uDE00", "n-\uFF5E", "n-a", "n-B");
        for (String n : nodes) {
            store.put(CoordinatorProcessor.storeKey("c", n), n);
        }
        List<String> storeOrder = new java.util.ArrayList<>();
        try (var it = store.prefixScan(CoordinatorProcessor.clusterPrefix("c"), new org.apache.kafka.common.serialization.StringSerializer())) {
            it.forEachRemaining(kv -> storeOrder.add(kv.value));
        }
        assertThat(mirror.values("c")).containsExactlyElementsOf(storeOrder);
        mirror.put("c", "n-\uFF00", "n-\uFF00");
        assertThat(mirror.values("c")).containsExactly("n-B", "n-a", "n-\uFF00", "n-\uFF5E", "n-\uD83D\uDE00");
    }

    @Test
    void forgetReadsTheStoreAgainAndDeleteAllEmptiesOneCluster() {
        mirror.put("c", "n1", "a");
        store.put(CoordinatorProcessor.storeKey("c", "n2"), "written past the mirror");
        assertThat(mirror.values("c")).containsExactly("a");
        mirror.forget();
        assertThat(mirror.values("c")).containsExactly("a", "written past the mirror");

        mirror.put("d", "n1", "kept");
        mirror.deleteAll("c");
        assertThat(mirror.values("c")).isEmpty();
        try (var it = store.all()) {
            assertThat(it.next().key).isEqualTo(CoordinatorProcessor.storeKey("d", "n1"));
            assertThat(it.hasNext()).isFalse();
        }
    }
}
