package io.skewguard.agent.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link NodeStore} of this package promises, whichever medium it keeps its keys on:
 * keys per slot, paced copy, dual-write, switch, abort, cleanup. A store class's test extends it and
 * says how to open a store.
 */
abstract class NodeStoreContract {

    protected static final int SLOTS = 16;
    protected final AtomicLong clock = new AtomicLong();
    protected final Map<String, LedgerNodeStore> nodes = new HashMap<>();
    protected LedgerNodeStore source;
    protected LedgerNodeStore target;

    /** A new, empty store of node {@code id}, clocked by {@link #clock}, finding its peers in {@link #nodes}. */
    protected abstract LedgerNodeStore open(String id);

    @BeforeEach
    void openSourceAndTarget() {
        source = store("src");
        target = store("dst");
    }

    protected LedgerNodeStore store(String id) {
        LedgerNodeStore s = open(id);
        nodes.put(id, s);
        return s;
    }

    /** {@code count} distinct keys of {@code slot}, each 10 chars long. */
    protected static List<String> keysOf(int slot, int count) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; keys.size() < count; i++) {
            String key = String.format("key-%06d", i);
            if (SlotTable.slotOf(HashRing.hashKey(key), SLOTS) == slot) {
                keys.add(key);
            }
        }
        return keys;
    }

    protected static byte[] bytes(int n) {
        return new byte[n];
    }

    @Test
    void keysLandInTheSlotTheSlotTableComputes() {
        SlotTable table = SlotTable.fromRing(HashRing.ofIds("src", "dst"), 2, SLOTS);
        for (String key : List.of("a", "b", "user/42", "éé")) {
            source.put(key, 1, bytes(3));
            assertThat(source.slotOf(key)).isEqualTo(table.slotOf(key));
            assertThat(source.keys(table.slotOf(key))).contains(key);
        }
    }

    @Test
    void theHighestVersionWinsWhateverTheOrderOfWrites() {
        source.put("k", 5, new byte[] {5});
        source.put("k", 3, new byte[] {3});
        assertThat(source.get("k")).contains(new Versioned(5, new byte[] {5}));
        source.put("k", 6, new byte[] {6});
        assertThat(source.get("k").orElseThrow().version()).isEqualTo(6);
    }

    /** Entries of 100 bytes: a chunk of them weighs this much. */
    protected static final int CHUNK_BYTES = 100 * LedgerNodeStore.CHUNK_KEYS;

    @Test
    void copyMovesWholeChunksNoMoreBytesThanTheRateAllowsByTheClockAndFinishesWithEverything() {
        List<String> keys = keysOf(3, 3 * LedgerNodeStore.CHUNK_KEYS);
        for (String key : keys) {
            source.put(key, 1, bytes(90)); // 10 + 90 = 100 bytes per entry
        }
        target.startCopy("m", 3, "src", CHUNK_BYTES); // one chunk per second

        CopyProgress atStart = target.copyProgress("m");
        assertThat(atStart.status()).isEqualTo(CopyProgress.Status.RUNNING);
        assertThat(atStart.bytesCopied()).isZero();
        assertThat(atStart.bytesTotal()).isEqualTo(3L * CHUNK_BYTES);

        clock.set(999); // the budget does not pay for a whole chunk yet and the copy has not waited a second
        assertThat(target.copyProgress("m").bytesCopied()).isZero();
        assertThat(target.keys(3)).isEmpty();

        clock.set(1_000);
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(CHUNK_BYTES);
        assertThat(target.keys(3)).hasSize(LedgerNodeStore.CHUNK_KEYS);

        clock.set(2_500); // one chunk and a half paid since the first: one more chunk
        CopyProgress mid = target.copyProgress("m");
        assertThat(mid.status()).isEqualTo(CopyProgress.Status.RUNNING);
        assertThat(mid.bytesCopied()).isEqualTo(2L * CHUNK_BYTES).isLessThanOrEqualTo(CHUNK_BYTES * 2_500L / 1_000);

        clock.set(3_000);
        CopyProgress done = target.copyProgress("m");
        assertThat(done.status()).isEqualTo(CopyProgress.Status.DONE);
        assertThat(done.bytesCopied()).isEqualTo(3L * CHUNK_BYTES);
        assertThat(target.keys(3)).containsExactlyElementsOf(source.keys(3));
    }

    @Test
    void aCopyPayingForLessThanAChunkCopiesWhatItMayOnceASecond() {
        for (String key : keysOf(3, 40)) {
            source.put(key, 1, bytes(90));
        }
        target.startCopy("m", 3, "src", 1_000); // ten entries per second, a chunk in 6.4 s
        clock.set(500);
        assertThat(target.copyProgress("m").bytesCopied()).isZero();
        clock.set(1_500);
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(1_500);
        clock.set(2_000); // half a second after the last: waits
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(1_500);
        clock.set(3_899); // the budget is 3 899 bytes: 39 entries, the last one overshooting by 1
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(3_900);
        clock.set(4_900);
        assertThat(target.copyProgress("m").status()).isEqualTo(CopyProgress.Status.DONE);
        assertThat(target.keys(3)).containsExactlyElementsOf(source.keys(3));
    }

    @Test
    void theLastChunkOfAShardIsItsRest() {
        for (String key : keysOf(3, LedgerNodeStore.CHUNK_KEYS + 10)) {
            source.put(key, 1, bytes(90));
        }
        target.startCopy("m", 3, "src", CHUNK_BYTES);
        clock.set(1_000);
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(CHUNK_BYTES);
        clock.set(1_099); // ten entries' worth is 1 000 bytes: not yet
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(CHUNK_BYTES);
        clock.set(1_157);
        assertThat(target.copyProgress("m").status()).isEqualTo(CopyProgress.Status.DONE);
    }

    @Test
    void aGovernedCopyRunsAtTheGovernorsPaceTimesItsRate() {
        AtomicLong nanos = new AtomicLong();
        LatencyGovernor governor = new LatencyGovernor(new CopyPacer(0.05, 0.02), Duration.ofSeconds(1), nanos::get);
        ((LedgerNodeStore) target).governedBy(governor);
        for (String key : keysOf(2, 4 * LedgerNodeStore.CHUNK_KEYS)) {
            source.put(key, 1, bytes(90));
        }
        // a quiet second of writes taking 100 µs each sets the baseline, a second with copies at 1 ms halves the pace
        LatencyGovernorTest.writes(governor, nanos, 200, 100);
        nanos.addAndGet(1_000_000_000L);
        assertThat(governor.pace()).isEqualTo(1.0);
        governor.copied();
        LatencyGovernorTest.writes(governor, nanos, 200, 1_000);
        nanos.addAndGet(1_000_000_000L);
        assertThat(governor.pace()).isEqualTo(0.5);

        target.startCopy("m", 2, "src", CHUNK_BYTES);
        assertThat(target.copyProgress("m").bytesCopied()).isZero();
        clock.set(1_000); // at half the rate a second pays for half a chunk
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(CHUNK_BYTES / 2);
        clock.set(2_000);
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(CHUNK_BYTES);

        ((LedgerNodeStore) target).governedBy(null); // ungoverned again: the granted rate from now on
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(CHUNK_BYTES);
        clock.set(3_000);
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(2L * CHUNK_BYTES);
    }

    @Test
    void writesDuringTheCopyLandOnSourceAndTargetAndANewerForwardedValueIsNotOverwrittenByTheCopy() {
        List<String> keys = keysOf(5, 20);
        for (String key : keys) {
            source.put(key, 1, bytes(90));
        }
        target.startCopy("m", 5, "src", 100); // one entry per second
        source.put(keys.get(19), 2, bytes(1)); // not yet copied: forwarded now, copied later with the same version
        source.put("late-" + keys.get(0), 1, bytes(1));
        String fresh = keysOf(5, 21).get(20);
        source.put(fresh, 7, bytes(4));
        assertThat(target.get(fresh)).contains(new Versioned(7, bytes(4)));
        assertThat(target.get(keys.get(19)).orElseThrow().version()).isEqualTo(2);

        clock.set(1_000_000);
        assertThat(target.copyProgress("m").status()).isEqualTo(CopyProgress.Status.DONE);
        for (String key : source.keys(5)) {
            assertThat(target.get(key)).as(key).isEqualTo(source.get(key));
        }
    }

    @Test
    void startingTheSameCopyAgainKeepsItsProgress() {
        for (String key : keysOf(2, 2 * LedgerNodeStore.CHUNK_KEYS)) {
            source.put(key, 1, bytes(90));
        }
        target.startCopy("m", 2, "src", CHUNK_BYTES);
        clock.set(1_000);
        long before = target.copyProgress("m").bytesCopied();
        target.startCopy("m", 2, "src", CHUNK_BYTES);
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(before).isEqualTo(CHUNK_BYTES);
    }

    @Test
    void startingARunningCopyAgainWithAnotherRateChangesOnlyItsPaceFromNowOn() {
        for (String key : keysOf(2, 4 * LedgerNodeStore.CHUNK_KEYS)) {
            source.put(key, 1, bytes(90)); // 100 bytes per entry
        }
        target.startCopy("m", 2, "src", CHUNK_BYTES); // one chunk per second
        clock.set(1_000);
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(CHUNK_BYTES);
        target.startCopy("m", 2, "src", 2L * CHUNK_BYTES); // two chunks per second from now on
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(CHUNK_BYTES);
        clock.set(2_000);
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(3L * CHUNK_BYTES);
        target.startCopy("m", 2, "src", CHUNK_BYTES / 2); // half a chunk per second
        clock.set(3_000);
        assertThat(target.copyProgress("m").bytesCopied()).isEqualTo(3L * CHUNK_BYTES + CHUNK_BYTES / 2);
        clock.set(4_000);
        assertThat(target.copyProgress("m").status()).isEqualTo(CopyProgress.Status.DONE);
    }

    @Test
    void aCopyFromAnUnknownNodeFailsWithAReasonAndCanBeRetried() {
        target.startCopy("m", 2, "nowhere", 0);
        CopyProgress p = target.copyProgress("m");
        assertThat(p.status()).isEqualTo(CopyProgress.Status.FAILED);
        assertThat(p.message()).contains("nowhere");
        target.startCopy("m", 2, "src", 0);
        assertThat(target.copyProgress("m").status()).isEqualTo(CopyProgress.Status.DONE);
    }

    @Test
    void abortDropsTheTargetCopyStopsTheDualWriteAndTheSourceKeepsEverything() {
        List<String> keys = keysOf(4, 5);
        for (String key : keys) {
            source.put(key, 1, bytes(2));
        }
        target.startCopy("m", 4, "src", 0);
        target.copyProgress("m");
        target.abortTarget("m", 4);
        source.abortSource("m", 4, "dst");
        source.put(keys.get(0), 2, bytes(2));

        assertThat(target.holdsSlot(4)).isFalse();
        assertThat(source.forwards(4)).isFalse();
        assertThat(source.keys(4)).containsExactlyInAnyOrderElementsOf(keys);
        assertThat(target.copyProgress("m").status()).isEqualTo(CopyProgress.Status.UNKNOWN);
        target.abortTarget("m", 4); // again: nothing changes
        assertThat(target.holdsSlot(4)).isFalse();
    }

    @Test
    void anAbortOfAMigrationThatBroughtNoCopyHereLeavesTheNodesOwnDataAlone() {
        List<String> keys = keysOf(4, 3);
        for (String key : keys) {
            target.put(key, 1, bytes(2));
        }
        target.abortTarget("never-started", 4);
        assertThat(target.keys(4)).containsExactlyInAnyOrderElementsOf(keys);
    }

    @Test
    void afterCommitTheSourceStillForwardsUntilCleanupThenRefusesWritesOfThatSlot() {
        List<String> keys = keysOf(6, 5);
        for (String key : keys) {
            source.put(key, 1, bytes(2));
        }
        target.startCopy("m", 6, "src", 0);
        target.copyProgress("m");
        target.commitTarget("m", 6);
        source.commitSource("m", 6, "dst");

        source.put(keys.get(1), 9, bytes(1)); // a writer with the old slot table
        assertThat(target.get(keys.get(1)).orElseThrow().version()).isEqualTo(9);

        source.cleanup("m", 6);
        source.cleanup("m", 6);
        assertThat(source.holdsSlot(6)).isFalse();
        assertThat(target.keys(6)).containsExactlyInAnyOrderElementsOf(keys);
        assertThatThrownBy(() -> source.put(keys.get(2), 10, bytes(1)))
                .isInstanceOf(StaleRouteException.class).hasMessageContaining("slot 6");
    }

    /** {@code count} keys of {@code slot} written to the source at version 1. */
    private List<String> onSource(int slot, int count) {
        List<String> keys = keysOf(slot, count);
        for (String key : keys) {
            source.put(key, 1, bytes(2));
        }
        return keys;
    }

    /** {@code slot} moved from {@code from} to {@code to} by migration {@code id}: copy, commit, cleanup. */
    private void migrate(String id, int slot, LedgerNodeStore from, LedgerNodeStore to, boolean cleanup) {
        to.startCopy(id, slot, from.node(), 0);
        to.copyProgress(id);
        to.commitTarget(id, slot);
        from.commitSource(id, slot, to.node());
        if (cleanup) {
            from.cleanup(id, slot);
        }
    }

    @Test
    void aDualWriteThatReachesItsTargetAfterTheTargetGaveTheSlotOnAndCleanedItUpIsRefusedAsStaleNotDropped() {
        // a source forwards after releasing its lock: a writer's forward can reach the target late, when the
        // slot has moved on from it; dropped there, the write would be on no node once the source cleans up
        List<String> keys = onSource(7, 3);
        LedgerNodeStore next = store("next");
        migrate("m1", 7, source, target, true);
        migrate("m2", 7, target, next, true);

        assertThatThrownBy(() -> target.acceptForwarded(7, keys.get(0), new Versioned(9, bytes(1))))
                .isInstanceOf(StaleRouteException.class).hasMessageContaining("slot 7");
        assertThat(target.holdsSlot(7)).isFalse();
        assertThat(next.get(keys.get(0)).orElseThrow().version()).isEqualTo(1); // the writer routes again to `next`
    }

    @Test
    void aDualWriteReachingANodeThatDualWritesTheSlotOnGoesOnToItsTarget() {
        // dst received slot 8 from src and now copies it on to next: a late forward from src lands on both
        List<String> keys = onSource(8, 3);
        LedgerNodeStore next = store("next");
        migrate("m1", 8, source, target, false);
        next.startCopy("m2", 8, "dst", 0);
        next.copyProgress("m2");

        target.acceptForwarded(8, keys.get(1), new Versioned(9, bytes(1)));

        assertThat(target.get(keys.get(1)).orElseThrow().version()).isEqualTo(9);
        assertThat(next.get(keys.get(1)).orElseThrow().version()).isEqualTo(9);
        // and a write of the source's own still reaches both, through the same path
        source.put(keys.get(2), 10, bytes(1));
        assertThat(next.get(keys.get(2)).orElseThrow().version()).isEqualTo(10);
    }

    @Test
    void aSlotRebuiltFromReplicasOnANodeThatCleanedItUpTakesWritesAgain() {
        List<String> keys = keysOf(6, 3);
        source.put(keys.get(0), 1, bytes(2));
        target.startCopy("m", 6, "src", 0);
        target.copyProgress("m");
        target.commitTarget("m", 6);
        source.commitSource("m", 6, "dst");
        source.cleanup("m", 6);

        source.rebuildSlot(6); // the target was lost: the source replaces it and the storage layer rebuilds the slot here
        source.rebuildSlot(6);
        source.put(keys.get(1), 2, bytes(2));

        assertThat(source.get(keys.get(1)).orElseThrow().version()).isEqualTo(2);
        assertThat(source.holdsSlot(6)).isTrue();
    }

    @Test
    void shardBytesCountKeyAndValueBytesPerSlot() {
        List<String> keys = keysOf(1, 3);
        for (String key : keys) {
            source.put(key, 1, bytes(5));
        }
        assertThat(source.shardBytes()).containsExactly(Map.entry(1, 45L));
        assertThat(source.usedBytes()).isEqualTo(45);
    }

    @Test
    void theNewestWeightEpochWins() {
        source.applyWeight(3, 1.5);
        source.applyWeight(2, 0.6);
        assertThat(source.weight()).isEqualTo(1.5);
        assertThat(source.weightEpoch()).isEqualTo(3);
    }

    @Test
    void anyJavaStringIsAKeyAndReadsBackExactly() {
        List<String> keys = List.of("", "éé", "a\u0000b", "\uD800 unpaired", "\uD83D\uDE00", "\uFFFF");
        for (String key : keys) {
            source.put(key, 4, key.getBytes(java.nio.charset.StandardCharsets.UTF_16));
        }
        for (String key : keys) {
            assertThat(source.get(key)).as(key).contains(new Versioned(4, key.getBytes(java.nio.charset.StandardCharsets.UTF_16)));
            assertThat(source.keys(source.slotOf(key))).contains(key);
        }
    }

    @Test
    void overwritingAKeyCountsOnlyItsNewestEntryAndAnOlderWriteCountsNothing() {
        String key = keysOf(7, 1).get(0);
        source.put(key, 1, bytes(90));
        source.put(key, 2, bytes(40));
        source.put(key, 1, bytes(500));
        assertThat(source.shardBytes()).containsExactly(Map.entry(7, 50L));
        assertThat(source.holdsSlot(7)).isTrue();
        assertThat(source.holdsSlot(8)).isFalse();
    }

    @Test
    void anAbortSourceNamingAnotherTargetLeavesTheDualWriteOn() {
        store("other");
        target.startCopy("m", 9, "src", 0);
        source.abortSource("m", 9, "other");
        assertThat(source.forwards(9)).isTrue();
        source.prepareSource("m", 9, "other"); // the slot already forwards to dst: unchanged
        String key = keysOf(9, 1).get(0);
        source.put(key, 3, bytes(1));
        assertThat(target.get(key)).contains(new Versioned(3, bytes(1)));
    }

    @Test
    void commitIsIdempotentAndTheCommittedTargetKeepsAcceptingTheSlot() {
        List<String> keys = keysOf(10, 3);
        for (String key : keys) {
            source.put(key, 1, bytes(2));
        }
        target.startCopy("m", 10, "src", 0);
        assertThat(target.copyProgress("m").status()).isEqualTo(CopyProgress.Status.DONE);
        target.commitTarget("m", 10);
        target.commitTarget("m", 10);
        assertThat(target.copyProgress("m").status()).isEqualTo(CopyProgress.Status.UNKNOWN);
        target.abortTarget("m", 10); // a stale abort after the commit drops nothing
        assertThat(target.keys(10)).containsExactlyInAnyOrderElementsOf(keys);
        source.put(keys.get(0), 5, bytes(3));
        assertThat(target.get(keys.get(0))).contains(new Versioned(5, bytes(3)));
    }

    @Test
    void aSlotOutsideTheSlotCountIsRefusedNamingIt() {
        assertThatThrownBy(() -> target.startCopy("m", SLOTS, "src", 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("slot " + SLOTS);
    }

    // ------------------------------------------------------------------------------------ threads

    @Test
    void writesAndReadsDoNotWaitForTheStateLockThatCopiesAndWeightsTake() throws Exception {
        String key = keysOf(2, 1).get(0);
        synchronized (source) { // as a long copy chunk or a weight change holds it
            CompletableFuture<Optional<Versioned>> written = CompletableFuture.supplyAsync(() -> {
                source.put(key, 1, bytes(4));
                return source.get(key);
            });
            assertThat(written.get(30, TimeUnit.SECONDS)).contains(new Versioned(1, bytes(4)));
        }
    }

    @Test
    void writersOnEverySlotDuringACopyLoseNothingAndTheFiguresMatchTheKeys() throws Exception {
        for (String key : keysOf(3, 200)) {
            source.put(key, 0, bytes(40));
        }
        AtomicBoolean stop = new AtomicBoolean();
        List<CompletableFuture<Integer>> writers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int thread = t;
            writers.add(CompletableFuture.supplyAsync(() -> {
                Random random = new Random(thread);
                int writes = 0;
                while (!stop.get() || writes < 2_000) {
                    source.put("w" + thread + "-" + random.nextInt(300), writes + 1, bytes(1 + random.nextInt(60)));
                    writes++;
                }
                return writes;
            }));
        }
        target.startCopy("m", 3, "src", CHUNK_BYTES / 2);
        while (target.copyProgress("m").status() == CopyProgress.Status.RUNNING) {
            clock.addAndGet(1_000);
        }
        stop.set(true);
        for (CompletableFuture<Integer> w : writers) {
            assertThat(w.get(60, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(2_000);
        }

        assertThat(target.copyProgress("m").status()).isEqualTo(CopyProgress.Status.DONE);
        assertThat(target.keys(3)).containsExactlyElementsOf(source.keys(3));
        for (String key : source.keys(3)) {
            assertThat(target.get(key)).as(key).isEqualTo(source.get(key));
        }
        for (LedgerNodeStore store : List.of(source, target)) {
            Map<Integer, Long> counted = new java.util.TreeMap<>();
            for (int slot = 0; slot < SLOTS; slot++) {
                for (String key : store.keys(slot)) {
                    counted.merge(slot, LedgerNodeStore.size(key, store.get(key).orElseThrow()), Long::sum);
                }
            }
            assertThat(store.shardBytes()).as(store.node()).isEqualTo(counted);
        }
    }
}
