package io.skewguard.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.store.ForwardingNodeStore;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A command whose application throws the same way every time: it ends in the dead-letter topic
 * with its reason and the agent applies the next command. Before, the agent stopped on it, and a
 * restarted agent read it again and stopped again.
 */
class CommandAgentPoisonIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void aCommandWhoseApplicationAlwaysThrowsIsDeadLetteredWithItsReasonAndTheNextCommandIsApplied() throws Exception {
        Topics topics = Topics.defaults();
        KAFKA.broker().createTopics(1, topics.weightCommands(), topics.migrationCommands(), topics.migrationStatus(), topics.dlq());
        Map<String, Object> kafka = new HashMap<>();
        kafka.put("bootstrap.servers", KAFKA.bootstrapServers());
        kafka.put("schema.registry.url", "mock://command-agent-poison");
        // the store cannot take weight epoch 7, however often it is asked
        ForwardingNodeStore store = new ForwardingNodeStore(new InMemoryNodeStore("n2", 16, System::currentTimeMillis, n -> null)) {
            @Override
            public void applyWeight(long epoch, double weight) {
                if (epoch == 7) {
                    throw new IllegalStateException("cannot apply weight epoch 7");
                }
                super.applyWeight(epoch, weight);
            }
        };
        AgentSettings settings = new AgentSettings("c1", "n2", 16, topics, dir.resolve("n2.state"),
                Duration.ofMillis(100), Duration.ofMillis(50), kafka);
        try (SchemaRegistrySerde<WeightCommand> serde = SchemaRegistrySerde.of(WeightCommand.class, kafka, false);
                KafkaProducer<String, byte[]> producer = KAFKA.broker().producer(new StringSerializer(), new ByteArraySerializer());
                CommandAgent agent = new CommandAgent(settings, store, System::currentTimeMillis).start()) {
            for (long epoch : new long[] {7, 8}) {
                producer.send(new ProducerRecord<>(topics.weightCommands(), "n2",
                        serde.serializer().serialize(topics.weightCommands(), Commands.weight("n2", epoch, 0.5)))).get();
            }

            List<ConsumerRecord<byte[], byte[]>> dlq = KAFKA.broker().consumeUntil(topics.dlq(), new ByteArrayDeserializer(),
                    new ByteArrayDeserializer(), 1, WAIT);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (agent.state().weightEpoch() != 8 && agent.stoppedBy().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }

            assertThat(agent.stoppedBy()).isEmpty();
            assertThat(agent.state().weightEpoch()).as("the command after it").isEqualTo(8);
            assertThat(dlq).hasSize(1);
            DeadLetter letter = DeadLetter.fromHeaders(dlq.get(0).headers());
            assertThat(letter.sourceTopic()).isEqualTo(topics.weightCommands());
            assertThat(letter.sourceOffset()).isEqualTo(0);
            assertThat(letter.reason()).isEqualTo("poison: IllegalStateException: 'cannot apply weight epoch 7'");
            assertThat(agent.deadLetters()).isEqualTo(1);
        }
    }
}
