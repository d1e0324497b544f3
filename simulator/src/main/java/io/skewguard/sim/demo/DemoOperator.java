package io.skewguard.sim.demo;

import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The operator of the demo's scenario: writes the membership records that
 * {@code skewguard node drain <node> --cluster <cluster>} (and {@code --cancel}) writes, on the
 * membership topic, key {@code <cluster>/<node>}, source {@code operator}. The migrator carries the
 * drain out; this class only asks, like the operator's command. Records carry simulated time, like
 * every event of the demo.
 */
final class DemoOperator implements AutoCloseable {

    static final String SOURCE = "operator";
    static final String DRAIN_REASON = "drain requested by the demo scenario";
    static final String CANCEL_REASON = "drain cancelled by the demo scenario";
    private static final Duration SEND = Duration.ofSeconds(30);

    private final String cluster;
    private final String topic;
    private final KafkaProducer<byte[], byte[]> producer;
    private final SchemaRegistrySerde<NodeMembership> serde;

    DemoOperator(String cluster, Topics topics, Map<String, String> clientKeys, String bootstrapServers,
                 Map<String, Object> serdeConfig, String clientId) {
        this.cluster = cluster;
        this.topic = topics.membership();
        Map<String, Object> config = new HashMap<>(clientKeys);
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        this.producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
        this.serde = SchemaRegistrySerde.of(NodeMembership.class, serdeConfig, false);
    }

    /** {@code skewguard node drain <node>}: a DRAINING record. */
    void drain(String node, long simulatedNow) {
        write(node, MembershipState.DRAINING, DRAIN_REASON, simulatedNow);
    }

    /** {@code skewguard node drain <node> --cancel}: an ACTIVE record. */
    void cancelDrain(String node, long simulatedNow) {
        write(node, MembershipState.ACTIVE, CANCEL_REASON, simulatedNow);
    }

    private void write(String node, MembershipState state, String reason, long simulatedNow) {
        NodeMembership record = NodeMembership.newBuilder()
                .setCluster(cluster)
                .setNode(node)
                .setState(state)
                .setSource(SOURCE)
                .setReason(reason)
                .setUpdatedAt(Instant.ofEpochMilli(simulatedNow))
                .build();
        byte[] key = (cluster + "/" + node).getBytes(StandardCharsets.UTF_8);
        try {
            // waited for: a drain the migrator never sees must stop the demo, not pass silently
            producer.send(new ProducerRecord<>(topic, null, simulatedNow, key, serde.serializer().serialize(topic, record)))
                    .get(SEND.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing " + state + " for " + node, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot write " + state + " for node " + node + " to " + topic + ": " + e, e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
        serde.close();
    }
}
