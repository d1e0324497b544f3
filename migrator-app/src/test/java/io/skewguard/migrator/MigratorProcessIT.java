package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.runtime.topics.TopicPlan;
import io.skewguard.runtime.topics.TopicProvisioner;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.MockSchemaRegistry;
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
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.avro.specific.SpecificRecord;
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
 * {@code migrator} as its own process, started the way a deployment starts it: one
 * {@code --config FILE} of standard Kafka keys (a SASL/SCRAM broker) and the migrator's own
 * settings (a registry that wants basic authentication). Once its {@code /ready} answers, given
 * capacity reports and a confirmed capacity alert it publishes the slot table and sends the first
 * COPY commands; SIGTERM ends it with exit code 0 and no member left in its consumer group; its
 * whole output holds neither password. The records are {@link MigratorIT}'s.
 */
class MigratorProcessIT {

    private static final String USER = "migrator";
    private static final String BROKER_SECRET = "migrator-broker-s3cret";
    private static final String REGISTRY_SECRET = "migrator-registry-s3cret";

    /** One SASL broker for the class; the test's own clients (the kit's helpers) have a user of their own. */
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension(EmbeddedKafka.builder().saslUser(USER, BROKER_SECRET));

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final Pattern ERROR_LINE = Pattern.compile("(?m)^\\S+ ERROR ");

