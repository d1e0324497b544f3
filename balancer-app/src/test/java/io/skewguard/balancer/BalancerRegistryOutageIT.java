package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.runtime.lifecycle.StreamsService;
import io.skewguard.runtime.lifecycle.ThreadReplacementPolicy;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.RegistryOverHttp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The balancer while its schema registry is down: a report whose schema it has not fetched waits
 * (the stream thread stops at it and is replaced after a back-off, not counted as a failure), is
 * not dead-lettered, and its round's weight commands come out once the registry is back.
 */
class BalancerRegistryOutageIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final long T0 = System.currentTimeMillis() / 1000 * 1000;

    private final String scope = "balancer-outage-" + UUID.randomUUID();

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.drop(scope);
    }

    @Test
    void aReportReadWhileTheRegistryIsDownIsProcessedWhenItIsBackAndNothingIsDeadLettered(@TempDir Path stateDir)
            throws Exception {
        EmbeddedKafka broker = KAFKA.broker();
        Topics topics = new Topics("balancer-outage.");
        broker.createTopics(1, topics.reports(), topics.alerts(), topics.weightCommands(), topics.dlq());
        broker.createTopics(1, topics.proposals(), topics.decisions());
        broker.createCompactedTopics(1, topics.nodeWeights(), topics.control());
        Map<String, Object> mine = Map.of("schema.registry.url", "mock://" + scope);
        var reports = SchemaRegistrySerde.of(SkewReport.class, mine, false);
        var alerts = SchemaRegistrySerde.of(SkewAlert.class, mine, false);
        var commands = SchemaRegistrySerde.of(WeightCommand.class, mine, false);

        try (RegistryOverHttp registry = RegistryOverHttp.serve(scope);
             KafkaProducer<String, byte[]> producer = broker.producer(new StringSerializer(), new ByteArraySerializer())) {
            BalancerSettings settings = BalancerSettings.of(Map.of(
                    "bootstrap.servers", broker.bootstrapServers(),
                    "schema.registry.url", registry.url(),
                    "application.id", "balancer-outage-" + UUID.randomUUID(),
                    "topic-prefix", topics.prefix(),
                    "state.dir", stateDir.toString(),
                    "replication-factor", "1"));
            Properties props = settings.streamsProperties();
            // no replacement allowed for failures: an outage must not count as one
            StreamsService service = new StreamsService("balancer-streams", BalancerTopology.build(settings), props,
                    new ThreadReplacementPolicy(0, Duration.ofMinutes(10)), Clock.systemUTC());
            try {
                service.start();
                await(service::ready, "the balancer runs");
                producer.send(new ProducerRecord<>(topics.alerts(), "c1",
                        alerts.serializer().serialize(topics.alerts(), confirmed()))).get();
                // the balancer has fetched no schema yet: the alert or the report meets the outage
                registry.stop();
                producer.send(new ProducerRecord<>(topics.reports(), "c1",
                        reports.serializer().serialize(topics.reports(), report(60_000)))).get();
                await(() -> registry.attemptsWhileStopped() >= 3, "the balancer asked the stopped registry again and again");
                assertThat(service.failure()).isEmpty();

                registry.restart();
                List<ConsumerRecord<String, WeightCommand>> issued = broker.consumeUntil(topics.weightCommands(),
                        new StringDeserializer(), commands.deserializer(), 2, WAIT);
                assertThat(issued).extracting(r -> r.value().getEpoch()).containsOnly(1L);

                // a marker: the one dead letter is this bad report, none came from the outage
                producer.send(new ProducerRecord<>(topics.reports(), "c1", "not avro".getBytes(StandardCharsets.UTF_8))).get();
                List<ConsumerRecord<String, byte[]>> dead = broker.consumeUntil(topics.dlq(), new StringDeserializer(),
                        new ByteArrayDeserializer(), 1, WAIT);
                assertThat(dead).singleElement().satisfies(r ->
                        assertThat(DeadLetter.fromHeaders(r.headers()).reason()).startsWith("undecodable: "));
                assertThat(service.failure()).isEmpty();
            } finally {
                assertThat(service.close(Duration.ofSeconds(30))).isTrue();
            }
        } finally {
            reports.close();
            alerts.close();
            commands.close();
        }
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

    private static SkewAlert confirmed() {
        return SkewAlert.newBuilder()
                .setAlertId("c1/HEAT/CONFIRMED/0").setCluster("c1").setKind(AlertKind.HEAT)
                .setPreviousState(AlertState.OBSERVING).setState(AlertState.CONFIRMED)
                .setValue(0.6).setThreshold(0.4).setSince(Instant.ofEpochMilli(T0)).setEventTime(Instant.ofEpochMilli(T0))
                .build();
    }

    private static SkewReport report(long time) {
        return BalancerHarness.report(new LoadSnapshot("c1", T0 + time, 0.6, List.of(
                new NodeLoad("cold", 200_000, 1e12), new NodeLoad("hot", 800_000, 1e12))));
    }
}
