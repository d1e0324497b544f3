package io.skewguard.agent;

import static io.skewguard.schemas.MigrationPhase.ABORT;
import static io.skewguard.schemas.MigrationPhase.CLEANUP;
import static io.skewguard.schemas.MigrationPhase.COMMIT;
import static io.skewguard.schemas.MigrationPhase.COPY;
import static io.skewguard.schemas.MigrationPhase.PREPARE;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.store.CopyProgress;
import io.skewguard.agent.store.Versioned;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.StepResult;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * No key is lost across copy, switch, abort and cleanup: keys are written all along while
 * migrations run through the agents' appliers in the order the migrator sends the steps (COPY →
 * PREPARE → COMMIT → CLEANUP, or ABORT during the copy or after PREPARE), every step possibly
 * delivered twice, and writers that still use the slot table from before a switch. Afterwards every
 * key written reads back, through the final slot table, with the last version written, and no node
 * outside a slot's candidate set holds any of that slot's data.
 */
class NoKeyLostProperties {

    enum Outcome { COMMIT, ABORT_WHILE_COPYING, ABORT_AFTER_PREPARE }

    private static final String[] NODES = {"n0", "n1", "n2", "n3", "n4", "n5"};

    @Property(tries = 60)
    void everyKeyWrittenIsReadableAtTheFinalEpochAndNoCleanedSourceKeepsItsShard(
            @ForAll long seed, @ForAll @IntRange(min = 1, max = 8) int migrations) {
        Random random = new Random(seed);
        SimulatedCluster cluster = new SimulatedCluster(NODES);
        Map<String, Long> lastVersion = new HashMap<>();
        long[] version = {0};
        Runnable writes = () -> {
            for (int i = random.nextInt(30); i > 0; i--) {
                String key = "key-" + random.nextInt(400);
                version[0]++;
                cluster.write(cluster.table, key, version[0], new byte[1 + random.nextInt(20)]);
                lastVersion.put(key, version[0]);
            }
        };
        writes.run();
        for (int m = 0; m < migrations; m++) {
            int slot = random.nextInt(SimulatedCluster.SLOTS);
            List<String> candidates = cluster.table.candidateIds(slot);
            String source = candidates.get(random.nextInt(candidates.size()));
            String target = cluster.outsider(slot, random.nextInt());
            Outcome outcome = Outcome.values()[random.nextInt(Outcome.values().length)];
            String id = "m" + m;
            int dup = 1 + random.nextInt(2);
            long rate = 50 + random.nextInt(500);

            cluster.send(COPY, id, slot, source, target, target, rate, dup, StepResult.PROGRESS);
            boolean aborted = false;
            while (cluster.reportCopy(target, id) != CopyProgress.Status.DONE) {
                writes.run();
                cluster.clock.addAndGet(100);
                if (outcome == Outcome.ABORT_WHILE_COPYING && random.nextInt(3) == 0) {
                    aborted = true;
                    break;
                }
            }
            writes.run();
            if (!aborted) {
                cluster.send(PREPARE, id, slot, source, target, target, 0, dup, StepResult.DONE);
                writes.run();
                cluster.send(PREPARE, id, slot, source, target, source, 0, dup, StepResult.DONE);
                writes.run();
            }
            if (outcome != Outcome.COMMIT) {
                cluster.send(ABORT, id, slot, source, target, source, 0, dup, StepResult.DONE);
                writes.run();
                cluster.send(ABORT, id, slot, source, target, target, 0, dup, StepResult.DONE);
                writes.run();
                continue;
            }
            SlotTable before = cluster.table;
            cluster.table = before.apply(before.replacement(slot, source, target));
            // commit point: writers learn of the new table one by one; some still write with the old one
            for (int i = 0; i < 20; i++) {
                String key = "key-" + random.nextInt(400);
                version[0]++;
                cluster.write(random.nextBoolean() ? before : cluster.table, key, version[0], new byte[3]);
                lastVersion.put(key, version[0]);
            }
            boolean targetFirst = random.nextBoolean();
            cluster.send(COMMIT, id, slot, source, target, targetFirst ? target : source, 0, dup, StepResult.DONE);
            writes.run();
            cluster.send(COMMIT, id, slot, source, target, targetFirst ? source : target, 0, dup, StepResult.DONE);
            writes.run();
            cluster.send(CLEANUP, id, slot, source, target, source, 0, dup, StepResult.DONE);
            assertThat(cluster.stores.get(source).holdsSlot(slot)).as("source %s still holds slot %d after cleanup", source, slot).isFalse();
            writes.run();
        }

        for (Map.Entry<String, Long> e : lastVersion.entrySet()) {
            assertThat(cluster.read(e.getKey()).map(Versioned::version)).as("key %s", e.getKey()).contains(e.getValue());
        }
        for (int slot = 0; slot < SimulatedCluster.SLOTS; slot++) {
            List<String> candidates = cluster.table.candidateIds(slot);
            for (String node : NODES) {
                if (!candidates.contains(node)) {
                    assertThat(cluster.stores.get(node).holdsSlot(slot)).as("%s outside the candidate set holds slot %d", node, slot).isFalse();
                }
            }
        }
    }
}
