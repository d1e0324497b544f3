package io.skewguard.runtime.settings;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;

/**
 * A rule a parsed value must follow, with the words an error and the docs use for it ("at least 1",
 * "one of exactly_once_v2, at_least_once").
 *
 * @param allowed what is allowed, in words
 * @param test whether a parsed value follows the rule
 */
public record Validator(String allowed, Predicate<Object> test) {

    /** Every value. */
    public static final Validator ANY = new Validator("", v -> true);

    public static Validator atLeast(double min) {
        return new Validator("at least " + number(min), v -> ((Number) v).doubleValue() >= min);
    }

    public static Validator between(double min, double max) {
        return new Validator("from " + number(min) + " to " + number(max),
                v -> ((Number) v).doubleValue() >= min && ((Number) v).doubleValue() <= max);
    }

    /** min &lt;= v &lt; max. */
    public static Validator inRange(double min, double maxExclusive) {
        return new Validator("at least " + number(min) + " and below " + number(maxExclusive),
                v -> ((Number) v).doubleValue() >= min && ((Number) v).doubleValue() < maxExclusive);
    }

    public static Validator positive() {
        return new Validator("greater than 0", v -> v instanceof Duration d
                ? !d.isNegative() && !d.isZero() : ((Number) v).doubleValue() > 0);
    }

    public static Validator notNegative() {
        return new Validator("0 or more", v -> v instanceof Duration d ? !d.isNegative() : ((Number) v).doubleValue() >= 0);
    }

    /** One of {@code choices}, case-insensitive. */
    public static Validator oneOf(String... choices) {
        List<String> c = List.of(choices);
        return new Validator("one of " + String.join(", ", c),
                v -> c.stream().anyMatch(x -> x.equalsIgnoreCase(v.toString())));
    }

    public static Validator notBlank() {
        return new Validator("non-empty", v -> !v.toString().isBlank());
    }

    /** A custom rule. */
    public static Validator of(String allowed, Predicate<Object> test) {
        return new Validator(allowed, test);
    }

    private static String number(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : String.format(Locale.ROOT, "%s", d);
    }
}