    @Test
    void actsOnItsInputOverSaslAndSigtermEndsItWithExitCodeZeroNoGroupMemberLeftAndNoSecretInItsOutput(@TempDir Path dir)
            throws Exception {
        Method main = MigratorApp.class.getMethod("main", String[].class);
        assertThat(Modifier.isStatic(main.getModifiers())).as("MigratorApp.main is static").isTrue();

        EmbeddedKafka kafka = KAFKA.broker();
        // MigratorIT.awaitProcessed reads the default topic names
        Topics topics = Topics.defaults();
        // what an operator does first: ./skewguard topics create --node-partitions 2
        try (TopicProvisioner provisioner = new TopicProvisioner(kafka.adminClient(), kafka.bootstrapServers(), WAIT)) {
            TopicPlan defaults = TopicPlan.defaults(topics.prefix());
            provisioner.create(new TopicPlan(topics.prefix(), 2, defaults.clusterPartitions(), defaults.replicationFactor(),
                    defaults.eventRetention(), defaults.commandRetention(), defaults.deadLetterRetention()));
        }
        String scope = "migrator-process-it-" + UUID.randomUUID();
        String registry = "mock://" + scope;
        String applicationId = "migrator-process-it-" + UUID.randomUUID();

        try (RegistryOverHttp http = RegistryOverHttp.serve(scope, USER + ":" + REGISTRY_SECRET)) {
            int healthPort = AppProcess.freePort();
            Path config = kafka.writeClientProperties(dir.resolve("migrator.properties"), USER);
            Files.writeString(config, String.join("\n",
                    "schema.registry.url=" + http.url(),
                    "basic.auth.credentials.source=USER_INFO",
                    "basic.auth.user.info=" + USER + ":" + REGISTRY_SECRET,
                    "application.id=" + applicationId,
                    "topic-prefix=" + topics.prefix(),
                    "state.dir=" + dir.resolve("state"),
                    "health-port=" + healthPort,
                    "slot-count=16",
                    "candidates=2",
                    "max-parallel=2",
                    "commit-interval=100ms",
                    "tick-interval=200ms",
                    ""), StandardOpenOption.APPEND);

            try (AppProcess migrator = AppProcess.start(MigratorApp.class, dir.resolve("migrator.log"), "--config", config.toString())) {
                migrator.awaitReady(healthPort, WAIT);
                SimulatedAgents agents = MigratorIT.skewedCluster();
                try (KafkaProducer<String, SpecificRecord> producer =
                        kafka.producer(new StringSerializer(), MigratorIT.anySerializer(registry))) {
                    long now = System.currentTimeMillis();
                    for (CapacityEvent e : agents.capacityReports(now)) {
                        producer.send(new ProducerRecord<>(topics.nodeCapacity(), e.getNode(), e));
                    }
                    producer.send(new ProducerRecord<>(topics.reports(), MigratorIT.CLUSTER, MigratorIT.report(agents, now)));
                    producer.flush();
                    // every node's capacity must be in the coordinator before the alert, or it plans from some
                    MigratorIT.awaitProcessed(kafka, applicationId, WAIT);
                    producer.send(new ProducerRecord<>(topics.alerts(), MigratorIT.CLUSTER,
                            MigratorIT.alert(agents.capacityCv(), now))).get();
                }

                List<ConsumerRecord<String, SlotAssignment>> rows = kafka.consumeUntil(topics.slotTable(), new StringDeserializer(),
                        MigratorIT.serde(registry, SlotAssignment.class).deserializer(), 16, WAIT);
                List<ConsumerRecord<String, MigrationCommand>> commands = kafka.consumeUntil(topics.migrationCommands(),
                        new StringDeserializer(), MigratorIT.serde(registry, MigrationCommand.class).deserializer(), 1, WAIT);

                assertThat(rows).allMatch(r -> r.key().equals(MigratorIT.CLUSTER + "/" + r.value().getSlot()));
                assertThat(commands).extracting(r -> r.value().getPhase()).contains(MigrationPhase.COPY);
                assertThat(kafka.groupMembers(applicationId)).as("the migrator is in its group before SIGTERM").isEqualTo(1);

                // what Prometheus sees: every migrator series with a value, one dead letter among them
                try (KafkaProducer<String, byte[]> raw = kafka.producer(new StringSerializer(), new ByteArraySerializer())) {
                    raw.send(new ProducerRecord<>(topics.nodeCapacity(), "n1", new byte[] {1, 2, 3})).get();
                }
                String cluster = "cluster=\"" + MigratorIT.CLUSTER + "\"";
                List<String> series = List.of(
                        "skewguard_migrations{" + cluster + ",state=\"copying\"}",
                        "skewguard_migrations{" + cluster + ",state=\"cleaned\"}",
                        "skewguard_migration_commands_total{" + cluster + ",phase=\"COPY\"}",
                        "skewguard_migration_moved_bytes_total{" + cluster + "}",
                        "skewguard_migration_budget_bytes_per_second{" + cluster + "}",
                        "skewguard_migration_copy_progress_ratio{" + cluster + "}",
                        "skewguard_decisions_total{" + cluster + ",app=\"migrator\",reason=\"BATCH_STARTED\"}",
                        "skewguard_dead_letters_total",
                        "skewguard_input_lag_records{consumer=\"migrator-streams\"}",
                        "kafka_stream_thread_process_total");
                migrator.await("a value for each of " + series, () -> PrometheusScrape.of(healthPort).missing(series).isEmpty(), WAIT);
                assertThat(PrometheusScrape.of(healthPort).value("skewguard_migration_commands_total", "cluster",
                        MigratorIT.CLUSTER, "phase", "COPY").orElseThrow()).as("COPY commands sent").isPositive();

                int exitCode = migrator.stop(WAIT); // SIGTERM
                String output = migrator.output();
                assertThat(exitCode).as("exit code; output:\n%s", output).isZero();
                assertThat(kafka.groupMembers(applicationId)).as("members left in the group; output:\n%s", output).isZero();
                assertThat(http.refusedRequests()).as("registry requests without the configured credentials").isZero();
                // the lines that would carry the secrets are there, with the secrets hidden
                assertThat(output).contains("starting migrator with migrator settings {", "sasl.jaas.config=[hidden]",
                        "basic.auth.user.info=[hidden]", "sasl.jaas.config = [hidden]", "migrator stopped (exit code 0)");
                assertThat(output).doesNotContain(BROKER_SECRET).doesNotContain(REGISTRY_SECRET);
                assertThat(ERROR_LINE.matcher(output).find()).as("an ERROR line in the output:\n%s", output).isFalse();
            }
        } finally {
            MockSchemaRegistry.drop(scope);
        }
    }
}
