package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.SkewReport;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.RegistryOverHttp;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code detector} command as its own JVM, the way it runs in production: started with
 * {@code --config FILE} against a real broker (and a registry over HTTP), it reports the skew of
 * the events produced and answers its readiness endpoint, and on SIGTERM it stops in order, leaves
 * its consumer groups and exits 0.
 */
class DetectorProcessIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String NAME = "process";
    private static final String[] NODES = {"n1", "n2", "n3", "n4"};

    @TempDir
    Path dir;

    private DetectorItRig rig;
    private RegistryOverHttp registry;
    private Process detector;
    private int healthPort;

    @BeforeEach
    void setUp() throws IOException {
        rig = new DetectorItRig(KAFKA.broker(), NAME, 3); // the input and output topics, the producers
        registry = RegistryOverHttp.serve(NAME); // the rig's serdes use mock://NAME, the process this
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            healthPort = free.getLocalPort();
        }
    }

    @AfterEach
    void tearDown() throws IOException {
        if (detector != null && detector.isAlive()) {
            detector.destroyForcibly();
        }
        registry.close();
        rig.close();
    }

    private Path config() throws IOException {
        Path file = dir.resolve("detector.properties");
        Files.writeString(file, String.join("\n",
                "bootstrap.servers=" + KAFKA.bootstrapServers(),
                "schema.registry.url=" + registry.url(),
                "application.id=" + NAME,
                "topic-prefix=" + rig.topics.prefix(),
                "state.dir=" + dir.resolve("state"),
                "tick=1s",
                "window=4s",
                "grace=2s",
                "cooldown=6s",
                "flush-interval=200ms",
                "commit-interval=300ms",
                "session.timeout.ms=6000",
                "heartbeat.interval.ms=1500",
                "health-port=" + healthPort,
                // the rig made the detector's own topics; the app makes the others at start
                "create-topics=true",
                ""));
        return file;
    }

    private Process startDetector(Path config, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                DetectorApp.class.getName(), "--config", config.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    private static String read(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    /** The status of GET /ready, or -1 while nothing answers. */
    private int readiness() throws InterruptedException {
        try {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + healthPort + "/ready"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        }
    }

    @Test
    void theDetectorProcessGetsReadyReportsSkewAndOnSigtermLeavesItsGroupsAndExitsZero() throws Exception {
        Path log = dir.resolve("detector.log");
        detector = startDetector(config(), log);

        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (readiness() != 200) {
            assertThat(detector.isAlive()).as(() -> "detector still running; its output:\n" + read(log)).isTrue();
            assertThat(System.nanoTime()).as(() -> "ready within 90 s; its output:\n" + read(log)).isLessThan(deadline);
            Thread.sleep(100);
        }

        rig.produceSkew(4_000, NODES, false, true);
        assertThat(detector.isAlive()).as(() -> "detector still running; its output:\n" + read(log)).isTrue();
        List<SkewReport> reports = rig.reportsUntil(rig.t0, Duration.ofSeconds(90));
        assertThat(reports).as(() -> "reports; the detector's output:\n" + read(log)).isNotEmpty();
        assertThat(reports.get(reports.size() - 1).getCluster()).isEqualTo("c1");

        detector.destroy(); // SIGTERM
        boolean exited = detector.waitFor(90, TimeUnit.SECONDS);
        assertThat(exited).as(() -> "exited after SIGTERM; its output:\n" + read(log)).isTrue();
        assertThat(detector.exitValue()).as(() -> "exit code after SIGTERM; its output:\n" + read(log)).isZero();

        Map<String, ConsumerGroupDescription> groups = KAFKA.broker().adminClient()
                .describeConsumerGroups(List.of(NAME, NAME + "-ingest")).all().get(30, TimeUnit.SECONDS);
        assertThat(groups.get(NAME).members()).as("members of the Kafka Streams group %s", NAME).isEmpty();
        assertThat(groups.get(NAME + "-ingest").members()).as("members of the ingest group").isEmpty();
        assertThat(read(log)).contains("detector: " + NAME + " starting against");
    }

}
