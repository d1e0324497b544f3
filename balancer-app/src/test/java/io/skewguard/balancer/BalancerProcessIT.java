package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.runtime.topics.TopicPlan;
import io.skewguard.runtime.topics.TopicProvisioner;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.AppProcess;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.PrometheusScrape;
import io.skewguard.testkit.RegistryOverHttp;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code balancer} as its own process, started the way a deployment starts it: one
 * {@code --config FILE} of standard Kafka keys (a SASL/SCRAM broker) and the balancer's own
 * settings (a registry that wants basic authentication). Once its {@code /ready} answers, given a
 * confirmed heat alert and a report it publishes node weights; SIGTERM ends it with exit code 0 and
 * no member left in its consumer group; its whole output holds neither password. Without its
 * topics it does not start.
 */
class BalancerProcessIT {

    private static final String USER = "balancer";
    private static final String BROKER_SECRET = "balancer-broker-s3cret";
    private static final String REGISTRY_SECRET = "balancer-registry-s3cret";

    /** One SASL broker for the class; the test's own clients (the kit's helpers) have a user of their own. */
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension(EmbeddedKafka.builder().saslUser(USER, BROKER_SECRET));

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final Pattern ERROR_LINE = Pattern.compile("(?m)^\\S+ ERROR ");

    @Test
    void actsOnItsInputOverSaslAndSigtermEndsItWithExitCodeZeroNoGroupMemberLeftAndNoSecretInItsOutput(@TempDir Path dir)
            throws Exception {
        Method main = BalancerApp.class.getMethod("main", String[].class);
        assertThat(Modifier.isStatic(main.getModifiers())).as("BalancerApp.main is static").isTrue();

        EmbeddedKafka broker = KAFKA.broker();
        Topics topics = new Topics("process-it.");
        // what an operator does first: ./skewguard topics create
        try (TopicProvisioner provisioner = new TopicProvisioner(broker.adminClient(), broker.bootstrapServers(), WAIT)) {
            provisioner.create(TopicPlan.defaults(topics.prefix()));
        }
        String scope = "balancer-process-it-" + UUID.randomUUID();
        String applicationId = "balancer-process-it-" + UUID.randomUUID();
        long t0 = System.currentTimeMillis() / 1000 * 1000;
        Map<String, Object> serde = Map.of("schema.registry.url", "mock://" + scope);

        try (RegistryOverHttp registry = RegistryOverHttp.serve(scope, USER + ":" + REGISTRY_SECRET);
             SchemaRegistrySerde<SkewReport> reports = SchemaRegistrySerde.of(SkewReport.class, serde, false);
             SchemaRegistrySerde<SkewAlert> alerts = SchemaRegistrySerde.of(SkewAlert.class, serde, false);
             SchemaRegistrySerde<NodeWeight> weights = SchemaRegistrySerde.of(NodeWeight.class, serde, false)) {
            int healthPort = AppProcess.freePort();
            Path config = broker.writeClientProperties(dir.resolve("balancer.properties"), USER);
            Files.writeString(config, String.join("\n",
                    "schema.registry.url=" + registry.url(),
                    "basic.auth.credentials.source=USER_INFO",
                    "basic.auth.user.info=" + USER + ":" + REGISTRY_SECRET,
                    "application.id=" + applicationId,
                    "topic-prefix=" + topics.prefix(),
                    "state.dir=" + dir.resolve("state"),
                    "health-port=" + healthPort,
                    "replication-factor=1",
                    "commit-interval=200ms",
                    ""), StandardOpenOption.APPEND);

            try (AppProcess balancer = AppProcess.start(BalancerApp.class, dir.resolve("balancer.log"), "--config", config.toString())) {
                balancer.awaitReady(healthPort, WAIT);
                try (KafkaProducer<String, SkewReport> reportProducer = broker.producer(new StringSerializer(), reports.serializer());
                     KafkaProducer<String, SkewAlert> alertProducer = broker.producer(new StringSerializer(), alerts.serializer())) {
                    alertProducer.send(new ProducerRecord<>(topics.alerts(), "c1", confirmed(t0))).get();
                    reportProducer.send(new ProducerRecord<>(topics.reports(), "c1", report(t0 + 60_000))).get();
                }

                List<ConsumerRecord<String, NodeWeight>> table = broker.consumeUntil(topics.nodeWeights(),
                        new StringDeserializer(), weights.deserializer(), 2, WAIT);

                assertThat(table).extracting(ConsumerRecord::key).containsExactlyInAnyOrder("c1/hot", "c1/cold");
                assertThat(table).filteredOn(r -> r.key().equals("c1/hot")).singleElement()
                        .satisfies(r -> assertThat(r.value().getWeight()).isEqualTo(0.95));
                awaitMembers(broker, applicationId, 1);

                // what Prometheus sees: every balancer series with a value, one dead letter among them
                try (KafkaProducer<String, byte[]> raw = broker.producer(new StringSerializer(), new ByteArraySerializer())) {
                    raw.send(new ProducerRecord<>(topics.reports(), "c1", new byte[] {1, 2, 3})).get();
                }
                List<String> series = List.of(
                        "skewguard_weight_rounds_total{cluster=\"c1\",outcome=\"ADJUSTED\"}",
                        "skewguard_weight_commands_total{cluster=\"c1\"}",
                        "skewguard_weight_epoch{cluster=\"c1\"}",
                        "skewguard_decisions_total{cluster=\"c1\",app=\"balancer\",reason=\"ADJUSTED\"}",
                        "skewguard_dead_letters_total",
                        "skewguard_input_lag_records{consumer=\"balancer-streams\"}",
                        "kafka_stream_thread_process_total");
                balancer.await("a value for each of " + series, () -> PrometheusScrape.of(healthPort).missing(series).isEmpty(), WAIT);
                assertThat(PrometheusScrape.of(healthPort).value("skewguard_weight_commands_total", "cluster", "c1"))
                        .as("one weight command per changed node").hasValue(2.0);

                int exitCode = balancer.stop(WAIT); // SIGTERM
                String output = balancer.output();
                assertThat(exitCode).as("exit code; output:\n%s", output).isZero();
                assertThat(broker.groupMembers(applicationId)).as("members left in the group; output:\n%s", output).isZero();
                assertThat(registry.refusedRequests()).as("registry requests without the configured credentials").isZero();
                // the lines that would carry the secrets are there, with the secrets hidden
                assertThat(output).contains("starting balancer with balancer settings {", "sasl.jaas.config=[hidden]",
                        "basic.auth.user.info=[hidden]", "sasl.jaas.config = [hidden]", "balancer stopped (exit code 0)");
                assertThat(output).doesNotContain(BROKER_SECRET).doesNotContain(REGISTRY_SECRET);
                assertThat(ERROR_LINE.matcher(output).find()).as("an ERROR line in the output:\n%s", output).isFalse();
            }
        } finally {
            MockSchemaRegistry.drop(scope);
        }
    }

