package io.skewguard.benchmarks.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class StoreUnderMigrationTest {

    /** A short run on 4 stores with {@code extra} options: what it printed, having asserted that it exited 0. */
    private static String shortRun(String... extra) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream out = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            String[] args = Stream.concat(Stream.of("--nodes", "4", "--slots", "32", "--keys",
                    "2000", "--writes-per-second", "200", "--phase-seconds", "1", "--rounds", "1"), Arrays.stream(extra))
                    .toArray(String[]::new);
            exit = new CommandLine(new StoreUnderMigration()).execute(args);
        } finally {
            System.setOut(out);
        }
        String printed = captured.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(printed).isZero();
        return printed;
    }

    @Test
    void aShortRunMovesSlotsBetweenRealStoresAndPrintsBothLatenciesTheRatioAndTheSwitchTime() {
        String printed = shortRun();

        assertThat(printed).containsPattern("[1-9][0-9]* slots moved in [1-9][0-9]* batches")
                .contains("| quiet (baseline) |").contains("| migrating |")
                .contains("| … of them, into a node receiving a copy |").contains("| … into a node giving one |")
                .contains("| … into a node in no move |")
                .contains("write latency p99, migrating ÷ quiet:")
                .contains("switch time, first PREPARE → last COMMIT of a batch (ms): p50")
                .contains("1-minute load average")
                .contains("moving the colder 16 of 32 slots, coldest first:")
                .contains("warm-up: quiet").contains("warm-up: migrating")
                .containsPattern("warm-up \\(not counted\\): quiet p99 [0-9]+ µs, migrating p99 [0-9]+ µs");
        assertThat(printed.indexOf("warm-up: migrating")).isLessThan(printed.indexOf("round 1: quiet"));
    }

    @Test
    void theOtherSlotsWritesAreSplitByWhatTheirNodeDoesAndTheSplitAddsUp() {
        String printed = shortRun();

        long others = writesIn(printed, "migrating: writes of every other slot");
        long receiving = writesIn(printed, "… of them, into a node receiving a copy");
        long giving = writesIn(printed, "… into a node giving one");
        long none = writesIn(printed, "… into a node in no move");
        assertThat(receiving).as(printed).isPositive();
        assertThat(giving).as(printed).isPositive();
        assertThat(receiving + giving + none).as(printed).isEqualTo(others);
    }

    /** The writes column of the table row named {@code name}. */
    private static long writesIn(String printed, String name) {
        String prefix = "| " + name + " | ";
        return printed.lines().filter(l -> l.startsWith(prefix)).findFirst()
                .map(l -> Long.parseLong(l.substring(prefix.length()).split(" \\| ")[0].replace(",", "")))
                .orElseThrow(() -> new AssertionError("no row " + name + " in\n" + printed));
    }

    @Test
    void withoutTheMigratingWarmUpOnlyAQuietPhaseRunsBeforeTheRounds() {
        String printed = shortRun("--no-warmup-migrating", "--cold-share", "1");

        assertThat(printed).contains("warm-up: quiet").doesNotContain("warm-up: migrating")
                .contains("no migrating phase (--no-warmup-migrating)")
                .contains("moving the colder 32 of 32 slots, coldest first: 100.0 % of the writes")
                .containsPattern("[1-9][0-9]* slots moved in [1-9][0-9]* batches");
    }

    @Test
    void aControlRunMovesNothingAndSaysItsRatioIsQuietOverQuiet() {
        String printed = shortRun("--control");

        assertThat(printed).contains("control run (--control)")
                .contains("round 1: migrating (control: nothing moves)")
                .contains("CONTROL RUN: nothing moved")
                .contains("0 slots moved in 0 batches, 0 bytes copied")
                .doesNotContain("moving the colder");
    }

    @Test
    void anInterruptedRunRemovesItsStores(@TempDir Path tmp) throws Exception {
        Process run = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + tmp, "-cp", System.getProperty("java.class.path"), StoreBenchChild.class.getName(),
                "--nodes", "4", "--slots", "32", "--keys", "2000", "--writes-per-second", "200",
                "--phase-seconds", "600", "--rounds", "1")
                .redirectErrorStream(true).start();
        List<String> printed = new ArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(run.getInputStream(), StandardCharsets.UTF_8));
            for (String line; (line = out.readLine()) != null && !line.equals("warm-up: quiet"); ) {
                printed.add(line);
            }
            assertThat(storesIn(tmp)).as("the stores while it runs; it printed %s", printed).hasSize(1);

            run.destroy(); // SIGTERM, as Ctrl-C or a service stop would send

            assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(storesIn(tmp)).as("what the interrupted run left; it printed %s", printed).isEmpty();
        } finally {
            run.destroyForcibly();
        }
    }

    private static List<Path> storesIn(Path tmp) throws IOException {
        try (Stream<Path> in = Files.list(tmp)) {
            return in.filter(p -> p.getFileName().toString().startsWith("skewguard-store-bench")).toList();
        }
    }

    /** What the command printed to standard error when it refused {@code args}, having asserted that it did. */
    private static String refusal(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli = new CommandLine(new StoreUnderMigration());
        cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));
        assertThat(cli.execute(args)).isNotZero();
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void badOptionsAreRefusedWithTheirNames() {
        assertThat(refusal("--nodes", "1")).contains("--nodes");
    }

    @Test
    void aColdShareOutsideZeroToOneIsRefused() {
        assertThat(refusal("--cold-share", "0")).contains("--cold-share must be in (0, 1], was 0.0");
    }
}
