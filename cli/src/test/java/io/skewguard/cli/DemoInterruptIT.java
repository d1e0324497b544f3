package io.skewguard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C: {@code skewguard demo} in its own JVM gets SIGINT while the scenario runs; the shutdown
 * hook closes writers, agents, apps and broker, and the JVM's temporary directory is left empty and
 * the broker's port closed. It runs the real entry point, {@link SkewGuardCli}, as {@code ./skewguard}
 * does, which is why it lives with the command line rather than with the demo.
 */
class DemoInterruptIT {

    private static final Pattern BROKER = Pattern.compile("Kafka on (127\\.0\\.0\\.1:\\d+)");

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void sigintWhileRunningClosesEverythingAndRemovesTheTemporaryFiles(@TempDir Path tmp) throws Exception {
        Path javaTmp = Files.createDirectory(tmp.resolve("java-tmp"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Xmx512m",
                "-Djava.io.tmpdir=" + javaTmp, "-Dlog4j2.configurationFile=log4j2-demo.xml",
                "-cp", System.getProperty("java.class.path"), SkewGuardCli.class.getName(),
                "demo", "--scenario", "demo-quick", "--speed", "60", "--no-report")
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        List<String> lines = new ArrayList<>();
        String broker = null;
        try (BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = err.readLine()) != null) {
                lines.add(line);
                Matcher m = BROKER.matcher(line);
                if (m.find()) {
                    broker = m.group(1);
                }
                if (line.startsWith("t+00:05")) {
                    new ProcessBuilder("kill", "-INT", Long.toString(process.pid())).start().waitFor();
                }
            }
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("exited; stderr:%n%s", String.join("\n", lines)).isTrue();
        assertThat(lines).as("stderr").anyMatch(l -> l.startsWith("t+00:05")).contains("demo: stopped cleanly");
        assertThat(broker).as("broker address on stderr").isNotNull();
        assertPortClosed(broker);
        try (Stream<Path> left = Files.list(javaTmp)) {
            assertThat(left.filter(p -> p.getFileName().toString().startsWith("skewguard")).toList())
                    .as("temporary directories left").isEmpty();
        }
    }

    /** Nothing listens on {@code 127.0.0.1:port} any more. */
    private static void assertPortClosed(String bootstrapServers) {
        int port = Integer.parseInt(bootstrapServers.substring(bootstrapServers.lastIndexOf(':') + 1));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            throw new AssertionError("port " + port + " still accepts connections after the demo closed");
        } catch (ConnectException expected) {
            // refused: nothing listens
        } catch (IOException e) {
            throw new AssertionError("unexpected failure probing port " + port + ": " + e, e);
        }
    }
}
