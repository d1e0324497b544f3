package io.skewguard.migrator;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.skewguard.migrator.policy.Member;
import java.io.IOException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * A node's membership record as the coordinator keeps it, JSON: readable in the changelog with any console consumer,
 * and tolerant of fields added later (unknown fields are ignored on read).
 */
final class MemberSerde {

    private static final ObjectMapper JSON = new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private MemberSerde() {}

    static Serde<Member> create() {
        return Serdes.serdeFrom(
                (topic, state) -> {
                    if (state == null) {
                        return null;
                    }
                    try {
                        return JSON.writeValueAsBytes(state);
                    } catch (IOException e) {
                        throw new SerializationException(topic + ": cannot write membership record", e);
                    }
                },
                (topic, bytes) -> {
                    if (bytes == null) {
                        return null;
                    }
                    try {
                        return JSON.readValue(bytes, Member.class);
                    } catch (IOException e) {
                        throw new SerializationException(topic + ": cannot read membership record", e);
                    }
                });
    }
}
