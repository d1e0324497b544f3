package io.skewguard.sim.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.SlotAssignment;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code skewguard demo --scenario membership-quick} end to end on the embedded stack: node n11 joins
 * with an empty store, the operator's drain of n3 goes to the membership topic, and the real migrator
 * carries both out: n11 ends up holding data, n3 holds no shard and is in no candidate set, the
 * migrator recorded n3 as DRAINED, and every key written is readable through the final slot table.
 */
class DemoMembershipIT {

    private static final String JOINED = "n11";
    private static final String DRAINED = "n3";

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aJoinedNodeIsFilledAndADrainedNodeIsEmptiedWithEveryKeyReadable(@TempDir Path reportDir) throws Exception {
        Set<String> threadsBefore = DemoAssertions.nonDaemonThreads();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        DemoCommand demo = new DemoCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        int exit = new CommandLine(demo).execute("--scenario", "membership-quick", "--speed", "120", "--writes-per-step", "300",
                "--report", reportDir.toString());

        String stdout = out.toString(StandardCharsets.UTF_8);
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertThat(exit).as("exit code; stderr:%n%s%nstdout:%n%s", stderr, stdout).isZero();
        DemoOutcome outcome = demo.lastOutcome();
        assertThat(outcome.completed()).as("ran to the end").isTrue();
        assertThat(outcome.played()).as("the scenario's events, played")
                .anySatisfy(line -> assertThat(line).contains(JOINED + " started"))
                .anySatisfy(line -> assertThat(line).contains("drain of " + DRAINED + " requested"));

        // the operator's record, and the migrator's answers on the membership topic
        assertThat(outcome.membership()).as("membership records:%n%s%nstdout:%n%s%nlast progress lines:%n%s",
                        String.join("\n", DemoReport.membershipLines(outcome)), stdout, lastLines(stderr, 3))
                .anySatisfy(c -> {
                    assertThat(c.node()).isEqualTo(DRAINED);
                    assertThat(c.state()).isEqualTo(MembershipState.DRAINING);
                    assertThat(c.source()).isEqualTo("operator");
                    assertThat(c.reason()).isEqualTo(DemoOperator.DRAIN_REASON);
                })
                .anySatisfy(c -> {
                    assertThat(c.node()).isEqualTo(JOINED);
                    assertThat(c.state()).isEqualTo(MembershipState.ACTIVE);
                    assertThat(c.source()).isEqualTo("migrator");
                })
                .anySatisfy(c -> {
                    assertThat(c.node()).isEqualTo(DRAINED);
                    assertThat(c.state()).isEqualTo(MembershipState.DRAINED);
                    assertThat(c.source()).isEqualTo("migrator");
                    assertThat(c.reason()).startsWith("drained");
                });

        // the joined node was filled by migrations; the drained node is empty and in no candidate set
        assertThat(outcome.storedBytes().get(JOINED)).as("bytes on the joined node").isPositive();
        assertThat(outcome.slotTable()).as("the migrator's slot table").isNotEmpty();
        assertThat(outcome.slotTable().values()).as("candidate sets naming the joined node")
                .anySatisfy(row -> assertThat(row.getCandidates()).contains(JOINED));
        for (SlotAssignment row : outcome.slotTable().values()) {
            assertThat(row.getCandidates()).as("candidates of slot %d", row.getSlot()).doesNotContain(DRAINED);
        }
        assertThat(outcome.shardsHeld().get(DRAINED)).as("shards left on the drained node").isZero();
        assertThat(outcome.keysUnreadable()).as("unreadable keys, e.g. %s", outcome.unreadableExamples()).isZero();

        // what people see: the progress line, stdout and the report
        assertThat(stderr).as("progress lines").contains("members 10+1 joined").contains(DRAINED + " drained");
        assertThat(stdout).contains("membership: ").contains(DRAINED + " DRAINED by migrator");
        assertThat(Files.readString(reportDir.resolve("summary.json"))).contains("\"membership\"").contains("\"DRAINED\"")
                .contains("\"keysUnreadable\" : 0");
        assertThat(Files.readString(reportDir.resolve("report.html"))).contains("<h2>Membership</h2>")
                .contains(DemoOperator.DRAIN_REASON);

        EmbeddedStack stack = demo.current().stack();
        assertThat(DemoAssertions.leftoverThreads(threadsBefore)).as("non-daemon threads left").isEmpty();
        DemoAssertions.assertPortClosed(stack.bootstrapServers());
        DemoAssertions.assertGone(stack.workDir());
        DemoAssertions.assertGone(stack.brokerDataDir());
    }

    private static String lastLines(String text, int n) {
        String[] lines = text.split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - n), lines.length));
    }
}
