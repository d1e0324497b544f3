package io.skewguard.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** {@code skewguard agent} as a child JVM of the test, with its output in a log file. */
final class AgentProcess implements AutoCloseable {

    static final Duration WAIT = Duration.ofSeconds(90);

    private final Process process;
    private final Path log;

    private AgentProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Writes {@code settings} to {@code config} and starts {@code AgentCommand --config config}, logging to {@code log}. */
    static AgentProcess start(Map<String, String> settings, Path config, Path log) throws IOException {
        Properties p = new Properties();
        p.putAll(settings);
        try (var out = Files.newBufferedWriter(config)) {
            p.store(out, "skewguard agent, written by the test");
        }
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process process = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", classpath, AgentCommand.class.getName(), "--config", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        return new AgentProcess(process, log);
    }

    /** Everything the process has written so far. */
    String output() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits until {@code condition} holds; fails (with the output) if the process ends first or time runs out. */
    void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (!process.isAlive()) {
                throw new AssertionError("the agent ended (exit " + process.exitValue() + ") before " + what + "; output:\n" + output());
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what + "; output:\n" + output());
            }
            Thread.sleep(50);
        }
    }

    /** SIGTERM, then the exit code. */
    int terminate() throws InterruptedException {
        process.destroy();
        return exitCode();
    }

    /** SIGKILL: no shutdown hook runs, nothing is flushed or closed. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the agent did not die of SIGKILL");
        }
    }

    int exitCode() throws InterruptedException {
        if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("the agent did not exit; output:\n" + output());
        }
        return process.exitValue();
    }

    /**
     * The weight epoch a running agent's state file records, -1 without a file. Read as text, not
     * with {@code StateFile.load}, which would delete the temporary file of a save under way.
     */
    static long appliedWeightEpoch(Path stateFile) {
        try {
            if (!Files.exists(stateFile)) {
                return -1;
            }
            for (String line : Files.readAllLines(stateFile)) {
                if (line.startsWith("weight ")) {
                    return Long.parseLong(line.split(" ")[1]);
                }
            }
            return -1;
        } catch (IOException e) {
            return -1; // replaced under our feet: read again on the next poll
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly();
            process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);
        }
    }
}
