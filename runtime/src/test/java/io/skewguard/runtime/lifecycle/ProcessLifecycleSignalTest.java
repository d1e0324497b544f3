package io.skewguard.runtime.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lifecycle with its JVM shutdown hook, in a child JVM running {@link SignalledProcess}. */
class ProcessLifecycleSignalTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @TempDir
    Path workDir;

    private Path outputFile;
    private Process child;

    @AfterEach
    void killChild() {
        if (child != null && child.isAlive()) {
            child.destroyForcibly();
        }
    }

    @Test
    void sigtermClosesTheServicesAndTheProcessExitsZero() throws Exception {
        start("until-signal");
        awaitLine("signalled ready");

        child.destroy(); // SIGTERM

        assertThat(child.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("the child exited").isTrue();
        assertThat(child.exitValue()).as("exit code; output:%n%s", String.join("\n", output())).isEqualTo(ExitCode.OK);
        awaitLine("signalled stopped (exit code 0)");
        assertThat(indexOf("echo service closed")).isGreaterThan(indexOf("signalled ready"))
                .isLessThan(indexOf("signalled stopped (exit code 0)"));
    }

    @Test
    void aProcessEndingByItselfIsNotHeldByItsShutdownHookAndExitsOne() throws Exception {
        start("fail-when-ready");

        assertThat(child.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("the child exited").isTrue();
        assertThat(child.exitValue()).as("exit code; output:%n%s", String.join("\n", output()))
                .isEqualTo(ExitCode.FAILED);
        awaitLine("signalled stopped (exit code 1)");
        assertThat(indexOf("echo service closed")).isPositive();
    }

    /** The child writes to a file, not a pipe: a pipe's reader can lose the last lines when the child exits. */
    private void start(String mode) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        outputFile = workDir.resolve("child-" + mode + ".out");
        // as a SkewGuard main does: Log4j's own hook would stop logging while the services still close
        child = new ProcessBuilder(java, "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dlog4j2.shutdownHookEnabled=false",
                "-cp", System.getProperty("java.class.path"), SignalledProcess.class.getName(), mode)
                .redirectErrorStream(true)
                .redirectOutput(outputFile.toFile())
                .start();
    }

    private void awaitLine(String ending) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (indexOf(ending) < 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no line ending with \"" + ending + "\" within " + DEADLINE
                        + "; output:\n" + String.join("\n", output()));
            }
            Thread.sleep(20);
        }
    }

    private List<String> output() {
        try {
            return Files.readAllLines(outputFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the child's output " + outputFile, e);
        }
    }

    private int indexOf(String ending) {
        List<String> lines = output();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).endsWith(ending)) {
                return i;
            }
        }
        return -1;
    }
}
