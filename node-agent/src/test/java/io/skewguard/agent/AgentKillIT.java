package io.skewguard.agent;

import static io.skewguard.schemas.MigrationPhase.COMMIT;
import static io.skewguard.schemas.MigrationPhase.COPY;
import static io.skewguard.schemas.MigrationPhase.PREPARE;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.Stage;
import io.skewguard.agent.state.StateFile;
import io.skewguard.agent.store.NodeStore;
import io.skewguard.agent.store.RocksDbNodeStore;
import io.skewguard.agent.store.Versioned;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.testkit.AppProcess;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.RegistryOverHttp;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 * {@code skewguard agent} killed with SIGKILL and started again on the same data directory: the
 * keys written, the commands applied and the migrations under way are all still there. Both runs
 * are configured as a deployment is, by one {@code --config FILE} of standard Kafka keys (a
 * SASL/SCRAM broker) and the agent's own settings (a registry that wants basic authentication);
 * the second ends on SIGTERM with exit code 0 and no member left in the agents' consumer groups,
 * the registry refused no request, and neither output holds a password or an ERROR.
 */
class AgentKillIT {

    private static final String USER = "agent";
    private static final String BROKER_SECRET = "agent-broker-s3cret";
    private static final String REGISTRY_SECRET = "agent-registry-s3cret";

    /** One SASL broker for the class; the test's own clients (the kit's helpers) have a user of their own. */
    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension(EmbeddedKafka.builder().saslUser(USER, BROKER_SECRET));

    private static final int SLOTS = 16;
    /** Copied at full speed and prepared before the kill, committed after it. */
    private static final int PREPARED_SLOT = 5;
    /** Copied slowly: the copy is under way at the kill. */
    private static final int COPYING_SLOT = 7;
    private static final Pattern LAST_WRITE = Pattern.compile("last write (k\\d+)@(\\d+) on (n\\d)");

    @TempDir
    Path dir;

    private final Topics topics = new Topics("agent-kill.");
    private final String scope = "AgentKillIT-" + UUID.randomUUID();
    private RegistryOverHttp registry;
    private KafkaProducer<String, byte[]> producer;
    private SchemaRegistrySerde<WeightCommand> weights;
    private SchemaRegistrySerde<MigrationCommand> steps;
    private SchemaRegistrySerde<MigrationStatus> answers;

    @BeforeEach
    void setUp() throws Exception {
        KAFKA.broker().createTopics(3, topics.weightCommands(), topics.migrationCommands(), topics.migrationStatus(),
                topics.dlq(), topics.nodeWrites(), topics.nodeCapacity());
        KAFKA.broker().createCompactedTopics(1, topics.nodeWeights(), topics.slotTable());
        // the test's serdes use mock://scope, the agent this, with credentials
        registry = RegistryOverHttp.serve(scope, USER + ":" + REGISTRY_SECRET);
        Map<String, Object> serde = Map.of("schema.registry.url", "mock://" + scope);
        weights = SchemaRegistrySerde.of(WeightCommand.class, serde, false);
        steps = SchemaRegistrySerde.of(MigrationCommand.class, serde, false);
        answers = SchemaRegistrySerde.of(MigrationStatus.class, serde, false);
        producer = KAFKA.broker().producer(new StringSerializer(), new ByteArraySerializer());
    }

    @AfterEach
    void tearDown() {
        producer.close();
        weights.close();
        steps.close();
        answers.close();
        registry.close();
        MockSchemaRegistry.drop(scope);
    }

    private Path config(String name, double writeLoad) {
        return AgentUnderTest.configFile(dir.resolve(name + ".properties"), KAFKA.broker(), USER, registry,
                USER + ":" + REGISTRY_SECRET, settings(writeLoad));
    }

    private Map<String, String> settings(double writeLoad) {
        Map<String, String> s = new HashMap<>();
        s.put("topic-prefix", topics.prefix());
        s.put("create-topics", "true");
        s.put("cluster", Commands.CLUSTER);
        s.put("nodes", "n1,n2");
        s.put("data-dir", dir.resolve("data").toString());
        s.put("store", "rocksdb");
        s.put("slot-count", Integer.toString(SLOTS));
        s.put("poll-timeout", "100ms");
        s.put("progress-interval", "200ms");
        s.put("flush-interval", "200ms");
        s.put("write-load", Double.toString(writeLoad));
        s.put("heat-skew", "0");
        s.put("key-space", "3000");
        s.put("value-bytes", "100");
        return s;
    }

