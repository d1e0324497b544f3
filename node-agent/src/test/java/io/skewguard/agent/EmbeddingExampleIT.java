package io.skewguard.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.store.RocksDbNodeStore;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The embedding guide's example (docs/agents.md) runs: writes stored and reported, capacity reported, weights applied. */
class EmbeddingExampleIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void theGuidesNodeStoresAndReportsItsWritesReportsItsCapacityAndAppliesWeightCommands() throws Exception {
        Topics topics = Topics.defaults();
        KAFKA.broker().createTopics(1, topics.weightCommands(), topics.migrationCommands(), topics.migrationStatus(),
                topics.dlq(), topics.nodeWrites(), topics.nodeCapacity());
        KAFKA.broker().createCompactedTopics(1, topics.nodeWeights(), topics.slotTable());
        Map<String, Object> kafka = Map.of("bootstrap.servers", KAFKA.bootstrapServers(),
                "schema.registry.url", "mock://embedding-example-it");

        try (EmbeddingExample node = new EmbeddingExample("c1", "n1", List.of("n1"), dir, 1L << 30, kafka).start(WAIT);
             SchemaRegistrySerde<WriteEvent> writes = SchemaRegistrySerde.of(WriteEvent.class, kafka, false);
             SchemaRegistrySerde<CapacityEvent> capacity = SchemaRegistrySerde.of(CapacityEvent.class, kafka, false);
             SchemaRegistrySerde<WeightCommand> weights = SchemaRegistrySerde.of(WeightCommand.class, kafka, false)) {
            for (int i = 0; i < 200; i++) {
                assertThat(node.write("object-" + i, 1, new byte[100])).isEqualTo("n1");
            }
            assertThat(node.store().get("object-7")).isPresent();

            List<WriteEvent> reported = KAFKA.broker().consumeUntil(topics.nodeWrites(), new StringDeserializer(),
                    writes.deserializer(), rs -> rs.stream().mapToLong(r -> r.value().getOps()).sum() >= 200, WAIT)
                    .stream().map(ConsumerRecord::value).toList();
            assertThat(reported.stream().mapToLong(WriteEvent::getOps).sum()).isEqualTo(200);
            assertThat(reported).extracting(WriteEvent::getNode).containsOnly("n1");
            KAFKA.broker().consumeUntil(topics.nodeCapacity(), new StringDeserializer(), capacity.deserializer(),
                    rs -> rs.stream().anyMatch(r -> r.value().getUsedBytes() > 0), WAIT);

            try (KafkaProducer<String, byte[]> producer = KAFKA.broker().producer(new StringSerializer(), new ByteArraySerializer())) {
                WeightCommand c = Commands.weight("n1", 4, 1.25);
                producer.send(new ProducerRecord<>(topics.weightCommands(), "n1",
                        weights.serializer().serialize(topics.weightCommands(), c)));
            }
            RocksDbNodeStore store = (RocksDbNodeStore) node.store();
            long deadline = System.nanoTime() + WAIT.toNanos();
            // the agent records the command after the store has applied it
            while (node.agent().state().weightEpoch() != 4 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(node.agent().state().weightEpoch()).isEqualTo(4);
            assertThat(store.weight()).isEqualTo(1.25);
            assertThat(store.weightEpoch()).isEqualTo(4);
        }
    }
}
