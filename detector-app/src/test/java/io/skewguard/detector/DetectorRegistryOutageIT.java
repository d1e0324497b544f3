package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.RegistryOverHttp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The detector while its schema registry is down (docs/design.md §5, "A registry outage is not bad
 * input"), on a real broker with an HTTP registry the test stops and restarts. First the ingest loop
 * (stage one) meets the outage at the first write event, whose schema it has not fetched; then, with
 * the inputs' schemas cached, stage one goes on and stage two meets it at the first report it
 * writes. Nothing is dead-lettered, no stage fails, and once the registry is back every report holds
 * exactly the heat of the events produced in its window.
 */
class DetectorRegistryOutageIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String[] NODES = {"n1", "n2", "n3"};

    private final String scope = "detector-outage-" + UUID.randomUUID();
    private DetectorItRig rig;

    @BeforeEach
    void setUp() throws Exception {
        rig = new DetectorItRig(KAFKA.broker(), scope, 1);
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
        MockSchemaRegistry.drop(scope);
    }

    @Test
    void eventsReadWhileTheRegistryIsDownAreAllCountedWhenItIsBackAndNothingIsDeadLettered() throws Exception {
        try (RegistryOverHttp registry = RegistryOverHttp.serve(scope)) {
            // the rig's producers keep using mock://scope; the app reads the same registry over HTTP
            DetectorApp.Running app = rig.start("only", Map.of(DetectorSettings.SCHEMA_REGISTRY_URL, registry.url()));

            // stage one has fetched no schema yet: it waits at the first event
            registry.stop();
            rig.produceSkew(1_500, NODES, true, true);
            awaitAttempts(registry, "stage one asked the stopped registry again and again");
            assertThat(app.ingestMetric("records-ingested-total")).isZero();
            assertThat(app.hasFailed()).isFalse();

            registry.restart();
            await(() -> app.ingestMetric("records-ingested-total") == rig.inputRecords, "stage one took every event");

            // the write and capacity schemas are cached now: stage one goes on without the registry,
            // and stage two meets the outage at the first report it writes (a tick closes once stream
            // time is 2 s, the grace, past it)
            registry.stop();
            rig.produceSkew(4_500, NODES, true, true);
            await(() -> app.ingestMetric("records-ingested-total") == rig.inputRecords,
                    "stage one took every event while the registry is down");
            awaitAttempts(registry, "stage two asked the stopped registry again and again");
            assertThat(app.hasFailed()).isFalse();

            registry.restart();
            long lastTick = rig.t0 + 3_000; // stream time ends near t0 + 6 s; a tick closes 2 s (grace) after it
            List<SkewReport> reports = rig.reportsUntil(lastTick, WAIT);
            rig.assertOnePerTickWithExactHeat(reports);
            assertThat(reports).extracting(r -> r.getWindowEnd().toEpochMilli()).contains(rig.t0 + 1_000, lastTick);

            // a marker: the one dead letter is this bad event, none came from the outages
            try (KafkaProducer<byte[], byte[]> raw = KAFKA.broker().producer(new ByteArraySerializer(), new ByteArraySerializer())) {
                raw.send(new ProducerRecord<>(rig.topics.nodeWrites(), "n1".getBytes(StandardCharsets.UTF_8),
                        "garbage".getBytes(StandardCharsets.UTF_8))).get();
            }
            List<ConsumerRecord<byte[], byte[]>> dead = KAFKA.broker().consumeUntil(rig.topics.dlq(),
                    new ByteArrayDeserializer(), new ByteArrayDeserializer(), 1, WAIT);
            assertThat(dead).singleElement().satisfies(d -> {
                assertThat(d.value()).asString(StandardCharsets.UTF_8).isEqualTo("garbage");
                assertThat(DeadLetter.fromHeaders(d.headers()).reason()).startsWith("undecodable");
            });
            assertThat(app.ingestMetric("dead-letter-total")).isEqualTo(1.0);
            assertThat(app.hasFailed()).isFalse();
        }
    }

    /** Waits until the stopped registry has been asked twice more: asked, and asked again after a back-off. */
    private static void awaitAttempts(RegistryOverHttp registry, String what) throws InterruptedException {
        long before = registry.attemptsWhileStopped();
        await(() -> registry.attemptsWhileStopped() >= before + 2, what);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }
}