    @Test
    void refusesToStartWhenItsTopicsAreMissingAndNamesTheCommandThatCreatesThem(@TempDir Path dir) throws Exception {
        Path config = KAFKA.broker().writeClientProperties(dir.resolve("balancer.properties"), USER);
        Files.writeString(config, String.join("\n",
                "topic-prefix=never-created.",
                "state.dir=" + dir.resolve("state"),
                ""), StandardOpenOption.APPEND);
        try (AppProcess balancer = AppProcess.start(BalancerApp.class, dir.resolve("balancer.log"), "--config", config.toString())) {
            // not a bad setting (2): a cluster the app cannot run on, so a failed start (1)
            int exitCode = balancer.awaitExit(WAIT);
            String output = balancer.output();
            assertThat(exitCode).as("exit code; output:\n%s", output).isEqualTo(1);
            assertThat(output).contains("missing SkewGuard topics", "never-created.reports",
                    "./skewguard topics create --bootstrap-servers " + KAFKA.bootstrapServers() + " --topic-prefix never-created.",
                    "create-topics=true", "balancer stopped (exit code 1)");
            assertThat(output).doesNotContain(BROKER_SECRET);
        }
    }

    /** Waits until the group has {@code count} members (the app has joined). */
    private static void awaitMembers(EmbeddedKafka broker, String group, int count) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (broker.groupMembers(group) != count) {
            assertThat(System.nanoTime()).as("%s has %d members in time", group, count).isLessThan(deadline);
            Thread.sleep(200);
        }
    }

    private static SkewAlert confirmed(long t0) {
        return SkewAlert.newBuilder()
                .setAlertId("c1/HEAT/CONFIRMED/0").setCluster("c1").setKind(AlertKind.HEAT)
                .setPreviousState(AlertState.OBSERVING).setState(AlertState.CONFIRMED)
                .setValue(0.6).setThreshold(0.4).setSince(Instant.ofEpochMilli(t0)).setEventTime(Instant.ofEpochMilli(t0))
                .build();
    }

    /** "hot" takes 80 % of the writes: the first round lowers its weight by the largest step. */
    private static SkewReport report(long time) {
        return BalancerHarness.report(new LoadSnapshot("c1", time, 0.6, List.of(
                new NodeLoad("cold", 200_000, 1e12), new NodeLoad("hot", 800_000, 1e12))));
    }
}
