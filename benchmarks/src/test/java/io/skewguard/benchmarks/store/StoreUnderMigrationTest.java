package io.skewguard.benchmarks.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
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
                .contains("write latency p99, migrating ÷ quiet:")
                .contains("switch time, first PREPARE → last COMMIT of a batch (ms): p50")
                .contains("1-minute load average")
                .contains("moving the colder 16 of 32 slots, coldest first:")
                .contains("warm-up: quiet").contains("warm-up: migrating")
                .containsPattern("warm-up \\(not counted\\): quiet p99 [0-9]+ µs, migrating p99 [0-9]+ µs");
        assertThat(printed.indexOf("warm-up: migrating")).isLessThan(printed.indexOf("round 1: quiet"));
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
    void badOptionsAreRefusedWithTheirNames() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli = new CommandLine(new StoreUnderMigration());
        cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));

        int exit = cli.execute("--nodes", "1");

        assertThat(exit).isNotZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--nodes");
    }

    @Test
    void aColdShareOutsideZeroToOneIsRefused() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CommandLine cli = new CommandLine(new StoreUnderMigration());
        cli.setErr(new java.io.PrintWriter(err, true, StandardCharsets.UTF_8));

        assertThat(cli.execute("--cold-share", "0")).isNotZero();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--cold-share must be in (0, 1], was 0.0");
    }
}
