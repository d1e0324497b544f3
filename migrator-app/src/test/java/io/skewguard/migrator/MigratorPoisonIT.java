package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.runtime.lifecycle.StreamsService;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.Topics;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.internals.InMemoryKeyValueStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A record whose processing in the coordinator throws the same way every time, on a real broker
 * with exactly_once_v2 and the app's {@link StreamsService}: it ends in the dead-letter topic with
 * its reason and the next record is processed. Before, the stream thread died on it, its
 * replacement read it again and died again, until the process gave up.
 */
class MigratorPoisonIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration DEADLINE = Duration.ofSeconds(90);

    @TempDir
    Path stateDir;

    @Test
    void aRecordWhoseProcessingAlwaysThrowsIsDeadLetteredWithItsReasonAndTheNextRecordIsProcessed() throws Exception {
        String registry = "mock://migrator-poison-" + UUID.randomUUID();
        Topics topics = Topics.defaults();
        KAFKA.broker().createTopics(1, topics.alerts(), topics.reports(), topics.nodeCapacity(), topics.migrationStatus(),
                topics.migrationCommands(), topics.dlq());
        KAFKA.broker().createCompactedTopics(1, topics.slotTable(), topics.membership(), topics.control());
        KAFKA.broker().createTopics(1, topics.proposals(), topics.decisions());
        MigratorSettings settings = MigratorSettings.of(Map.of(
                "bootstrap.servers", KAFKA.bootstrapServers(),
                "schema.registry.url", registry,
                "state.dir", stateDir.toString(),
                "commit-interval", "100ms"));
        // the capacity store refuses the rows of one node: a collaborator that fails the same way every time
        StreamsService service = new StreamsService("migrator-streams",
                MigratorTopology.build(settings, name -> name.equals(CoordinatorProcessor.CAPACITY_STORE)
                        ? refusing(name, CoordinatorProcessor.storeKey("it", "poison-node")) : Stores.inMemoryKeyValueStore(name)),
                MigratorTopology.streamsConfig(settings));
        try (KafkaProducer<String, SpecificRecord> producer = KAFKA.broker().producer(new StringSerializer(),
                MigratorIT.anySerializer(registry))) {
            producer.send(new ProducerRecord<>(topics.nodeCapacity(), "poison-node", capacity("poison-node"))).get();
            producer.send(new ProducerRecord<>(topics.nodeCapacity(), "n1", capacity("n1"))).get();
            service.start();

            List<ConsumerRecord<byte[], byte[]>> dlq = KAFKA.broker().consumeUntil(topics.dlq(), new ByteArrayDeserializer(),
                    new ByteArrayDeserializer(), 1, DEADLINE);
            awaitStored(service, CoordinatorProcessor.storeKey("it", "n1"));

            assertThat(dlq).hasSize(1);
            assertThat(new String(dlq.get(0).key(), StandardCharsets.UTF_8)).isEqualTo("it");
            DeadLetter letter = DeadLetter.fromHeaders(dlq.get(0).headers());
            assertThat(letter.reason()).startsWith("poison: IllegalStateException: refused it/poison-node")
                    .endsWith("(in coordinator)");
            assertThat(service.deadLetters().orElseThrow().count("poison")).isEqualTo(1);
            assertThat(service.failure()).as("no stream thread died").isEmpty();
        } finally {
            service.close(Duration.ofSeconds(30));
        }
    }

    private static CapacityEvent capacity(String node) {
        return new CapacityEvent("it", node, 50L, 100L, null, List.of(), Instant.now());
    }

    private static void awaitStored(StreamsService service, String key) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                ReadOnlyKeyValueStore<String, CapacityEvent> store = service.streams().store(
                        StoreQueryParameters.fromNameAndType(CoordinatorProcessor.CAPACITY_STORE, QueryableStoreTypes.keyValueStore()));
                if (store.get(key) != null) {
                    return;
                }
            } catch (RuntimeException notQueryableYet) {
                // rebalancing or restoring: ask again
            }
            Thread.sleep(100);
        }
        throw new AssertionError("waited " + DEADLINE + " for " + key + " in the capacity store");
    }

    /** An in-memory store that throws on every write of {@code refusedKey}. */
    private static KeyValueBytesStoreSupplier refusing(String name, String refusedKey) {
        Bytes refused = Bytes.wrap(refusedKey.getBytes(StandardCharsets.UTF_8));
        return new KeyValueBytesStoreSupplier() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public KeyValueStore<Bytes, byte[]> get() {
                return new InMemoryKeyValueStore(name) {
                    @Override
                    public void put(Bytes key, byte[] value) {
                        if (key.equals(refused)) {
                            throw new IllegalStateException("refused " + refusedKey.replace('\0', '/'));
                        }
                        super.put(key, value);
                    }
                };
            }

            @Override
            public String metricsScope() {
                return "in-memory";
            }
        };
    }
}
