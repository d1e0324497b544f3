package io.skewguard.agent.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The RocksDB store keeps the {@link NodeStoreContract}, and whatever it knew is still there after a
 * close and reopen: the keys, the dual-writes, copies with their progress, commits, cleanups; a
 * migration interrupted by restarts ends exactly as the same migration on in-memory stores that
 * never restarted.
 */
class RocksDbNodeStoreTest extends NodeStoreContract {

    @TempDir
    Path dir;

    @Override
    protected LedgerNodeStore open(String id) {
        return RocksDbNodeStore.open(dir.resolve(id), id, SLOTS, clock::get, nodes::get);
    }

    @AfterEach
    void closeStores() {
        nodes.values().forEach(s -> ((RocksDbNodeStore) s).close());
    }

    /** Closes every store and opens its directory again. */
    private void restart() {
        for (String id : List.copyOf(nodes.keySet())) {
            ((RocksDbNodeStore) nodes.get(id)).close();
            store(id);
        }
        source = nodes.get("src");
        target = nodes.get("dst");
    }

    // ------------------------------------------------------------------------------------ reopen

    @Test
    void keysWeightAndCleanedSlotsSurviveACloseAndReopen() {
        List<String> keys = keysOf(1, 20);
        for (int i = 0; i < keys.size(); i++) {
            source.put(keys.get(i), i, bytes(i));
        }
        source.put(keys.get(0), 99, bytes(7));
        source.put(keysOf(2, 1).get(0), 1, bytes(3));
        source.cleanup("gone", 2);
        source.applyWeight(4, 1.75);
        Map<Integer, Long> shards = source.shardBytes();

        restart();

        assertThat(source.get(keys.get(0))).contains(new Versioned(99, bytes(7)));
        for (int i = 1; i < keys.size(); i++) {
            assertThat(source.get(keys.get(i))).contains(new Versioned(i, bytes(i)));
        }
        assertThat(source.shardBytes()).isEqualTo(shards);
        assertThat(source.weight()).isEqualTo(1.75);
        assertThat(source.weightEpoch()).isEqualTo(4);
        assertThatThrownBy(() -> source.put(keysOf(2, 1).get(0), 2, bytes(1))).isInstanceOf(StaleRouteException.class);
    }

    @Test
    void aCommittedMigrationInterruptedByRestartsEndsAsOnStoresThatNeverRestarted() {
        List<Object> withRestarts = migrate(new Cluster(nodes, clock, this::restart), false);
        List<Object> reference = migrate(inMemoryCluster(), false);
        assertThat(withRestarts).isEqualTo(reference);
        assertThat(withRestarts).contains("stale route");
    }

    @Test
    void anAbortedMigrationInterruptedByRestartsEndsAsOnStoresThatNeverRestarted() {
        List<Object> withRestarts = migrate(new Cluster(nodes, clock, this::restart), true);
        List<Object> reference = migrate(inMemoryCluster(), true);
        assertThat(withRestarts).isEqualTo(reference);
    }

    @Test
    void aReopenedCopyKeepsItsProgressAndPaceAndTheAgentsResumeChangesNothing() {
        for (String key : keysOf(2, 2 * LedgerNodeStore.CHUNK_KEYS)) {
            source.put(key, 1, bytes(90)); // 100 bytes per entry
        }
        target.startCopy("m", 2, "src", CHUNK_BYTES);
        clock.set(1_000);
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(CHUNK_BYTES);

        restart();
        target.startCopy("m", 2, "src", CHUNK_BYTES); // what AgentCore.resume does for a copy it recorded as running

        assertThat(target.copyProgress("m")).isEqualTo(new CopyProgress("m", CopyProgress.Status.RUNNING, CHUNK_BYTES,
                2L * CHUNK_BYTES, null));
        assertThat(source.forwards(2)).isTrue();
        clock.set(2_000);
        assertThat(target.copyProgress("m").status()).isEqualTo(CopyProgress.Status.DONE);
    }

