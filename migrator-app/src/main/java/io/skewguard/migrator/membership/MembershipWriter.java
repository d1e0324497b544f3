package io.skewguard.migrator.membership;

import io.skewguard.runtime.settings.Durations;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes one membership record, key {@code <cluster>/<node>}: idempotent producer, {@code acks=all},
 * and the command waits for the acknowledgement, so that "written" means every in-sync replica has it.
 */
final class MembershipWriter {

    private MembershipWriter() {
    }

    /**
     * @return where the record landed, for the operator
     * @throws IllegalStateException when Kafka or the registry refuses or does not answer within {@code timeout}
     */
    static String write(Properties producerProperties, Map<String, Object> serdeConfig, Topics topics, NodeMembership record,
            Duration timeout) {
        Properties p = new Properties();
        p.putAll(producerProperties);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "skewguard-node");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeout.toMillis()));
        String topic = topics.membership();
        String servers = String.valueOf(p.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG));
        String key = record.getCluster() + "/" + record.getNode();
        // bounded waits everywhere: an unreachable broker must end the command, not hang it in send or close
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeout.toMillis()));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeout.toMillis()));
        SchemaRegistrySerde<NodeMembership> serde = SchemaRegistrySerde.of(NodeMembership.class, serdeConfig, false);
        KafkaProducer<String, NodeMembership> producer = null;
        try {
            producer = new KafkaProducer<>(p, new StringSerializer(), serde.serializer());
            RecordMetadata m = producer.send(new ProducerRecord<>(topic, key, record)).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            producer.flush();
            return topic + " partition " + m.partition() + " offset " + m.offset() + " (key " + key + ")";
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot write " + key + " to " + topic + " on " + servers + ": no acknowledgement within "
                    + Durations.format(timeout) + "; it may or may not have been written: check with node list", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot write " + key + " to " + topic + " on " + servers + ": " + e.getCause().getMessage(), e);
        } catch (KafkaException e) {
            throw new IllegalStateException("cannot write " + key + " to " + topic + " on " + servers + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing " + key + " to " + topic, e);
        } finally {
            if (producer != null) {
                producer.close(Duration.ofSeconds(1));
            }
            serde.close();
        }
    }
}
