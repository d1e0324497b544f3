package io.skewguard.agent.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM killed with SIGKILL in the middle of writes and of a migration loses nothing it
 * acknowledged: reopened, its stores hold every acknowledged key, the copy's progress, the
 * dual-write, and the migration completes.
 */
class RocksDbNodeStoreKillTest {

    private static final int KEYS = 2_000;
    private static final int LATE_ACKS_BEFORE_KILL = 300;

    @TempDir
    Path dir;

    @Test
    void everyAcknowledgedKeyAndTheInFlightMigrationSurviveAKillOfTheProcess() throws Exception {
        Path stdout = dir.resolve("writer.stdout");
        Path stderr = dir.resolve("writer.stderr");
        Process writer = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), KilledStoreWriter.class.getName(),
                dir.resolve("stores").toString(), String.valueOf(KEYS))
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        try {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
            while (acks(stdout).size() < LATE_ACKS_BEFORE_KILL) {
                assertThat(writer.isAlive()).as("the writer is alive; its stderr: %s", Files.readString(stderr)).isTrue();
                assertThat(System.nanoTime()).as("the writer acknowledges %d late keys in time", LATE_ACKS_BEFORE_KILL).isLessThan(deadline);
                Thread.sleep(20);
            }
            writer.destroyForcibly(); // SIGKILL: no shutdown hook, no close
            writer.waitFor();
        } finally {
            writer.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(stdout); // all it printed before it died
        String ready = lines.get(0);
        assertThat(ready).startsWith("READY ");
        List<String> acked = acks(stdout);
        assertThat(acked).hasSizeGreaterThanOrEqualTo(LATE_ACKS_BEFORE_KILL);
        String[] figures = ready.split(" ");
        long copiedBeforeKill = Long.parseLong(figures[1]);
        long total = Long.parseLong(figures[2]);

        AtomicLong clock = new AtomicLong(KilledStoreWriter.CLOCK_AT_READY);
        Map<String, LedgerNodeStore> nodes = new HashMap<>();
        try (RocksDbNodeStore src = RocksDbNodeStore.open(dir.resolve("stores/src"), "src", KilledStoreWriter.SLOTS, clock::get, nodes::get);
             RocksDbNodeStore dst = RocksDbNodeStore.open(dir.resolve("stores/dst"), "dst", KilledStoreWriter.SLOTS, clock::get, nodes::get)) {
            nodes.put("src", src);
            nodes.put("dst", dst);
            for (int i = 0; i < KEYS; i++) {
                assertThat(src.get(KilledStoreWriter.key(i))).as(KilledStoreWriter.key(i)).contains(new Versioned(1, new byte[90]));
            }
            for (String key : acked) {
                assertThat(src.get(key)).as(key).contains(new Versioned(2, new byte[5]));
                if (src.slotOf(key) == KilledStoreWriter.SLOT) {
                    assertThat(dst.get(key)).as("%s, dual-written", key).contains(new Versioned(2, new byte[5]));
                }
            }
            assertThat(src.forwards(KilledStoreWriter.SLOT)).isTrue();
            assertThat(dst.copyProgress("m"))
                    .isEqualTo(new CopyProgress("m", CopyProgress.Status.RUNNING, copiedBeforeKill, total, null));

            clock.set(Long.MAX_VALUE / 2);
            assertThat(dst.copyProgress("m")).isEqualTo(new CopyProgress("m", CopyProgress.Status.DONE, total, total, null));
            for (int i = 0; i < KEYS; i++) {
                String key = KilledStoreWriter.key(i);
                if (src.slotOf(key) == KilledStoreWriter.SLOT) {
                    assertThat(dst.get(key)).as(key).isEqualTo(src.get(key));
                }
            }
            dst.commitTarget("m", KilledStoreWriter.SLOT);
            src.commitSource("m", KilledStoreWriter.SLOT, "dst");
            src.cleanup("m", KilledStoreWriter.SLOT);
            assertThat(src.holdsSlot(KilledStoreWriter.SLOT)).isFalse();
            assertThat(dst.holdsSlot(KilledStoreWriter.SLOT)).isTrue();
        }
    }

    /** The late keys the writer said it wrote (complete lines only: the last one may be cut by the kill). */
    private static List<String> acks(Path stdout) throws IOException {
        List<String> acked = new ArrayList<>();
        for (String line : Files.readAllLines(stdout)) {
            if (line.startsWith("ACK ") && line.endsWith(" .")) {
                acked.add(line.split(" ")[1]);
            }
        }
        return acked;
    }
}
