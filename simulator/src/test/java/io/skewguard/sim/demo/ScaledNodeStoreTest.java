package io.skewguard.sim.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.store.CopyProgress;
import io.skewguard.agent.store.InMemoryNodeStore;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ScaledNodeStoreTest {

    @Test
    void aCopyRunsAtTheSimulatedRateDividedByTheScaleAndReportsSimulatedBytes() {
        AtomicLong clock = new AtomicLong(0);
        Map<String, InMemoryNodeStore> stores = new HashMap<>();
        stores.put("a", new InMemoryNodeStore("a", 16, clock::get, stores::get));
        stores.put("b", new InMemoryNodeStore("b", 16, clock::get, stores::get));
        InMemoryNodeStore source = stores.get("a");
        int slot = -1;
        int written = 0;
        for (int i = 0; written < 100; i++) {
            String key = String.format("k%07d", i);
            if (slot < 0) {
                slot = source.slotOf(key);
            }
            if (source.slotOf(key) == slot) {
                source.put(key, i, new byte[92]); // 8 + 92 = 100 stored bytes a key
                written++;
            }
        }
        ScaledNodeStore target = new ScaledNodeStore(stores.get("b"), 1000.0);

        // 1 MB/s simulated = 1000 stored bytes/s: 10 keys a second of the injected clock
        target.startCopy("m1", slot, "a", 1_000_000);
        clock.set(1_000);
        CopyProgress after1s = target.copyProgress("m1");
        assertThat(after1s.status()).isEqualTo(CopyProgress.Status.RUNNING);
        assertThat(after1s.bytesCopied()).isEqualTo(1_000_000);
        assertThat(after1s.bytesTotal()).isEqualTo(10_000_000);

        clock.set(10_000);
        CopyProgress done = target.copyProgress("m1");
        assertThat(done.status()).isEqualTo(CopyProgress.Status.DONE);
        assertThat(done.bytesCopied()).isEqualTo(10_000_000);
        assertThat(stores.get("b").keys(slot)).isEqualTo(source.keys(slot));
    }
}
