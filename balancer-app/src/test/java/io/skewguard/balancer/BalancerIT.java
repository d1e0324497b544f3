package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.balancer.policy.ControllerState;
import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.balancer.policy.Round;
import io.skewguard.balancer.policy.WeightController;
import io.skewguard.balancer.policy.WeightPolicy;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The balancer on a real broker with exactly_once_v2: a crash in the middle of a transaction and a
 * restart from the changelog neither repeat an epoch with different content nor skip one.
 */
class BalancerIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String SCOPE = "balancer-it-" + UUID.randomUUID();
    private static final Duration WAIT = Duration.ofSeconds(90);
    /** Event time starts now: records with old timestamps would fall to the topics' time retention. */
    private static final long T0 = System.currentTimeMillis() / 1000 * 1000;

    @AfterAll
    static void dropRegistry() {
        MockSchemaRegistry.drop(SCOPE);
    }

    /** SkewGuard's controller, but the stream thread dies once on the report at {@code crashAt}. */
    private static final class CrashOnce implements WeightPolicy {
        private final WeightController controller;
        private final long crashAt;
        private final AtomicBoolean crashed = new AtomicBoolean();

        CrashOnce(WeightController controller, long crashAt) {
            this.controller = controller;
            this.crashAt = crashAt;
        }

        @Override
        public ControllerState onHeatConfirmed(ControllerState state, long since) {
            return controller.onHeatConfirmed(state, since);
        }

        @Override
        public Round onReport(ControllerState state, LoadSnapshot snapshot) {
            if (snapshot.time() == crashAt && crashed.compareAndSet(false, true)) {
                throw new IllegalStateException("simulated crash before the transaction commits");
            }
            return controller.onReport(state, snapshot);
        }
    }

    @Test
    void crashAndRestartNeitherRepeatNorSkipAnEpoch(@TempDir Path stateDir) throws Exception {
        EmbeddedKafka broker = KAFKA.broker();
        Topics topics = new Topics("balancer-it.");
        broker.createTopics(2, topics.reports(), topics.alerts(), topics.weightCommands(), topics.dlq());
        broker.createTopics(2, topics.proposals(), topics.decisions());
        broker.createCompactedTopics(2, topics.nodeWeights(), topics.control());
        BalancerSettings settings = BalancerSettings.of(Map.of(
                "bootstrap.servers", broker.bootstrapServers(),
                "schema.registry.url", "mock://" + SCOPE,
                "application.id", "balancer-it-" + UUID.randomUUID(),
                "topic-prefix", topics.prefix(),
                "replication-factor", "1"));
        Map<String, Object> serde = settings.serdeConfig();
        SchemaRegistrySerde<SkewReport> reports = SchemaRegistrySerde.of(SkewReport.class, serde, false);
        SchemaRegistrySerde<SkewAlert> alerts = SchemaRegistrySerde.of(SkewAlert.class, serde, false);
        SchemaRegistrySerde<WeightCommand> commands = SchemaRegistrySerde.of(WeightCommand.class, serde, false);
        SchemaRegistrySerde<NodeWeight> weights = SchemaRegistrySerde.of(NodeWeight.class, serde, false);

        try (KafkaProducer<String, SkewReport> reportProducer = broker.producer(new StringSerializer(), reports.serializer());
             KafkaProducer<String, SkewAlert> alertProducer = broker.producer(new StringSerializer(), alerts.serializer())) {
            // first instance: round 1 from the report at 1 min; the report at 1 min 10 s crashes the
            // thread, before or after the transaction holding round 1 commits
            CrashOnce crashOnce = new CrashOnce(new WeightController(settings.controller()), T0 + 70_000);
            KafkaStreams first = start(settings, stateDir.resolve("first"), crashOnce);
            alertProducer.send(new ProducerRecord<>(topics.alerts(), "c1", confirmed())).get();
            reportProducer.send(new ProducerRecord<>(topics.reports(), "c1", report(60_000)));
            reportProducer.send(new ProducerRecord<>(topics.reports(), "c1", report(70_000)));
            reportProducer.flush();
            broker.consumeUntil(topics.weightCommands(), new StringDeserializer(), commands.deserializer(), 2, WAIT);
            first.close(Duration.ofSeconds(30));
            assertThat(crashOnce.crashed).isTrue();

            // second instance on an empty state directory: restores the controller state from the changelog;
            // the report of round 1 arrives again (at-least-once upstream), then the next round's
            KafkaStreams second = start(settings, stateDir.resolve("second"),
                    new WeightController(settings.controller()));
            reportProducer.send(new ProducerRecord<>(topics.reports(), "c1", report(60_000)));
            reportProducer.send(new ProducerRecord<>(topics.reports(), "c1", report(180_000)));
            reportProducer.flush();
            List<ConsumerRecord<String, WeightCommand>> all = broker.consumeUntil(topics.weightCommands(),
                    new StringDeserializer(), commands.deserializer(),
                    records -> records.stream().anyMatch(r -> r.value().getEpoch() == 2)
                            && records.stream().filter(r -> r.value().getEpoch() == 2).count() >= 2, WAIT);
            List<ConsumerRecord<String, NodeWeight>> table = broker.consumeUntil(topics.nodeWeights(),
                    new StringDeserializer(), weights.deserializer(),
                    records -> records.stream().anyMatch(r -> r.value().getEpoch() == 2), WAIT);
            second.close(Duration.ofSeconds(30));

            Set<String> ids = new HashSet<>();
            Map<Long, Map<String, WeightCommand>> byEpoch = new HashMap<>();
            for (ConsumerRecord<String, WeightCommand> record : all) {
                WeightCommand c = record.value();
                assertThat(ids.add(c.getCommandId())).as("command %s committed once", c.getCommandId()).isTrue();
                byEpoch.computeIfAbsent(c.getEpoch(), e -> new HashMap<>()).put(c.getNode(), c);
            }
            assertThat(byEpoch.keySet()).containsExactlyInAnyOrder(1L, 2L);
            assertThat(byEpoch.get(1L).get("hot").getNewWeight()).isEqualTo(0.95);
            assertThat(byEpoch.get(2L).get("hot").getOldWeight()).as("round 2 starts where round 1 ended")
                    .isEqualTo(0.95);
            assertThat(byEpoch.get(2L).get("cold").getOldWeight()).isEqualTo(1.05);
            assertThat(byEpoch.get(2L).get("hot").getIssuedAt()).isEqualTo(Instant.ofEpochMilli(T0 + 180_000));
            Map<String, NodeWeight> latest = new HashMap<>();
            table.forEach(r -> latest.put(r.key(), r.value()));
            assertThat(latest.keySet()).containsExactlyInAnyOrder("c1/hot", "c1/cold");
            assertThat(latest.get("c1/hot").getWeight()).isEqualTo(byEpoch.get(2L).get("hot").getNewWeight());
        } finally {
            reports.close();
            alerts.close();
            commands.close();
            weights.close();
        }
    }

    private static KafkaStreams start(BalancerSettings settings, Path stateDir, WeightPolicy policy)
            throws InterruptedException {
        Properties props = settings.streamsProperties();
        props.put("state.dir", stateDir.toString());
        // Streams members do not leave the group on close: a dead thread's partitions move after the
        // session timeout, so keep it at the broker's minimum for the test
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
        props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1000);
        KafkaStreams streams = new KafkaStreams(BalancerTopology.build(settings, policy), props);
        streams.setUncaughtExceptionHandler(
                e -> StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD);
        streams.start();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (streams.state() != KafkaStreams.State.RUNNING && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(streams.state()).isEqualTo(KafkaStreams.State.RUNNING);
        return streams;
    }

    private static SkewAlert confirmed() {
        return SkewAlert.newBuilder()
                .setAlertId("c1/HEAT/CONFIRMED/0").setCluster("c1").setKind(AlertKind.HEAT)
                .setPreviousState(AlertState.OBSERVING).setState(AlertState.CONFIRMED)
                .setValue(0.6).setThreshold(0.4).setSince(Instant.ofEpochMilli(T0)).setEventTime(Instant.ofEpochMilli(T0))
                .build();
    }

    /** At {@code time} after T0, a fixed load: "hot" takes 80 % of the writes whatever the weights. */
    private static SkewReport report(long time) {
        return BalancerHarness.report(new LoadSnapshot("c1", T0 + time, 0.6, List.of(
                new NodeLoad("cold", 200_000, 1e12), new NodeLoad("hot", 800_000, 1e12))));
    }
}
