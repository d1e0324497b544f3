package io.skewguard.testkit.fuzz;

import java.util.function.Consumer;

/**
 * One way to break a valid record's contract while keeping it valid Avro: applied to a fresh good
 * record, {@code change} sets the offending value.
 *
 * @param name the defect, for people and dead-letter diagnostics (e.g. {@code "heatGini NaN"})
 * @param kind {@link BadRecord.Kind#INVALID_VALUE} or {@link BadRecord.Kind#OVERSIZED}
 * @param change sets the offending value on a mutable copy of a good record
 * @param <T> the record class
 */
public record Invalid<T>(String name, BadRecord.Kind kind, Consumer<T> change) {

    /** An invalid value. */
    public static <T> Invalid<T> value(String name, Consumer<T> change) {
        return new Invalid<>(name, BadRecord.Kind.INVALID_VALUE, change);
    }

    /** An oversized record. */
    public static <T> Invalid<T> oversized(String name, Consumer<T> change) {
        return new Invalid<>(name, BadRecord.Kind.OVERSIZED, change);
    }
}
