package io.skewguard.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.testkit.AppProcess;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.PrometheusScrape;
import io.skewguard.testkit.RegistryOverHttp;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code skewguard agent} as its own process, started the way a deployment starts it: one
 * {@code --config FILE} of standard Kafka keys (a SASL/SCRAM broker) and the agent's own settings (a
 * registry that wants basic authentication). Two nodes, the load on: both report their writes and
 * capacity, a weight command moves new writes, {@code /ready} answers; SIGTERM ends it with exit
 * code 0 and no member left in the agents' consumer groups; the registry refused no request; its
 * whole output holds neither password and no ERROR.
 */
class AgentProcessIT {

    private static final String USER = "agent";
    private static final String BROKER_SECRET = "agent-broker-s3cret";
    private static final String REGISTRY_SECRET = "agent-registry-s3cret";

    /** One SASL broker for the class; the test's own clients (the kit's helpers) have a user of their own. */
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension(EmbeddedKafka.builder().saslUser(USER, BROKER_SECRET));

    /** Writes of the weight test counted on each side of the weight change. */
    private static final long WRITES_COUNTED = 3000;

    @TempDir
    Path dir;

    private final Topics topics = new Topics("agent-proc.");
    private final String scope = "AgentProcessIT-" + UUID.randomUUID();
    private RegistryOverHttp registry;
    private SchemaRegistrySerde<WriteEvent> writes;
    private SchemaRegistrySerde<CapacityEvent> capacity;
    private SchemaRegistrySerde<WeightCommand> weights;

    @BeforeEach
    void setUp() throws Exception {
        KAFKA.broker().createTopics(3, topics.weightCommands(), topics.migrationCommands(), topics.migrationStatus(),
                topics.dlq(), topics.nodeWrites(), topics.nodeCapacity());
        KAFKA.broker().createCompactedTopics(1, topics.nodeWeights(), topics.slotTable());
        // the test's serdes use mock://scope, the agent this, with credentials
        registry = RegistryOverHttp.serve(scope, USER + ":" + REGISTRY_SECRET);
        healthPort = AppProcess.freePort();
        Map<String, Object> serde = Map.of("schema.registry.url", "mock://" + scope);
        writes = SchemaRegistrySerde.of(WriteEvent.class, serde, false);
        capacity = SchemaRegistrySerde.of(CapacityEvent.class, serde, false);
        weights = SchemaRegistrySerde.of(WeightCommand.class, serde, false);
    }

    @AfterEach
    void tearDown() {
        writes.close();
        capacity.close();
        weights.close();
        registry.close();
        MockSchemaRegistry.drop(scope);
    }

    private int healthPort;

    private Path config() {
        return AgentUnderTest.configFile(dir.resolve("agent.properties"), KAFKA.broker(), USER, registry,
                USER + ":" + REGISTRY_SECRET, settings());
    }

    private Map<String, String> settings() {
        Map<String, String> s = new HashMap<>();
        s.put("topic-prefix", topics.prefix());
        s.put("create-topics", "true");
        s.put("cluster", Commands.CLUSTER);
        s.put("nodes", "n1,n2");
        s.put("data-dir", dir.resolve("data").toString());
        s.put("store", "memory");
        s.put("slot-count", "16");
        s.put("poll-timeout", "100ms");
        s.put("flush-interval", "200ms");
        s.put("capacity-interval", "300ms");
        s.put("write-load", "1000");
        s.put("heat-skew", "0.5");
        s.put("key-space", "50000");
        s.put("value-bytes", "100");
        s.put("health-port", Integer.toString(healthPort));
        return s;
    }

    private List<WriteEvent> writesUntil(Predicate<List<WriteEvent>> done) {
        return KAFKA.broker().consumeUntil(topics.nodeWrites(), new StringDeserializer(), writes.deserializer(),
                rs -> done.test(rs.stream().map(ConsumerRecord::value).toList()), AgentUnderTest.WAIT)
                .stream().map(ConsumerRecord::value).toList();
    }

    private static long ops(List<WriteEvent> events, String node, Predicate<WriteEvent> which) {
        return events.stream().filter(e -> e.getNode().equals(node)).filter(which).mapToLong(WriteEvent::getOps).sum();
    }

