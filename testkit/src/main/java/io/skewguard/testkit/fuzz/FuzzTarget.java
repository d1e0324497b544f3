package io.skewguard.testkit.fuzz;

import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Serializer;

/**
 * One input topic of one app, as the corpus generator needs it.
 *
 * @param topic the input topic
 * @param serializer writes a record in the registry wire format (registering its schema)
 * @param good a fresh good record on every call; the invalid values are set on such a record
 * @param key the key the app expects for a record (e.g. its node or cluster); null for none
 * @param invalid the contract violations of this record type that the app must refuse
 * @param kinds the kinds of bad record this app must refuse on this topic
 * @param <T> the record class
 */
public record FuzzTarget<T extends SpecificRecord>(String topic, Serializer<T> serializer, Supplier<T> good,
        Function<T, String> key, List<Invalid<T>> invalid, Set<BadRecord.Kind> kinds) {

    /** Every kind except {@link BadRecord.Kind#NULL_KEY}, which is bad only where an app needs the key. */
    public static final Set<BadRecord.Kind> STRUCTURAL = Set.copyOf(EnumSet.complementOf(EnumSet.of(BadRecord.Kind.NULL_KEY)));

    public FuzzTarget {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(serializer, "serializer");
        Objects.requireNonNull(good, "good");
        Objects.requireNonNull(key, "key");
        invalid = List.copyOf(invalid);
        kinds = Set.copyOf(kinds);
    }

    /** A target with every kind but a missing key. */
    public static <T extends SpecificRecord> FuzzTarget<T> of(String topic, Serializer<T> serializer, Supplier<T> good,
            Function<T, String> key, List<Invalid<T>> invalid) {
        return new FuzzTarget<>(topic, serializer, good, key, invalid, STRUCTURAL);
    }

    /** This target, with a record without key counted as bad too. */
    public FuzzTarget<T> keyRequired() {
        Set<BadRecord.Kind> all = EnumSet.copyOf(kinds);
        all.add(BadRecord.Kind.NULL_KEY);
        return new FuzzTarget<>(topic, serializer, good, key, invalid, all);
    }
}
