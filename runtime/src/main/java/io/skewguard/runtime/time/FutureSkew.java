package io.skewguard.runtime.time;

import io.skewguard.runtime.settings.Durations;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The one bound every app puts on event times from its input: an event time may lie at most
 * {@code max-future-skew} ahead of the receiving process's clock. Further ahead it is refused
 * ({@link #check}); within the bound it counts as read at the clock's time ({@link #bounded}) for
 * anything that moves time forward (stream time, the latest report of a node), so that no single
 * event can push a time past the clock and make the ordinary events after it look old.
 *
 * <p>Nothing bounds event times from below: a process catching up after downtime reads events much
 * older than its clock, and those are ordinary. What is too old is decided against stream time
 * (each app's own lateness rule), never against the clock.
 *
 * @param maxMs {@code max-future-skew} in milliseconds
 */
public record FutureSkew(long maxMs) {

    public FutureSkew {
        if (maxMs < 0) {
            throw new IllegalArgumentException("max-future-skew must be 0 or more, was " + maxMs + " ms");
        }
    }

    public static FutureSkew of(Duration max) {
        return new FutureSkew(max.toMillis());
    }

    /**
     * The dead-letter reason for {@code eventTime} read at {@code now} (both epoch ms), or empty
     * when it is not too far ahead. {@code what} names the time in the record ("event time",
     * "windowEnd", ...).
     */
    public Optional<String> check(String what, long eventTime, long now) {
        if (eventTime <= now || eventTime - now <= maxMs) {
            return Optional.empty();
        }
        return Optional.of("future: " + what + " " + Instant.ofEpochMilli(eventTime) + " is "
                + Durations.format(Duration.ofMillis(eventTime - now)) + " ahead of this process's clock ("
                + Instant.ofEpochMilli(now) + "; max-future-skew " + Durations.format(Duration.ofMillis(maxMs)) + ")");
    }

    /** The time {@code eventTime} counts as when read at {@code now}: never later than the clock. */
    public static long bounded(long eventTime, long now) {
        return Math.min(eventTime, now);
    }
}
