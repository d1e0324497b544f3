package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.SkewReport;
import io.skewguard.testkit.AppProcess;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.PrometheusScrape;
import io.skewguard.testkit.RegistryOverHttp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code detector} command as its own JVM, the way it runs in production: started with one
 * {@code --config FILE} of standard Kafka keys (a SASL/SCRAM broker) and the detector's own
 * settings (a registry over HTTP that wants basic authentication), it creates the topics it misses
 * ({@code create-topics=true}), answers its readiness endpoint and reports the skew of the events
 * produced; on SIGTERM it stops in order, leaves its consumer groups and exits 0; its whole output
 * holds neither password.
 */
class DetectorProcessIT {

    private static final String USER = "detector";
    private static final String BROKER_SECRET = "detector-broker-s3cret";
    private static final String REGISTRY_SECRET = "detector-registry-s3cret";

    /** One SASL broker for the class; the rig's clients (the kit's helpers) have a user of their own. */
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension(EmbeddedKafka.builder().saslUser(USER, BROKER_SECRET));

    private static final String NAME = "process";
    private static final String[] NODES = {"n1", "n2", "n3", "n4"};
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final Pattern ERROR_LINE = Pattern.compile("(?m)^\\S+ ERROR ");

    @TempDir
    Path dir;

    private DetectorItRig rig;
    private RegistryOverHttp registry;
    private int healthPort;

    @BeforeEach
    void setUp() throws IOException {
        rig = new DetectorItRig(KAFKA.broker(), NAME, 3); // the input and output topics, the producers
        // the rig's serdes use mock://NAME, the process this, with credentials
        registry = RegistryOverHttp.serve(NAME, USER + ":" + REGISTRY_SECRET);
        healthPort = AppProcess.freePort();
    }

    @AfterEach
    void tearDown() throws IOException {
        registry.close();
        rig.close();
    }

    private Path config() throws IOException {
        Path file = KAFKA.broker().writeClientProperties(dir.resolve("detector.properties"), USER);
        Files.writeString(file, String.join("\n",
                "schema.registry.url=" + registry.url(),
                "basic.auth.credentials.source=USER_INFO",
                "basic.auth.user.info=" + USER + ":" + REGISTRY_SECRET,
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
                ""), StandardOpenOption.APPEND);
        return file;
    }

    @Test
    void theDetectorProcessGetsReadyOverSaslReportsSkewAndOnSigtermLeavesItsGroupsExitsZeroAndLogsNoSecret() throws Exception {
        try (AppProcess detector = AppProcess.start(DetectorApp.class, dir.resolve("detector.log"), "--config", config().toString())) {
            detector.awaitReady(healthPort, WAIT);

            rig.produceSkew(4_000, NODES, false, true);
            assertThat(detector.isAlive()).as(() -> "detector still running; its output:\n" + detector.output()).isTrue();
            List<SkewReport> reports = rig.reportsUntil(rig.t0, WAIT);
            assertThat(reports).as(() -> "reports; the detector's output:\n" + detector.output()).isNotEmpty();
            assertThat(reports.get(reports.size() - 1).getCluster()).isEqualTo("c1");

            // what Prometheus sees: every detector series with a value, one dead letter among them
            try (KafkaProducer<String, byte[]> raw = KAFKA.broker().producer(new StringSerializer(), new ByteArraySerializer())) {
                raw.send(new ProducerRecord<>(rig.topics.nodeWrites(), "n1", new byte[] {1, 2, 3})).get();
            }
            List<String> series = List.of(
                    "skewguard_heat_gini{cluster=\"c1\"}",
                    "skewguard_capacity_cv{cluster=\"c1\"}",
                    "skewguard_alert_state{cluster=\"c1\",kind=\"HEAT\",state=\"NORMAL\"}",
                    "skewguard_alert_state{cluster=\"c1\",kind=\"CAPACITY\",state=\"CONFIRMED\"}",
                    "skewguard_alert_transitions_total{cluster=\"c1\",kind=\"HEAT\"}",
                    "skewguard_dead_letters_total{reason=\"undecodable\"}",
                    "skewguard_input_lag_records{consumer=\"stage-two\"}",
                    "kafka_stream_thread_process_total");
            detector.await("a value for each of " + series, () -> PrometheusScrape.of(healthPort).missing(series).isEmpty(), WAIT);
            assertThat(PrometheusScrape.of(healthPort).value("skewguard_heat_gini", "cluster", "c1").orElseThrow())
                    .as("heat Gini with one node taking 30x the others").isGreaterThan(0.5);

            int exitCode = detector.stop(WAIT); // SIGTERM
            String output = detector.output();
            assertThat(exitCode).as("exit code after SIGTERM; its output:\n%s", output).isZero();
            EmbeddedKafka broker = KAFKA.broker();
            assertThat(broker.groupMembers(NAME)).as("members of the Kafka Streams group %s", NAME).isZero();
            assertThat(broker.groupMembers(NAME + "-ingest")).as("members of the ingest group").isZero();
            assertThat(registry.refusedRequests()).as("registry requests without the configured credentials").isZero();
            // the lines that would carry the secrets are there, with the secrets hidden
            assertThat(output).contains("detector: " + NAME + " starting against", "detector settings {",
                    "sasl.jaas.config=[hidden]", "basic.auth.user.info=[hidden]", "sasl.jaas.config = [hidden]",
                    "detector stopped (exit code 0)");
            assertThat(output).doesNotContain(BROKER_SECRET).doesNotContain(REGISTRY_SECRET);
            assertThat(ERROR_LINE.matcher(output).find()).as("an ERROR line in the output:\n%s", output).isFalse();
        }
    }
}
