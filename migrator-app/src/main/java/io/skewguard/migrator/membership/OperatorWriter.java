package io.skewguard.migrator.membership;

import io.skewguard.runtime.settings.Durations;
import io.skewguard.schemas.auth.NodeSignature;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes one operator record (a membership record of {@code skewguard node}, a control of
 * {@code skewguard ctl}): idempotent producer, {@code acks=all}, and the command waits for the
 * acknowledgement, so that "written" means every in-sync replica has it. With the operator's key
 * the record carries its signature ({@code skew.sig} over topic, key and value), which the apps
 * check when they hold operator keys.
 */
public final class OperatorWriter {

    private OperatorWriter() {
    }

    /**
     * @param signer the operator's key, or null: unsigned
     * @param check the command that shows whether the record is there, for the message of a timeout
     * @return where the record landed, for the operator
     * @throws IllegalStateException when Kafka or the registry refuses or does not answer within {@code timeout}
     */
    public static <T extends SpecificRecord> String write(Properties producerProperties, Map<String, Object> serdeConfig, String topic,
            String key, T record, NodeSignature signer, Duration timeout, String clientId, String check) {
        Properties p = new Properties();
        p.putAll(producerProperties);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(timeout.toMillis()));
        String servers = String.valueOf(p.get(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG));
        // bounded waits everywhere: an unreachable broker must end the command, not hang it in send or close
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(timeout.toMillis()));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(timeout.toMillis()));
        @SuppressWarnings("unchecked")
        SchemaRegistrySerde<T> serde = SchemaRegistrySerde.of((Class<T>) record.getClass(), serdeConfig, false);
        KafkaProducer<String, byte[]> producer = null;
        try {
            byte[] value = serde.serializer().serialize(topic, record);
            RecordHeaders headers = new RecordHeaders();
            if (signer != null) {
                signer.signInto(headers, topic, key.getBytes(java.nio.charset.StandardCharsets.UTF_8), value);
            }
            producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
            RecordMetadata m = producer.send(new ProducerRecord<>(topic, null, key, value, headers))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            producer.flush();
            return topic + " partition " + m.partition() + " offset " + m.offset() + " (key " + key + ")";
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot write " + key + " to " + topic + " on " + servers + ": no acknowledgement within "
                    + Durations.format(timeout) + "; it may or may not have been written: check with " + check, e);
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