    private void send(WeightCommand c) {
        producer.send(new ProducerRecord<>(topics.weightCommands(), c.getNode(),
                weights.serializer().serialize(topics.weightCommands(), c)));
        producer.flush();
    }

    private void send(MigrationCommand c) {
        producer.send(new ProducerRecord<>(topics.migrationCommands(), c.getNode(),
                steps.serializer().serialize(topics.migrationCommands(), c)));
        producer.flush();
    }

    private List<MigrationStatus> answersUntil(Predicate<List<MigrationStatus>> done) {
        return KAFKA.broker().consumeUntil(topics.migrationStatus(), new StringDeserializer(), answers.deserializer(),
                rs -> done.test(rs.stream().map(ConsumerRecord::value).toList()), AgentUnderTest.WAIT)
                .stream().map(ConsumerRecord::value).toList();
    }

    private static List<MigrationStatus> of(List<MigrationStatus> all, String id, String node, MigrationPhase phase,
                                            StepResult outcome) {
        return all.stream().filter(a -> a.getMigrationId().equals(id) && a.getNode().equals(node)
                && a.getPhase() == phase && a.getOutcome() == outcome).toList();
    }

    @Test
    void overSaslAfterSigkillAndRestartEveryWrittenKeyAppliedCommandAndMigrationUnderWayIsStillThereAndSigtermEndsItCleanly() throws Exception {
        String prepared = Commands.CLUSTER + "/b1/" + PREPARED_SLOT + "@n1";
        String copying = Commands.CLUSTER + "/b1/" + COPYING_SLOT + "@n1";
        Path data = dir.resolve("data");
        String lastKey;
        long lastVersion;
        String lastNode;
        long preparedBytes;

        try (AppProcess first = AgentUnderTest.start(config("first", 300), dir.resolve("first.log"))) {
            // the load fills both nodes; every slot of n1 gets keys to copy
            first.await("the load has written", () -> LAST_WRITE.matcher(first.output()).find(), AgentUnderTest.WAIT);
            send(Commands.weight("n2", 3, 1.5));
            send(Commands.step(COPY, prepared, PREPARED_SLOT, "n1", "n2", "n2", 0));
            List<MigrationStatus> copied = answersUntil(as -> !of(as, prepared, "n2", COPY, StepResult.DONE).isEmpty());
            preparedBytes = of(copied, prepared, "n2", COPY, StepResult.DONE).get(0).getBytesCopied();
            assertThat(preparedBytes).isPositive();
            send(Commands.step(PREPARE, prepared, PREPARED_SLOT, "n1", "n2", "n1"));
            send(Commands.step(PREPARE, prepared, PREPARED_SLOT, "n1", "n2", "n2"));
            answersUntil(as -> of(as, prepared, "n1", PREPARE, StepResult.DONE).size() == 1
                    && of(as, prepared, "n2", PREPARE, StepResult.DONE).size() == 1);
            // a copy at 1 kB/s: under way when the process dies
            send(Commands.step(COPY, copying, COPYING_SLOT, "n1", "n2", "n2", 1000));
            answersUntil(as -> of(as, copying, "n2", COPY, StepResult.PROGRESS).stream().anyMatch(a -> a.getBytesCopied() > 0));
            first.await("the weight is applied", () -> AgentUnderTest.appliedWeightEpoch(data.resolve("n2/agent.state")) == 3, AgentUnderTest.WAIT);
            // a summary written after all that: its write returned before the kill
            int seen = count(LAST_WRITE, first.output());
            first.await("the load reports a later write", () -> count(LAST_WRITE, first.output()) > seen, AgentUnderTest.WAIT);
            Matcher last = lastMatch(LAST_WRITE, first.output());
            lastKey = last.group(1);
            lastVersion = Long.parseLong(last.group(2));
            lastNode = last.group(3);

            first.kill(AgentUnderTest.WAIT);
            assertThat(first.output()).doesNotContain("shutdown signal received");
            AgentUnderTest.assertNoSecretAndNoError(first.output(), BROKER_SECRET, REGISTRY_SECRET);
        }
        // read after the kill (no process holds it any more): what the next start resumes from
        AgentState killed = new StateFile(data.resolve("n2/agent.state")).load("n2");
        assertThat(killed.weightEpoch()).isEqualTo(3);
        assertThat(killed.migration(prepared).stage()).isEqualTo(Stage.PREPARED);
        assertThat(killed.migration(copying).stage()).as("the slow copy is under way at the kill").isEqualTo(Stage.COPYING);

        try (AppProcess second = AgentUnderTest.start(config("second", 0), dir.resolve("second.log"))) {
            // the copy under way at the kill carries on from the store's own record of it
            answersUntil(as -> !of(as, copying, "n2", COPY, StepResult.DONE).isEmpty());
            // a re-sent COPY of the prepared migration: answered DONE with the bytes copied, no new copy
            // (one migration's answers share a partition, in order: all of them are read once its DONE is)
            int progressBefore = of(answersUntil(as -> !of(as, prepared, "n2", COPY, StepResult.DONE).isEmpty()),
                    prepared, "n2", COPY, StepResult.PROGRESS).size();
            send(Commands.step(COPY, prepared, PREPARED_SLOT, "n1", "n2", "n2", 0));
            List<MigrationStatus> again = answersUntil(as -> of(as, prepared, "n2", COPY, StepResult.DONE).size() == 2);
            assertThat(of(again, prepared, "n2", COPY, StepResult.DONE)).extracting(MigrationStatus::getBytesCopied)
                    .containsOnly(preparedBytes);
            assertThat(of(again, prepared, "n2", COPY, StepResult.PROGRESS)).hasSize(progressBefore);
            // the prepared migration commits
            send(Commands.step(COMMIT, prepared, PREPARED_SLOT, "n1", "n2", "n2"));
            send(Commands.step(COMMIT, prepared, PREPARED_SLOT, "n1", "n2", "n1"));
            answersUntil(as -> of(as, prepared, "n1", COMMIT, StepResult.DONE).size() == 1
                    && of(as, prepared, "n2", COMMIT, StepResult.DONE).size() == 1);
            assertThat(second.output()).contains("weight epoch 3");

            int exitCode = second.stop(AgentUnderTest.WAIT); // SIGTERM
            String output = second.output();
            assertThat(exitCode).as("exit code after SIGTERM; output:\n%s", output).isZero();
            assertThat(KAFKA.broker().groupMembers(AgentUnderTest.group("n1"))).as("members left in n1's group").isZero();
            assertThat(KAFKA.broker().groupMembers(AgentUnderTest.group("n2"))).as("members left in n2's group").isZero();
            assertThat(output).contains("agent stopped (exit code 0)");
            AgentUnderTest.assertNoSecretAndNoError(output, BROKER_SECRET, REGISTRY_SECRET);
        }
        assertThat(registry.refusedRequests()).as("registry requests without the configured credentials").isZero();

        AgentState n1 = new StateFile(data.resolve("n1/agent.state")).load("n1");
        AgentState n2 = new StateFile(data.resolve("n2/agent.state")).load("n2");
        assertThat(n2.weightEpoch()).isEqualTo(3);
        assertThat(n2.weight()).isEqualTo(1.5);
        assertThat(n2.migration(prepared).stage()).isEqualTo(Stage.COMMITTED);
        assertThat(n1.migration(prepared).stage()).isEqualTo(Stage.COMMITTED);
        assertThat(n2.migration(copying).stage()).isEqualTo(Stage.COPIED);

        Map<String, NodeStore> peers = new ConcurrentHashMap<>();
        try (RocksDbNodeStore s1 = RocksDbNodeStore.open(data.resolve("n1/store"), "n1", SLOTS, System::currentTimeMillis, peers::get);
             RocksDbNodeStore s2 = RocksDbNodeStore.open(data.resolve("n2/store"), "n2", SLOTS, System::currentTimeMillis, peers::get)) {
            peers.put("n1", s1);
            peers.put("n2", s2);
            Versioned held = (lastNode.equals("n1") ? s1 : s2).get(lastKey).orElseThrow(
                    () -> new AssertionError(lastKey + ", written to " + lastNode + " before the kill, is gone"));
            assertThat(held.version()).isGreaterThanOrEqualTo(lastVersion);
            assertThat(s1.keys(PREPARED_SLOT)).isNotEmpty();
            assertThat(s2.keys(PREPARED_SLOT)).containsAll(s1.keys(PREPARED_SLOT));
            assertThat(s2.keys(COPYING_SLOT)).isNotEmpty().containsAll(s1.keys(COPYING_SLOT));
            assertThat(s2.weightEpoch()).isEqualTo(3);
        }
    }

    private static int count(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    private static Matcher lastMatch(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        int start = -1;
        while (m.find()) {
            start = m.start();
        }
        m.find(start);
        return m;
    }
}
