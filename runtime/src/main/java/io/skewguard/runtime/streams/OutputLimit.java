package io.skewguard.runtime.streams;

import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The largest value a Streams app hands its producer, checked when the value is serialized.
 *
 * <p>Why at serialization: under exactly_once_v2 a record the producer refuses as too large puts
 * the task's transaction in an error state, so the record can only be retried, forever. A value
 * refused by its serializer never reaches the producer: {@link PoisonPills.Production} dead-letters
 * the input that produced it ({@code unserializable: RecordTooLargeException: ...}) and processing
 * goes on. The limit is the producer's {@code max.request.size} less {@value #HEADROOM} bytes for
 * the key, the headers and the batch's own framing.
 */
public final class OutputLimit {

    /** Bytes of a request left for everything but the value. */
    static final int HEADROOM = 16 * 1024;

    private final int maxValueBytes;

    private OutputLimit(int maxValueBytes) {
        this.maxValueBytes = maxValueBytes;
    }

    /** The limit for an app whose Kafka Streams configuration is {@code streamsProperties}. */
    public static OutputLimit of(Properties streamsProperties) {
        // as Kafka Streams resolves it: producer.-prefixed first, then the plain key, then Kafka's default
        Object max = streamsProperties.get(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG));
        if (max == null) {
            max = streamsProperties.getOrDefault(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 1024 * 1024);
        }
        int request = Integer.parseInt(max.toString().trim());
        return new OutputLimit(Math.max(1, request - Math.min(HEADROOM, request / 2)));
    }

    /** The largest value, in bytes, an output may serialize to. */
    public int maxValueBytes() {
        return maxValueBytes;
    }

    /** {@code serde} whose serializer refuses values over the limit. */
    public <T> Serde<T> bound(Serde<T> serde) {
        return Serdes.serdeFrom(bound(serde.serializer()), serde.deserializer());
    }

    /** {@code serializer}, refusing values over the limit with a {@link RecordTooLargeException}. */
    public <T> Serializer<T> bound(Serializer<T> serializer) {
        return new Serializer<>() {
            @Override
            public void configure(Map<String, ?> configs, boolean isKey) {
                serializer.configure(configs, isKey);
            }

            @Override
            public byte[] serialize(String topic, T data) {
                return checked(topic, serializer.serialize(topic, data));
            }

            @Override
            public byte[] serialize(String topic, Headers headers, T data) {
                return checked(topic, serializer.serialize(topic, headers, data));
            }

            @Override
            public void close() {
                serializer.close();
            }
        };
    }

    private byte[] checked(String topic, byte[] bytes) {
        if (bytes != null && bytes.length > maxValueBytes) {
            throw new RecordTooLargeException("a " + bytes.length + "-byte value for " + topic + " is over the "
                    + maxValueBytes + " bytes this app writes (max.request.size less " + HEADROOM + " bytes)");
        }
        return bytes;
    }
}
