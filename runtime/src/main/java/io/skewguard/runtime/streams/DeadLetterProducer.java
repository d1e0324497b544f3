package io.skewguard.runtime.streams;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The {@link DeadLetterSink} of a running Streams app: its own idempotent producer ({@code acks=all}),
 * configured like the app's producers (same brokers, same security keys), waiting for each record's
 * acknowledgement.
 *
 * <p>Why not the stream thread's own producer: Kafka Streams 4.1's exception handlers cannot hand a
 * record back to be written in the task's transaction. Why that is safe under exactly_once_v2: the
 * dead letter is acknowledged before the handler lets processing go on, hence before the input
 * offset can commit; if the transaction then aborts, the record is processed again and may be
 * dead-lettered a second time, never zero times.
 */
public final class DeadLetterProducer implements DeadLetterSink, AutoCloseable {

    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

    private final KafkaProducer<byte[], byte[]> producer;

    /** A producer for the app whose Kafka Streams configuration is {@code streamsProperties}. */
    public DeadLetterProducer(String clientId, Properties streamsProperties) {
        Map<String, Object> config = new StreamsConfig(streamsProperties).getProducerConfigs(clientId);
        config.remove(ProducerConfig.TRANSACTIONAL_ID_CONFIG);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        this.producer = new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    @Override
    public void write(ProducerRecord<byte[], byte[]> letter) {
        try {
            producer.send(letter).get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while writing a dead letter to " + letter.topic(), e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw new KafkaException("could not write a dead letter to " + letter.topic() + ": " + cause, cause);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(10));
    }
}
