package io.skewguard.agent;

import static io.skewguard.schemas.MigrationPhase.COPY;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.command.Stage;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.RegistryOverHttp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent while its schema registry is down: commands whose schema it has not fetched yet wait
 * for the registry instead of going to the dead-letter topic, nothing past them is committed, and
 * they are applied and answered once the registry is back.
 */
class CommandAgentRegistryOutageIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final int SLOTS = 16;
    private static final int SLOT = 5;

    @TempDir
    Path dir;

    private final String scope = "agent-outage-" + UUID.randomUUID();
    private final Topics topics = new Topics("outage" + UUID.randomUUID().toString().substring(0, 8) + ".");
    private final Map<String, InMemoryNodeStore> stores = new ConcurrentHashMap<>();
    private final Map<String, Object> testSerdes = Map.of("schema.registry.url", "mock://" + scope);
    private KafkaProducer<String, byte[]> producer;

    @AfterEach
    void tearDown() {
        if (producer != null) {
            producer.close();
        }
        MockSchemaRegistry.drop(scope);
    }

    @Test
    void commandsReadWhileTheRegistryIsDownAreAppliedWhenItIsBackAndNoneIsDeadLettered() throws Exception {
        KAFKA.broker().createTopics(1, topics.weightCommands(), topics.migrationCommands(), topics.migrationStatus(), topics.dlq());
        producer = KAFKA.broker().producer(new StringSerializer(), new ByteArraySerializer());
        for (String node : List.of("n1", "n2")) {
            stores.put(node, new InMemoryNodeStore(node, SLOTS, System::currentTimeMillis, stores::get));
        }
        for (int i = 0, found = 0; found < 20; i++) {
            if (stores.get("n1").slotOf("object-" + i) == SLOT) {
                stores.get("n1").put("object-" + i, 1, new byte[100]);
                found++;
            }
        }
        var weights = SchemaRegistrySerde.of(WeightCommand.class, testSerdes, false);
        var migrations = SchemaRegistrySerde.of(MigrationCommand.class, testSerdes, false);
        var statuses = SchemaRegistrySerde.of(MigrationStatus.class, testSerdes, false);
        String id = "c1/b1/" + SLOT + "@n1";

        try (RegistryOverHttp registry = RegistryOverHttp.serve(scope)) {
            Map<String, Object> kafka = new HashMap<>();
            kafka.put("bootstrap.servers", KAFKA.bootstrapServers());
            kafka.put("schema.registry.url", registry.url());
            AgentSettings settings = new AgentSettings("c1", "n2", SLOTS, topics, dir.resolve("n2.state"),
                    Duration.ofMillis(100), Duration.ofMillis(50), kafka);
            try (CommandAgent agent = new CommandAgent(settings, stores.get("n2"), System::currentTimeMillis).start()) {
                send(topics.weightCommands(), weights.serializer().serialize(topics.weightCommands(), Commands.weight("n2", 1, 1.1)));
                await(() -> agent.state().weightEpoch() == 1, "the first weight command is applied");

                registry.stop();
                // a schema the agent has not fetched yet, and commands behind it on the same partition
                send(topics.migrationCommands(), migrations.serializer().serialize(topics.migrationCommands(),
                        Commands.step(COPY, id, SLOT, "n1", "n2", "n2", 0)));
                for (long epoch = 2; epoch <= 4; epoch++) {
                    send(topics.weightCommands(), weights.serializer().serialize(topics.weightCommands(),
                            Commands.weight("n2", epoch, 1 + epoch / 10.0)));
                }
                await(() -> registry.attemptsWhileStopped() >= 3, "the agent asked the stopped registry again and again");
                assertThat(agent.state().migrations()).as("the command waits for its schema").isEmpty();
                assertThat(agent.stoppedBy()).isEmpty();

                registry.restart();
                await(() -> agent.state().migration(id) != null && agent.state().migration(id).stage() == Stage.COPIED,
                        "the COPY read during the outage is carried out");
                await(() -> agent.state().weightEpoch() == 4, "every weight command is applied");
                List<ConsumerRecord<String, MigrationStatus>> answers = KAFKA.broker().consumeUntil(topics.migrationStatus(),
                        new StringDeserializer(), statuses.deserializer(),
                        rs -> rs.stream().anyMatch(r -> r.value().getOutcome() == StepResult.DONE), WAIT);
                assertThat(answers).extracting(r -> r.value().getMigrationId()).containsOnly(id);

                // a marker: the one dead letter is this bad record, none came from the outage
                send(topics.migrationCommands(), "not avro".getBytes(StandardCharsets.UTF_8));
                List<ConsumerRecord<String, byte[]>> dead = KAFKA.broker().consumeUntil(topics.dlq(), new StringDeserializer(),
                        new ByteArrayDeserializer(), 1, WAIT);
                assertThat(dead).singleElement().satisfies(r ->
                        assertThat(DeadLetter.fromHeaders(r.headers()).reason()).startsWith("undecodable: "));
                await(() -> agent.deadLetters() == 1, "the marker is counted");
                assertThat(agent.stoppedBy()).isEmpty();
            }
        }
    }

    private void send(String topic, byte[] value) {
        producer.send(new ProducerRecord<>(topic, "n2", value));
        producer.flush();
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
