package io.skewguard.testkit;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * An application under test running as a JVM of its own, the way a deployment runs it: its
 * {@code main} class on this test's class path, its arguments (typically {@code --config FILE}),
 * its whole output (stdout and stderr) in one file.
 *
 * <p>The child logs at INFO, Kafka's clients included (the {@value #LOG_CONFIG} configuration of
 * this jar instead of the WARN-level {@code log4j2-test.xml}), so that a test reading
 * {@link #output()} sees every line an operator would see: the start-up settings, every Kafka
 * client's configuration dump, the shutdown. A test can so check that no secret reaches the log.
 * Lines are {@code HH:mm:ss.SSS LEVEL [thread] logger - message}.
 *
 * <p>{@link #stop(Duration)} sends SIGTERM, as a container runtime or systemd does, and returns the
 * exit code; {@link #kill(Duration)} sends SIGKILL, as a crash would (no shutdown hook runs);
 * {@link #close()} kills what is still running (for a test that failed half-way), and so does the
 * end of the test's JVM, so that no child outlives a build stopped half-way.
 *
 * <p>{@link #freeze()} sends SIGSTOP and {@link #thaw()} SIGCONT: every thread of the JVM stops at
 * once, wherever it is, and goes on where it stopped. A test freezes a process to look at what it
 * has done so far (its files, its records, its consumer group's offsets) while it cannot do more, and
 * then kills it at exactly that point or lets it go on; no hook inside the application is needed.
 */
public final class AppProcess implements AutoCloseable {

    /** The child's logging configuration, a resource of this jar. */
    public static final String LOG_CONFIG = "io/skewguard/testkit/app-process-log4j2.xml";

    private static final Duration POLL = Duration.ofMillis(200);

    private final String name;
    private final Process process;
    private final Path output;

    private AppProcess(String name, Process process, Path output) {
        this.name = name;
        this.process = process;
        this.output = output;
        this.orphanGuard = new Thread(process::destroyForcibly, "app-process-" + process.pid() + "-orphan-guard");
    }

    /** Kills the child when the test's JVM ends before the test closed it (a build stopped half-way). */
    private final Thread orphanGuard;

    /**
     * Starts {@code mainClass} in a new JVM (heap at most 256 MB) with {@code args}, its output going
     * to {@code output} (replaced).
     */
    public static AppProcess start(Class<?> mainClass, Path output, String... args) {
        return start(mainClass, output, List.of(), args);
    }

    /**
     * As {@link #start(Class, Path, String...)}, with {@code jvmOptions} after the default ones (so
     * that they win), e.g. {@code -XX:TieredStopAtLevel=1} for a child that should start fast and
     * leave the cores to the others.
     */
    public static AppProcess start(Class<?> mainClass, Path output, List<String> jvmOptions, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-Dlog4j2.configurationFile=" + LOG_CONFIG));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                mainClass.getName()));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
            AppProcess app = new AppProcess(mainClass.getSimpleName(), process, output);
            Runtime.getRuntime().addShutdownHook(app.orphanGuard);
            return app;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + mainClass.getName(), e);
        }
    }

    /** A port free on 127.0.0.1 just now, e.g. for the application's {@code health-port}. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }

    /**
     * Waits until {@code GET http://127.0.0.1:healthPort/ready} answers 200.
     *
     * @throws IllegalStateException if the process ends first or {@code timeout} passes (the
     *                               message holds the output so far)
     */
    public void awaitReady(int healthPort, Duration timeout) throws InterruptedException {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + healthPort + "/ready"))
                .timeout(Duration.ofSeconds(5)).build();
        await("it was ready", () -> {
            try {
                return http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
            } catch (IOException notListeningYet) {
                return false; // the JVM is still starting
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false; // Thread.sleep in await throws
            }
        }, timeout);
    }

    /**
     * Waits until {@code condition} holds while the process runs, testing it every 200 ms: for what
     * the application shows other than readiness (a line of its output, a file it writes, a record
     * it sends).
     *
     * @param what the condition in words, for the failure message ("the load has written")
     * @throws IllegalStateException if the process ends first or {@code timeout} passes (the
     *                               message names {@code what} and holds the output so far)
     */
    public void await(String what, BooleanSupplier condition, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " ended with exit code " + process.exitValue()
                        + " before " + what + "; its output:\n" + output());
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(name + ": timed out after " + timeout + " waiting until " + what
                        + "; its output:\n" + output());
            }
            Thread.sleep(POLL.toMillis());
        }
    }

    /**
     * Waits until the process ends by itself; its exit code.
     *
     * @throws IllegalStateException if it still runs after {@code timeout}
     */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException(name + " still runs after " + timeout + "; its output:\n" + output());
        }
        return process.exitValue();
    }

    /**
     * Sends SIGTERM and waits for the process to end; its exit code.
     *
     * @throws IllegalStateException if it still runs after {@code timeout}
     */
    public int stop(Duration timeout) throws InterruptedException {
        process.destroy();
        return awaitExit(timeout);
    }

    /**
     * Sends SIGKILL, as a crash or the kernel's OOM killer would: no shutdown hook runs, nothing is
     * flushed or closed. Waits for the process to end; its exit code (137 on Linux).
     *
     * @throws IllegalStateException if it still runs after {@code timeout}
     */
    public int kill(Duration timeout) throws InterruptedException {
        process.destroyForcibly();
        return awaitExit(timeout);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The operating system's id of the process. */
    public long pid() {
        return process.pid();
    }

    /**
     * Stops every thread of the process where it is (SIGSTOP) and returns once the kernel says it is
     * stopped. What the process sent before stays sent; a request on its way to a server may still
     * arrive there. {@link #kill} works on a frozen process; {@link #thaw} lets it go on.
     *
     * @throws IllegalStateException if the process has ended or does not stop within 5 s
     */
    public void freeze() throws InterruptedException {
        signal("STOP");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!"T".equals(processState())) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException(name + " did not stop on SIGSTOP (alive: " + process.isAlive() + ")");
            }
            Thread.sleep(1);
        }
    }

    /** Lets a {@link #freeze frozen} process go on (SIGCONT); nothing happens to a running one. */
    public void thaw() throws InterruptedException {
        signal("CONT");
    }

    private void signal(String signal) throws InterruptedException {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " has ended (exit code " + process.exitValue() + "); cannot send SIG" + signal);
        }
        Signals.send(signal, process.pid());
    }

    /**
     * Sends signals through one shell kept for the whole JVM, whose {@code kill} is a builtin: no process
     * is started per signal, so a freeze and a thaw take well under a millisecond instead of the few
     * milliseconds of starting {@code kill} (a trial that freezes a process again and again to look at it
     * leaves it running for most of the time that way).
     */
    private static final class Signals {

        private static final String DONE = "@@skewguard-signal-done ";

        private static Process shell;
        private static BufferedWriter commands;
        private static BufferedReader answers;

        static synchronized void send(String signal, long pid) {
            try {
                if (shell == null || !shell.isAlive()) {
                    shell = new ProcessBuilder("sh").redirectErrorStream(true).start();
                    commands = new BufferedWriter(new OutputStreamWriter(shell.getOutputStream(),
                            StandardCharsets.UTF_8));
                    answers = new BufferedReader(new InputStreamReader(shell.getInputStream(),
                            StandardCharsets.UTF_8));
                }
                commands.write("kill -" + signal + " " + pid + "; echo \"" + DONE + "$?\"\n");
                commands.flush();
                StringBuilder said = new StringBuilder();
                String line;
                while ((line = answers.readLine()) != null && !line.startsWith(DONE)) {
                    said.append(line).append(' ');
                }
                if (line == null) {
                    shell = null;
                    throw new IllegalStateException("kill -" + signal + " " + pid + ": the signalling shell ended: "
                            + said.toString().trim());
                }
                if (!line.equals(DONE + "0")) {
                    throw new IllegalStateException("kill -" + signal + " " + pid + " failed: " + said.toString().trim());
                }
            } catch (IOException e) {
                shell = null;
                throw new UncheckedIOException("cannot send SIG" + signal + " to " + pid, e);
            }
        }
    }

    /** The state letter of /proc/PID/stat (R, S, T, ...), or "" when it cannot be read. */
    private String processState() {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
            int afterName = stat.lastIndexOf(')');
            return afterName < 0 ? "" : stat.substring(afterName + 2, afterName + 3);
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** Everything the process wrote so far, stdout and stderr interleaved. */
    public String output() {
        try {
            return Files.readString(output);
        } catch (IOException e) {
            return "(cannot read " + output + ": " + e.getMessage() + ")";
        }
    }

    /** Kills the process if it still runs. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(orphanGuard);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ", output in " + output + ")";
    }
}