    @Test
    void aReopenedCopyWhoseSourceIsNotOpenFailsWithAReasonAndCanBeRestarted() {
        for (String key : keysOf(2, 5)) {
            source.put(key, 1, bytes(90));
        }
        target.startCopy("m", 2, "src", 100);
        ((RocksDbNodeStore) target).close();
        nodes.remove("src");
        store("dst");
        target = nodes.get("dst");

        CopyProgress p = target.copyProgress("m");
        assertThat(p.status()).isEqualTo(CopyProgress.Status.FAILED);
        assertThat(p.message()).contains("src");

        nodes.put("src", source);
        target.startCopy("m", 2, "src", 0);
        assertThat(target.copyProgress("m").status()).isEqualTo(CopyProgress.Status.DONE);
        assertThat(target.keys(2)).isEqualTo(source.keys(2));
    }

    // ------------------------------------------------------------------------------------ opening and closing

    @Test
    void aDirectoryOpenElsewhereIsRefusedNamingTheDirectory() {
        assertThatThrownBy(() -> RocksDbNodeStore.open(dir.resolve("src"), "src", SLOTS, clock::get, nodes::get))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(dir.resolve("src").toString())
                .hasMessageContaining("in use");
    }

    @Test
    void anotherNodesDirectoryOrAnotherSlotCountIsRefused() {
        ((RocksDbNodeStore) source).close();
        assertThatThrownBy(() -> RocksDbNodeStore.open(dir.resolve("src"), "dst", SLOTS, clock::get, nodes::get))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node src").hasMessageContaining("not of node dst");
        assertThatThrownBy(() -> RocksDbNodeStore.open(dir.resolve("src"), "src", SLOTS * 2, clock::get, nodes::get))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(SLOTS + " slots");
        store("src"); // the refused opens released the directory
    }

