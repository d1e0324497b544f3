package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.runtime.topics.TopicPlan;
import io.skewguard.runtime.topics.TopicProvisioner;
import io.skewguard.testkit.AppProcess;
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
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
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
 * {@code balancer} as its own process, started the way a deployment starts it ({@code --config
 * FILE}): once its {@code /ready} answers, given a confirmed heat alert and a report it publishes
 * node weights, and SIGTERM ends it with exit code 0 and no member left in its consumer group.
 */
class BalancerProcessIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String BROKER_SECRET = "broker-s3cret";
    private static final String REGISTRY_SECRET = "registry-s3cret";

    @Test
    void actsOnItsInputAndSigtermEndsItWithExitCodeZeroAndNoGroupMemberLeft(@TempDir Path dir) throws Exception {
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

        try (RegistryOverHttp registry = RegistryOverHttp.serve(scope);
             SchemaRegistrySerde<SkewReport> reports = SchemaRegistrySerde.of(SkewReport.class, serde, false);
             SchemaRegistrySerde<SkewAlert> alerts = SchemaRegistrySerde.of(SkewAlert.class, serde, false);
             SchemaRegistrySerde<NodeWeight> weights = SchemaRegistrySerde.of(NodeWeight.class, serde, false)) {
            int healthPort = freePort();
            Path config = dir.resolve("balancer.properties");
            Files.writeString(config, String.join("\n",
                    "bootstrap.servers=" + broker.bootstrapServers(),
                    "schema.registry.url=" + registry.url(),
                    "application.id=" + applicationId,
                    "topic-prefix=" + topics.prefix(),
                    "state.dir=" + dir.resolve("state"),
                    "health-port=" + healthPort,
                    "replication-factor=1",
                    "commit-interval=200ms",
                    // secrets that must never reach the log (PLAINTEXT ignores the JAAS line; the registry ignores the credentials)
                    "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                            + "username=\"balancer\" password=\"" + BROKER_SECRET + "\";",
                    "basic.auth.credentials.source=USER_INFO",
                    "basic.auth.user.info=balancer:" + REGISTRY_SECRET,
                    ""));
            Path log = dir.resolve("balancer.log");
            Process process = new ProcessBuilder(
                    Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                    "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                    BalancerApp.class.getName(), "--config", config.toString())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            try {
                awaitReady(healthPort, process);
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
            } finally {
                process.destroy(); // SIGTERM
                assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
            }

            String output = Files.readString(log);
            assertThat(process.exitValue()).as("exit code; log:\n%s", output).isZero();
            assertThat(members(broker, applicationId)).as("members left in the group; log:\n%s", output).isZero();
            assertThat(output).contains("starting balancer with balancer settings {", "balancer stopped (exit code 0)")
                    .doesNotContain(BROKER_SECRET).doesNotContain(REGISTRY_SECRET).doesNotContain("ERROR");
        } finally {
            MockSchemaRegistry.drop(scope);
        }
    }

    @Test
    void refusesToStartWhenItsTopicsAreMissingAndNamesTheCommandThatCreatesThem(@TempDir Path dir) throws Exception {
        Path config = dir.resolve("balancer.properties");
        Files.writeString(config, String.join("\n",
                "bootstrap.servers=" + KAFKA.bootstrapServers(),
                "schema.registry.url=http://127.0.0.1:1",
                "topic-prefix=never-created.",
                "state.dir=" + dir.resolve("state"),
                ""));
        try (AppProcess balancer = AppProcess.start(BalancerApp.class, dir.resolve("balancer.log"), "--config", config.toString())) {
            // not a bad setting (2): an environment the app cannot run in, a failed start (1)
            assertThat(balancer.awaitExit(WAIT)).as("exit code; output:\n%s", balancer.output()).isEqualTo(1);
            assertThat(balancer.output()).contains("missing SkewGuard topics", "never-created.reports",
                    "./skewguard topics create --bootstrap-servers " + KAFKA.bootstrapServers() + " --topic-prefix never-created.",
                    "create-topics=true", "balancer stopped (exit code 1)");
        }
    }

    /** Waits until the group has {@code count} members (the app has joined). */
    private static void awaitMembers(EmbeddedKafka broker, String group, int count) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (members(broker, group) != count) {
            assertThat(System.nanoTime()).as("%s has %d members in time", group, count).isLessThan(deadline);
            Thread.sleep(200);
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

    private static int members(EmbeddedKafka broker, String group) throws Exception {
        try (Admin admin = broker.adminClient()) {
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
            return d.groupState() == GroupState.DEAD ? 0 : d.members().size();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return 0;
            }
            throw e;
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