    @Test
    void overSaslBothNodesReportAWeightCommandMovesNewWritesItIsReadyAndSigtermExitsZeroLeavingNoGroupMemberAndNoSecretInItsOutput()
            throws Exception {
        try (AppProcess agent = AgentUnderTest.start(config(), dir.resolve("agent.log"))) {
            List<WriteEvent> before = writesUntil(es -> ops(es, "n1", e -> true) >= WRITES_COUNTED
                    && ops(es, "n2", e -> true) >= WRITES_COUNTED);
            assertThat(before).allSatisfy(e -> assertThat(e.getCluster()).isEqualTo(Commands.CLUSTER));
            List<CapacityEvent> reports = KAFKA.broker().consumeUntil(topics.nodeCapacity(), new StringDeserializer(),
                    capacity.deserializer(), rs -> rs.stream().map(ConsumerRecord::value)
                            .filter(c -> c.getUsedBytes() > 0).map(CapacityEvent::getNode).distinct().count() == 2,
                    AgentUnderTest.WAIT).stream().map(ConsumerRecord::value).toList();
            assertThat(reports).extracting(CapacityEvent::getNode).contains("n1", "n2");
            assertThat(reports).allSatisfy(c -> assertThat(c.getTotalBytes()).isEqualTo(1L << 40));

            // n1 down to the lowest weight factor, n2 up to the highest: n1's share drops from ~1/2 to ~1/5
            try (KafkaProducer<String, byte[]> producer = KAFKA.broker().producer(new StringSerializer(), new ByteArraySerializer())) {
                for (WeightCommand c : List.of(Commands.weight("n1", 1, 0.5), Commands.weight("n2", 1, 2.0))) {
                    producer.send(new ProducerRecord<>(topics.weightCommands(), c.getNode(),
                            weights.serializer().serialize(topics.weightCommands(), c)));
                }
                producer.flush();
            }
            Path data = dir.resolve("data");
            agent.await("both weights are applied", () -> AgentUnderTest.appliedWeightEpoch(data.resolve("n1/agent.state")) == 1
                    && AgentUnderTest.appliedWeightEpoch(data.resolve("n2/agent.state")) == 1, AgentUnderTest.WAIT);
            // events flushed one flush interval after this hold only writes made after the change
            Instant after = Instant.now().plusMillis(400);
            List<WriteEvent> all = writesUntil(es -> ops(es, "n1", e -> e.getEventTime().isAfter(after))
                    + ops(es, "n2", e -> e.getEventTime().isAfter(after)) >= WRITES_COUNTED);

            double shareBefore = share(before, e -> true);
            double shareAfter = share(all, e -> e.getEventTime().isAfter(after));
            assertThat(shareBefore).as("n1's share of the writes before").isBetween(0.4, 0.6);
            assertThat(shareAfter).as("n1's share of the writes after its weight fell to 0.5 and n2's rose to 2.0")
                    .isBetween(0.1, 0.3);

            agent.awaitReady(healthPort, AgentUnderTest.WAIT);

            // what Prometheus sees: every agent series with a value, one command set aside among them
            try (KafkaProducer<String, byte[]> raw = KAFKA.broker().producer(new StringSerializer(), new ByteArraySerializer())) {
                raw.send(new ProducerRecord<>(topics.weightCommands(), "n1", new byte[] {1, 2, 3})).get();
            }
            String n1 = "cluster=\"" + Commands.CLUSTER + "\",node=\"n1\"";
            List<String> series = List.of(
                    "skewguard_agent_commands_applied_total{" + n1 + ",command=\"weight\"}",
                    "skewguard_agent_commands_refused_total{" + n1 + ",reason=\"undecodable\"}",
                    "skewguard_dead_letters_total{reason=\"undecodable\"}",
                    "skewguard_input_lag_records{consumer=\"agent-n1\"}",
                    "skewguard_input_lag_records{consumer=\"agent-n2\"}",
                    "kafka_consumer_fetch_manager_records_consumed_total",
                    "kafka_producer_record_send_total");
            agent.await("a value for each of " + series, () -> PrometheusScrape.of(healthPort).missing(series).isEmpty(),
                    AgentUnderTest.WAIT);
            EmbeddedKafka broker = KAFKA.broker();
            assertThat(broker.groupMembers(AgentUnderTest.group("n1"))).as("n1's agent in its group").isEqualTo(1);
            assertThat(broker.groupMembers(AgentUnderTest.group("n2"))).as("n2's agent in its group").isEqualTo(1);

            int exitCode = agent.stop(AgentUnderTest.WAIT); // SIGTERM
            String output = agent.output();
            assertThat(exitCode).as("exit code after SIGTERM; output:\n%s", output).isZero();
            assertThat(broker.groupMembers(AgentUnderTest.group("n1"))).as("members left in n1's group").isZero();
            assertThat(broker.groupMembers(AgentUnderTest.group("n2"))).as("members left in n2's group").isZero();
            assertThat(registry.refusedRequests()).as("registry requests without the configured credentials").isZero();
            assertThat(output).contains("shutdown signal received", "agents[n1, n2]: closed", "agent stopped (exit code 0)");
            AgentUnderTest.assertNoSecretAndNoError(output, BROKER_SECRET, REGISTRY_SECRET);
        }
    }

    private static double share(List<WriteEvent> events, Predicate<WriteEvent> which) {
        double n1 = ops(events, "n1", which);
        double n2 = ops(events, "n2", which);
        return n1 / (n1 + n2);
    }
}
