package io.skewguard.sim.demo;

import static org.assertj.core.api.Assertions.assertThat;

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
 * {@code skewguard demo} end to end on the embedded stack: a broker in this JVM, the three apps, the
 * simulated cluster; a short scenario must change at least one weight, commit at least one
 * migration, leave every key readable, and close leaving no non-daemon thread, no listening port and
 * no temporary directory.
 */
class DemoIT {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theEmbeddedStackRunsTheWholeLoopAndLeavesNothingBehind(@TempDir Path reportDir) throws Exception {
        Set<String> threadsBefore = DemoAssertions.nonDaemonThreads();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        DemoCommand demo = new DemoCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        int exit = new CommandLine(demo).execute("--scenario", "demo-quick", "--speed", "160", "--writes-per-step", "300",
                "--report", reportDir.toString());

        String stdout = out.toString(StandardCharsets.UTF_8);
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertThat(exit).as("exit code; stderr:%n%s", stderr).isZero();
        DemoOutcome outcome = demo.lastOutcome();
        DemoAssertions.assertLoopRan(outcome);

        assertThat(stderr).as("progress lines").contains("heat Gini").contains("capacity CV").contains("weights changed");
        assertThat(stdout).as("the table next to the paper's figures")
                .contains("paper").contains("skewguard on Kafka").contains("keys unreadable / written")
                .contains("0 / " + outcome.keysWritten());
        assertThat(stdout).as("the dashboard's URL").containsPattern("demo: dashboard at http://127\\.0\\.0\\.1:\\d+/");
        assertThat(reportDir.resolve("report.html")).exists();
        assertThat(Files.readString(reportDir.resolve("summary.json"))).contains("\"keysUnreadable\" : 0");

        EmbeddedStack stack = demo.current().stack();
        assertThat(DemoAssertions.leftoverThreads(threadsBefore)).as("non-daemon threads left").isEmpty();
        DemoAssertions.assertPortClosed(stack.bootstrapServers());
        DemoAssertions.assertPortClosed(stdout.replaceFirst("(?s).*demo: dashboard at http://([0-9.:]+)/.*", "$1"));
        DemoAssertions.assertGone(stack.workDir());
        DemoAssertions.assertGone(stack.brokerDataDir());
    }
}
