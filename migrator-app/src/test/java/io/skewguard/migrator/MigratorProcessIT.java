package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.runtime.topics.TopicPlan;
import io.skewguard.runtime.topics.TopicProvisioner;
import io.skewguard.testkit.EmbeddedKafka;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.RegistryOverHttp;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code migrator} as its own process, started the way a deployment starts it ({@code --config
 * FILE}): once its {@code /ready} answers, given capacity reports and a confirmed capacity alert it
 * publishes the slot table and sends the first COPY commands, and SIGTERM ends it with exit code 0
 * and no member left in its consumer group. The records are {@link MigratorIT}'s.
 */
class MigratorProcessIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String BROKER_SECRET = "broker-s3cret";
    private static final String REGISTRY_SECRET = "registry-s3cret";

    @Test
    void actsOnItsInputAndSigtermEndsItWithExitCodeZeroAndNoGroupMemberLeft(@TempDir Path dir) throws Exception {
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

        try (RegistryOverHttp http = RegistryOverHttp.serve(scope)) {
            int healthPort = freePort();
            Path config = dir.resolve("migrator.properties");
            Files.writeString(config, String.join("\n",
                    "bootstrap.servers=" + kafka.bootstrapServers(),
                    "schema.registry.url=" + http.url(),
                    "application.id=" + applicationId,
                    "state.dir=" + dir.resolve("state"),
                    "health-port=" + healthPort,
                    "slot-count=16",
                    "candidates=2",
                    "max-parallel=2",
                    "commit-interval=100ms",
                    "tick-interval=200ms",
                    // secrets that must never reach the log (PLAINTEXT ignores the JAAS line; the registry ignores the credentials)
                    "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                            + "username=\"migrator\" password=\"" + BROKER_SECRET + "\";",
                    "basic.auth.credentials.source=USER_INFO",
                    "basic.auth.user.info=migrator:" + REGISTRY_SECRET,
                    ""));
            Path log = dir.resolve("migrator.log");
            Process process = new ProcessBuilder(
                    Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                    "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                    MigratorApp.class.getName(), "--config", config.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            try {
                awaitReady(healthPort, process);
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
                assertThat(members(kafka, applicationId)).as("the migrator is in its group before SIGTERM").isEqualTo(1);
            } finally {
                process.destroy(); // SIGTERM
                assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
            }

            String output = Files.readString(log);
            assertThat(process.exitValue()).as("exit code; log:\n%s", output).isZero();
            assertThat(members(kafka, applicationId)).as("members left in the group; log:\n%s", output).isZero();
            assertThat(output).contains("starting migrator with migrator settings {", "migrator stopped (exit code 0)")
                    .doesNotContain(BROKER_SECRET).doesNotContain(REGISTRY_SECRET).doesNotContain("ERROR");
        } finally {
            MockSchemaRegistry.drop(scope);
        }
    }

    /** A port free on 127.0.0.1 just now, for the app's health endpoint. */
    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    /** Waits until the app's {@code GET /ready} answers 200. */
    private static void awaitReady(int port, Process process) throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready"))
                .timeout(Duration.ofSeconds(5)).build();
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            assertThat(process.isAlive()).as("the app is running").isTrue();
            assertThat(System.nanoTime()).as("/ready answers 200 in time").isLessThan(deadline);
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (java.io.IOException notListeningYet) {
                // the JVM is still starting
            }
            Thread.sleep(200);
        }
    }

    private static int members(EmbeddedKafka kafka, String group) throws Exception {
        try (Admin admin = kafka.adminClient()) {
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            return d.groupState() == GroupState.DEAD ? 0 : d.members().size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return 0;
            }
            throw e;
        }
    }
}
