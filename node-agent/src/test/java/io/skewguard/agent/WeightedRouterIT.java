package io.skewguard.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The router against a real broker: it loads both compacted tables and follows later rows. */
class WeightedRouterIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String SCOPE = "weighted-router-it";
    private static final Map<String, Object> SERDE = Map.of("schema.registry.url", "mock://" + SCOPE);

    @AfterAll
    static void dropRegistry() {
        MockSchemaRegistry.drop(SCOPE);
    }

    @Test
    void loadsTheTablesFromTheBeginningAndFollowsNewWeights() throws Exception {
        EmbeddedKafka broker = KAFKA.broker();
        Topics topics = new Topics("router-it.");
        broker.createCompactedTopics(2, topics.nodeWeights(), topics.slotTable());
        SchemaRegistrySerde<NodeWeight> weights = SchemaRegistrySerde.of(NodeWeight.class, SERDE, false);
        SchemaRegistrySerde<SlotAssignment> slots = SchemaRegistrySerde.of(SlotAssignment.class, SERDE, false);

        try (KafkaProducer<String, NodeWeight> weightProducer = broker.producer(new StringSerializer(), weights.serializer());
             KafkaProducer<String, SlotAssignment> slotProducer = broker.producer(new StringSerializer(), slots.serializer())) {
            for (int s = 0; s < 4; s++) {
                slotProducer.send(new ProducerRecord<>(topics.slotTable(), "c1/" + s, SlotAssignment.newBuilder()
                        .setCluster("c1").setSlot(s).setRoutingEpoch(0).setCandidates(List.of("a", "b"))
                        .setUpdatedAt(Instant.EPOCH).build()));
            }
            weightProducer.send(new ProducerRecord<>(topics.nodeWeights(), "c1/a", row("a", 1, 0.5)));
            weightProducer.send(new ProducerRecord<>(topics.nodeWeights(), "c1/b", row("b", 1, 2.0)));
            weightProducer.send(new ProducerRecord<>(topics.nodeWeights(), "c2/a", NodeWeight.newBuilder(row("a", 9, 1.5))
                    .setCluster("c2").build()));
            weightProducer.flush();
            slotProducer.flush();

            Map<String, Object> consumer = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
            try (WeightedRouter router = WeightedRouter.start(RoutingView.empty("c1", 4), topics, consumer, SERDE)) {
                assertThat(router.awaitCaughtUp(Duration.ofSeconds(60))).isTrue();
                assertThat(router.view().complete()).isTrue();
                assertThat(router.view().weight("a")).isEqualTo(0.5);
                assertThat(router.view().weight("b")).isEqualTo(2.0);
                int toB = 0;
                for (int k = 0; k < 10_000; k++) {
                    toB += router.pick("key-" + k).equals("b") ? 1 : 0;
                }
                assertThat(toB / 10_000.0).as("b's share with weights 0.5 : 2").isBetween(0.77, 0.83);

                weightProducer.send(new ProducerRecord<>(topics.nodeWeights(), "c1/a", row("a", 2, 1.9)));
                weightProducer.flush();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (router.view().weightEpoch("a") < 2 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertThat(router.view().weight("a")).isEqualTo(1.9);
            }
        } finally {
            weights.close();
            slots.close();
        }
    }

    private static NodeWeight row(String node, long epoch, double weight) {
        return NodeWeight.newBuilder().setCluster("c1").setNode(node).setEpoch(epoch).setWeight(weight)
                .setUpdatedAt(Instant.EPOCH).build();
    }
}
