package io.skewguard.sim.fast;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.store.CopyProgress;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.sim.model.Cluster;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioParser;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The bridge between a node agent's store steps and the model's bytes. */
class SimNodeStoreTest {

    private Cluster cluster;
    private final AtomicLong clock = new AtomicLong(1_000_000);
    private final Map<String, InMemoryNodeStore> keys = new HashMap<>();
    private int slot;
    private int source;
    private int target;

    @BeforeEach
    void setUp() throws IOException {
        Scenario scenario;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("scenarios/small-fast.properties")) {
            scenario = ScenarioParser.parse("small-fast.properties", new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        cluster = new Cluster(scenario);
        slot = 7;
        source = cluster.slotTable().candidates(slot).node(0);
        for (int i = 0; i < cluster.maxNodes(); i++) {
            if (!cluster.slotTable().candidates(slot).contains(i)) {
                target = i;
                break;
            }
        }
    }

    private SimNodeStore store(int node) {
        String id = cluster.nodes().id(node);
        InMemoryNodeStore k = keys.computeIfAbsent(id, n -> new InMemoryNodeStore(n, cluster.slotCount(), clock::get, keys::get));
        return new SimNodeStore(k, cluster, clock::get);
    }

    @Test
    void aCopyTakesTheShardsBytesOverTheRateInSimulatedTimeAndOnlyThenIsDone() {
        SimNodeStore from = store(source);
        SimNodeStore to = store(target);
        String key = keyOf(from, slot);
        from.put(key, 1, new byte[] {1});
        double bytes = cluster.shardBytes(slot, source);
        assertThat(bytes).isPositive();
        long rate = (long) Math.ceil(bytes / 100); // 100 simulated seconds

        to.startCopy("m1", slot, cluster.nodes().id(source), rate);
        clock.addAndGet(50_000);
        CopyProgress half = to.copyProgress("m1");
        assertThat(half.status()).isEqualTo(CopyProgress.Status.RUNNING);
        assertThat((double) half.bytesCopied()).isCloseTo(bytes / 2, org.assertj.core.api.Assertions.within(bytes * 0.02));
        assertThat(half.bytesTotal()).isEqualTo(Math.round(bytes));

        clock.addAndGet(50_000);
        CopyProgress done = to.copyProgress("m1");
        assertThat(done.status()).isEqualTo(CopyProgress.Status.DONE);
        assertThat(done.bytesCopied()).isEqualTo(Math.round(bytes));
        assertThat(to.get(key)).isPresent(); // the key itself was copied by the in-memory store
    }

    @Test
    void aRepeatedCopyWithAnotherRateChangesThePaceFromThenOn() {
        store(source);
        SimNodeStore to = store(target);
        double bytes = cluster.shardBytes(slot, source);
        long slow = (long) Math.ceil(bytes / 1000); // 1 000 simulated seconds
        to.startCopy("m1", slot, cluster.nodes().id(source), slow);
        clock.addAndGet(100_000); // 10 % copied
        to.startCopy("m1", slot, cluster.nodes().id(source), 9 * slow); // the rest in 100 s
        clock.addAndGet(99_000);
        assertThat(to.copyProgress("m1").status()).isEqualTo(CopyProgress.Status.RUNNING);
        clock.addAndGet(1_000);
        assertThat(to.copyProgress("m1").status()).isEqualTo(CopyProgress.Status.DONE);
    }

    private static String keyOf(SimNodeStore store, int slot) {
        for (int i = 0; ; i++) {
            if (store.keys().slotOf("k" + i) == slot) {
                return "k" + i;
            }
        }
    }

    @Test
    void anAbortDropsTheModelsCopyAndInFlightMarkAndACleanupFreesTheSourceAfterTheSwitch() {
        SimNodeStore from = store(source);
        SimNodeStore to = store(target);
        cluster.markInFlight(slot, source, target);
        to.startCopy("m1", slot, cluster.nodes().id(source), 0);
        to.abortTarget("m1", slot);
        assertThat(cluster.inFlightTarget(slot)).isEqualTo(-1);

        double bytes = cluster.shardBytes(slot, source);
        double usedBefore = cluster.used(source);
        from.cleanup("m2", slot); // still routed to the source: never freed
        assertThat(cluster.shardBytes(slot, source)).isEqualTo(bytes);
        cluster.switchSlot(slot, source, target);
        from.cleanup("m2", slot);
        assertThat(cluster.shardBytes(slot, source)).isZero();
        assertThat(cluster.used(source)).isCloseTo(usedBefore - bytes, org.assertj.core.api.Assertions.within(1.0));
    }

    @Test
    void aWeightReachesTheWritersWeightFactor() {
        store(source).applyWeight(3, 0.7);
        assertThat(cluster.weight(source)).isEqualTo(0.7);
        assertThat(keys.get(cluster.nodes().id(source)).weight()).isEqualTo(0.7);
    }
}
