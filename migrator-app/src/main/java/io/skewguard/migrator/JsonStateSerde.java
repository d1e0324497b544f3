package io.skewguard.migrator;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The coordinator's own state records (a cluster's {@code RepairState}, a node's {@code Member}) as JSON:
 * readable in the changelog with any console consumer,
 * and tolerant of fields added later (unknown fields are ignored on read).
 */
final class JsonStateSerde {

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private JsonStateSerde() {}

    /** The serde of {@code type}; {@code what} names it in errors ("repair state"). */
    static <T> Serde<T> of(Class<T> type, String what) {
        return Serdes.serdeFrom(
                (topic, state) -> {
                    if (state == null) {
                        return null;
                    }
                    try {
                        return JSON.writeValueAsBytes(state);
                    } catch (IOException e) {
                        throw new SerializationException(topic + ": cannot write " + what, e);
                    }
                },
                (topic, bytes) -> {
                    if (bytes == null) {
                        return null;
                    }
                    try {
                        return JSON.readValue(bytes, type);
                    } catch (IOException e) {
                        throw new SerializationException(topic + ": cannot read " + what, e);
                    }
                });
    }
}
