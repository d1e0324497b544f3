package io.skewguard.agent;

import static io.skewguard.schemas.MigrationPhase.COMMIT;
import static io.skewguard.schemas.MigrationPhase.COPY;
import static io.skewguard.schemas.MigrationPhase.PREPARE;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.Stage;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The agent against a real broker: commands in with the serde, answers out, dead letters, restart. */
class CommandAgentIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int SLOTS = 16;
    private static final int SLOT = 5;

    @TempDir
    Path dir;

    private final Topics topics = Topics.defaults();
    private final Map<String, InMemoryNodeStore> stores = new ConcurrentHashMap<>();
    private Map<String, Object> kafka;
    private KafkaProducer<String, byte[]> producer;
    private SchemaRegistrySerde<WeightCommand> weightSerde;
    private SchemaRegistrySerde<MigrationCommand> migrationSerde;
    private SchemaRegistrySerde<MigrationStatus> statusSerde;

    @BeforeEach
    void setUp() {
        KAFKA.broker().createTopics(3, topics.weightCommands(), topics.migrationCommands(), topics.migrationStatus(), topics.dlq());
        kafka = new HashMap<>();
        kafka.put("bootstrap.servers", KAFKA.bootstrapServers());
        kafka.put("schema.registry.url", "mock://command-agent-it");
        producer = KAFKA.broker().producer(new StringSerializer(), new ByteArraySerializer());
        weightSerde = SchemaRegistrySerde.of(WeightCommand.class, kafka, false);
        migrationSerde = SchemaRegistrySerde.of(MigrationCommand.class, kafka, false);
        statusSerde = SchemaRegistrySerde.of(MigrationStatus.class, kafka, false);
        for (String node : List.of("n1", "n2")) {
            stores.put(node, new InMemoryNodeStore(node, SLOTS, System::currentTimeMillis, stores::get));
        }
        InMemoryNodeStore source = stores.get("n1");
        for (int i = 0, found = 0; found < 50; i++) {
            String key = "object-" + i;
            if (source.slotOf(key) == SLOT) {
                source.put(key, 1, new byte[100]);
                found++;
            }
        }
    }

    @AfterEach
    void tearDown() {
        producer.close();
        weightSerde.close();
        migrationSerde.close();
        statusSerde.close();
    }

    private CommandAgent agentOfN2() {
        AgentSettings settings = new AgentSettings("c1", "n2", SLOTS, topics, dir.resolve("n2.state"),
                Duration.ofMillis(100), Duration.ofMillis(50), kafka);
        return new CommandAgent(settings, stores.get("n2"), System::currentTimeMillis).start();
    }

    private void send(MigrationCommand c) {
        send(topics.migrationCommands(), c.getNode(), migrationSerde.serializer().serialize(topics.migrationCommands(), c));
    }

    private void send(String key, WeightCommand c) {
        send(topics.weightCommands(), key, weightSerde.serializer().serialize(topics.weightCommands(), c));
    }

    private void send(String topic, String key, byte[] value) {
        producer.send(new ProducerRecord<>(topic, key, value));
        producer.flush();
    }

    /** Every answer so far, once {@code done} holds for them. */
    private List<MigrationStatus> answersUntil(java.util.function.Predicate<List<MigrationStatus>> done) {
        List<ConsumerRecord<String, MigrationStatus>> records = KAFKA.broker().consumeUntil(topics.migrationStatus(),
                new StringDeserializer(), statusSerde.deserializer(),
                rs -> done.test(rs.stream().map(ConsumerRecord::value).toList()), WAIT);
        records.forEach(r -> assertThat(r.key()).isEqualTo(r.value().getMigrationId()));
        return records.stream().map(ConsumerRecord::value).toList();
    }

    private static long count(List<MigrationStatus> answers, MigrationPhase phase, StepResult outcome) {
        return answers.stream().filter(a -> a.getPhase() == phase && a.getOutcome() == outcome).count();
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

    @Test
    void commandsAreAppliedAndAnsweredDuplicatesChangeNothingBadRecordsAreDeadLetteredAndStateSurvivesARestart()
            throws Exception {
        String id = "c1/b1/" + SLOT + "@n1";
        AgentState beforeRestart;
        try (CommandAgent agent = agentOfN2()) {
            send("n2", Commands.weight("n2", 3, 1.2));
            send(Commands.step(COPY, id, SLOT, "n1", "n2", "n2", 0));

            List<MigrationStatus> copied = answersUntil(as -> count(as, COPY, StepResult.DONE) == 1);
            assertThat(copied.get(0).getOutcome()).isEqualTo(StepResult.PROGRESS);
            MigrationStatus copyDone = copied.stream().filter(a -> a.getOutcome() == StepResult.DONE).findFirst().orElseThrow();
            assertThat(copyDone.getBytesCopied()).isEqualTo(stores.get("n1").shardBytes().get(SLOT));
            assertThat(copyDone.getNode()).isEqualTo("n2");
            assertThat(copyDone.getCommandId()).isEqualTo(id + "/COPY/n2");

            send(Commands.step(PREPARE, id, SLOT, "n1", "n2", "n2"));
            answersUntil(as -> count(as, PREPARE, StepResult.DONE) == 1);
            send(Commands.step(COMMIT, id, SLOT, "n1", "n2", "n2"));
            answersUntil(as -> count(as, COMMIT, StepResult.DONE) == 1);
            AgentState committed = agent.state();
            assertThat(committed.migration(id).stage()).isEqualTo(Stage.COMMITTED);

            // a duplicate COMMIT: answered identically, nothing changes
            send(Commands.step(COMMIT, id, SLOT, "n1", "n2", "n2"));
            List<MigrationStatus> commits = answersUntil(as -> count(as, COMMIT, StepResult.DONE) == 2).stream()
                    .filter(a -> a.getPhase() == COMMIT).toList();
            assertThat(commits).hasSize(2);
            assertThat(commits).extracting(MigrationStatus::getCommandId, MigrationStatus::getOutcome,
                    MigrationStatus::getBytesCopied, MigrationStatus::getMessage, MigrationStatus::getNode)
                    .containsOnly(org.assertj.core.groups.Tuple.tuple(id + "/COMMIT/n2", StepResult.DONE, copyDone.getBytesCopied(), null, "n2"));
            assertThat(agent.state()).isEqualTo(committed);
            assertThat(stores.get("n2").keys(SLOT)).containsExactlyElementsOf(stores.get("n1").keys(SLOT));

            // bad records: undecodable, and a value naming another node under this node's key; another node's command is not ours
            send(topics.migrationCommands(), "n2", "not avro".getBytes(StandardCharsets.UTF_8));
            send("n2", Commands.weight("n3", 9, 1.1));
            send(Commands.step(COPY, "c1/b1/9@n2", 9, "n2", "n3", "n3", 0));
            List<ConsumerRecord<String, byte[]>> dead = KAFKA.broker().consumeUntil(topics.dlq(), new StringDeserializer(),
                    new ByteArrayDeserializer(), 2, WAIT);
            assertThat(dead).hasSize(2);
            assertThat(dead).extracting(r -> DeadLetter.fromHeaders(r.headers()).sourceTopic())
                    .containsExactlyInAnyOrder(topics.migrationCommands(), topics.weightCommands());
            assertThat(dead).extracting(r -> DeadLetter.fromHeaders(r.headers()).reason())
                    .anySatisfy(reason -> assertThat(reason).startsWith("undecodable"))
                    .anySatisfy(reason -> assertThat(reason).contains("names node 'n3'"));
            await(() -> agent.state().weightEpoch() == 3, "the weight command is applied");
            assertThat(stores.get("n2").weight()).isEqualTo(1.2);
            assertThat(agent.deadLetters()).isEqualTo(2);
            assertThat(agent.stoppedBy()).isEmpty();
            beforeRestart = agent.state();
        }

        int answersBefore = answersUntil(as -> count(as, COMMIT, StepResult.DONE) == 2).size();
        try (CommandAgent restarted = agentOfN2()) {
            assertThat(restarted.state()).isEqualTo(beforeRestart);
            // late duplicates of COPY and PREPARE of the committed migration: DONE, the same bytes, no new copy
            send(Commands.step(COPY, id, SLOT, "n1", "n2", "n2", 0));
            send(Commands.step(PREPARE, id, SLOT, "n1", "n2", "n2"));
            List<MigrationStatus> all = answersUntil(as -> count(as, PREPARE, StepResult.DONE) == 2);
            // committed offsets: nothing before the new commands was replayed and answered again
            assertThat(all).hasSize(answersBefore + 2);
            MigrationStatus copyAgain = all.get(all.size() - 2);
            assertThat(copyAgain.getPhase()).isEqualTo(COPY);
            assertThat(copyAgain.getOutcome()).isEqualTo(StepResult.DONE);
            assertThat(copyAgain.getBytesCopied()).isEqualTo(stores.get("n1").shardBytes().get(SLOT));
            assertThat(all.get(all.size() - 1).getPhase()).isEqualTo(PREPARE);
            assertThat(restarted.state()).isEqualTo(beforeRestart);
        }
    }
}