    @Test
    void closeIsIdempotentAndLaterOperationsSayTheStoreIsClosed() {
        source.put("k", 1, bytes(1));
        RocksDbNodeStore store = (RocksDbNodeStore) source;
        store.close();
        store.close();
        assertThatThrownBy(() -> store.put("k", 2, bytes(1))).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> store.get("k")).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        source = store("src");
        assertThat(source.get("k")).contains(new Versioned(1, bytes(1)));
    }

    @Test
    void aCloseWhileWritersRunWaitsForTheirWritesAndEveryAcknowledgedWriteIsThereAfterReopening() throws Exception {
        RocksDbNodeStore store = (RocksDbNodeStore) source;
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(4);
        List<java.util.concurrent.CompletableFuture<Map<String, Long>>> writers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            writers.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                Map<String, Long> acknowledged = new HashMap<>();
                for (long version = 1; ; version++) {
                    String key = "w" + thread + "-" + (version % 50);
                    try {
                        store.put(key, version, bytes(8));
                    } catch (IllegalStateException closed) {
                        assertThat(closed).hasMessageContaining("closed");
                        return acknowledged;
                    }
                    acknowledged.put(key, version);
                    if (version == 200) {
                        started.countDown();
                    }
                }
            }));
        }
        started.await();
        store.close();

        source = store("src");
        for (var writer : writers) {
            Map<String, Long> acknowledged = writer.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(acknowledged).isNotEmpty();
            acknowledged.forEach((key, version) -> assertThat(source.get(key).orElseThrow().version()).as(key).isEqualTo(version));
        }
    }

    @Test
    void aStoreOfTheLargestSlotCountOpensWritesAndCloses() {
        int slots = io.skewguard.core.slots.SlotTable.MAX_SLOT_COUNT;
        try (RocksDbNodeStore s = RocksDbNodeStore.open(dir.resolve("wide"), "wide", slots, clock::get, nodes::get)) {
            s.put("k", 1, bytes(2));
            assertThat(s.get("k")).contains(new Versioned(1, bytes(2)));
        }
        try (RocksDbNodeStore s = RocksDbNodeStore.open(dir.resolve("wide"), "wide", slots, clock::get, nodes::get)) {
            assertThat(s.get("k")).contains(new Versioned(1, bytes(2)));
        }
    }

    @Test
    void aStoreThatSyncsEveryWriteReadsBackTheSame() {
        Path d = dir.resolve("synced");
        try (RocksDbNodeStore s = RocksDbNodeStore.open(d, "synced", SLOTS, clock::get, nodes::get, RocksDbNodeStore.Durability.POWER_LOSS)) {
            s.put("k", 3, bytes(2));
        }
        try (RocksDbNodeStore s = RocksDbNodeStore.open(d, "synced", SLOTS, clock::get, nodes::get)) {
            assertThat(s.get("k")).contains(new Versioned(3, bytes(2)));
        }
    }

    // ------------------------------------------------------------------------------------ the scripted migration

    /** Stores by id, their clock, and what "restart" means for them. */
    private record Cluster(Map<String, LedgerNodeStore> nodes, AtomicLong clock, Runnable restart) {
        LedgerNodeStore node(String id) {
            return nodes.get(id);
        }
    }

    private static Cluster inMemoryCluster() {
        Map<String, LedgerNodeStore> stores = new HashMap<>();
        AtomicLong clock = new AtomicLong();
        Function<String, LedgerNodeStore> peers = stores::get;
        for (String id : List.of("src", "dst")) {
            stores.put(id, new InMemoryNodeStore(id, SLOTS, clock::get, peers));
        }
        return new Cluster(stores, clock, () -> { });
    }

    /**
     * One migration of slot 3 from src to dst, the way the agents drive it, with a restart of every
     * store between the steps; returns what it observed along the way and at the end.
     */
    private static List<Object> migrate(Cluster c, boolean abort) {
        List<Object> seen = new ArrayList<>();
        List<String> moving = keysOf(3, 31);
        for (String key : moving.subList(0, 30)) {
            c.node("src").put(key, 1, bytes(90));
        }
        for (String key : keysOf(4, 5)) {
            c.node("src").put(key, 1, bytes(10));
        }
        c.node("dst").applyWeight(2, 1.25);
        c.node("dst").startCopy("m", 3, "src", 1_000);
        c.clock().set(1_500);
        seen.add(c.node("dst").copyProgress("m"));
        c.node("src").put(moving.get(29), 3, bytes(5)); // not copied yet: forwarded
        c.node("src").put(moving.get(30), 2, bytes(5)); // a new key: forwarded

        c.restart().run();
        seen.add(c.node("dst").copyProgress("m"));
        seen.add(c.node("src").forwards(3));
        c.node("src").put(moving.get(0), 4, bytes(6)); // copied already: forwarded after the restart
        c.node("dst").startCopy("m", 3, "src", 1_000);
        seen.add(c.node("dst").copyProgress("m"));
        c.node("src").prepareSource("m", 3, "dst");
        c.clock().set(2_500);
        seen.add(c.node("dst").copyProgress("m"));

        c.restart().run();
        if (abort) {
            c.node("dst").abortTarget("m", 3);
            c.node("src").abortSource("m", 3, "dst");
            c.restart().run();
            seen.add(c.node("dst").copyProgress("m"));
            c.node("src").put(moving.get(1), 5, bytes(1)); // no longer forwarded
        } else {
            c.clock().set(10_000);
            seen.add(c.node("dst").copyProgress("m"));
            c.node("dst").commitTarget("m", 3);
            c.node("src").commitSource("m", 3, "dst");
            c.restart().run();
            c.node("src").put(moving.get(1), 5, bytes(1)); // a writer with the old slot table
            c.node("src").cleanup("m", 3);
            c.restart().run();
            try {
                c.node("src").put(moving.get(2), 6, bytes(1));
            } catch (StaleRouteException e) {
                seen.add("stale route");
            }
        }
        for (String id : List.of("src", "dst")) {
            LedgerNodeStore s = c.node(id);
            Map<String, Versioned> held = new TreeMap<>();
            for (int slot = 0; slot < SLOTS; slot++) {
                for (String key : s.keys(slot)) {
                    held.put(key, s.get(key).orElseThrow());
                }
            }
            seen.addAll(List.of(id, held, s.shardBytes(), s.forwards(3), s.holdsSlot(3), s.weightEpoch(), s.weight()));
        }
        return seen;
    }
}
