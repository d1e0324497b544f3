package io.skewguard.agent;

import static io.skewguard.schemas.MigrationPhase.CLEANUP;
import static io.skewguard.schemas.MigrationPhase.COMMIT;
import static io.skewguard.schemas.MigrationPhase.COPY;
import static io.skewguard.schemas.MigrationPhase.PREPARE;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.store.CopyProgress;
import io.skewguard.agent.store.Versioned;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.StepResult;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The same promise as {@link NoKeyLostProperties} with a real writer thread racing the migrations:
 * it reads the slot table, writes, and on a {@code StaleRouteException} retries with the new table,
 * as a writer does.
 */
class NoKeyLostUnderConcurrentWritesTest {

    @Test
    void aWriterRacingCopyCommitAndCleanupLosesNoKey() throws Exception {
        SimulatedCluster cluster = new SimulatedCluster("n0", "n1", "n2", "n3", "n4", "n5");
        ConcurrentHashMap<String, Long> lastVersion = new ConcurrentHashMap<>();
        CountDownLatch firstWrites = new CountDownLatch(1);
        AtomicReference<Throwable> writerFailure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                for (long v = 1; v <= 60_000; v++) {
                    String key = "key-" + (v * 7919 % 3000);
                    cluster.write(cluster.table, key, v, new byte[8]);
                    lastVersion.put(key, v);
                    if (v == 1000) {
                        firstWrites.countDown();
                    }
                }
            } catch (Throwable t) {
                writerFailure.set(t);
                firstWrites.countDown();
            }
        }, "writer");
        writer.start();
        firstWrites.await();

        int migrations = 0;
        while (writer.isAlive() || migrations < 3) {
            int slot = migrations % SimulatedCluster.SLOTS;
            List<String> candidates = cluster.table.candidateIds(slot);
            String source = candidates.get(0);
            String target = cluster.outsider(slot, migrations);
            String id = "m" + migrations;
            cluster.send(COPY, id, slot, source, target, target, 0, 1, StepResult.PROGRESS);
            while (cluster.reportCopy(target, id) != CopyProgress.Status.DONE) {
                Thread.onSpinWait();
            }
            cluster.send(PREPARE, id, slot, source, target, target, 0, 1, StepResult.DONE);
            cluster.send(PREPARE, id, slot, source, target, source, 0, 1, StepResult.DONE);
            SlotTable before = cluster.table;
            cluster.table = before.apply(before.replacement(slot, source, target));
            cluster.send(COMMIT, id, slot, source, target, target, 0, 1, StepResult.DONE);
            cluster.send(COMMIT, id, slot, source, target, source, 0, 1, StepResult.DONE);
            cluster.send(CLEANUP, id, slot, source, target, source, 0, 2, StepResult.DONE);
            migrations++;
        }
        writer.join();

        assertThat(writerFailure.get()).isNull();
        assertThat(lastVersion).isNotEmpty();
        lastVersion.forEach((key, v) ->
                assertThat(cluster.read(key).map(Versioned::version)).as("key %s", key).contains(v));
    }
}
