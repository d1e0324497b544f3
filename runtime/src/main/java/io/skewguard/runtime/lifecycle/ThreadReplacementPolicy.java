package io.skewguard.runtime.lifecycle;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;

/**
 * What to do when a Kafka Streams thread dies of an uncaught exception: replace it, at most
 * {@code maxReplacements} times within a sliding {@code window}; one more failure within the
 * window shuts the client down.
 *
 * <p>Why a limit: a replacement thread resumes from the last commit, so a failure caused by the
 * input (a poison record) comes back on every replacement, forever. Why a window rather than a
 * lifetime count: a process that runs for months may well lose a thread to a broker hiccup now and
 * then, and should not be restarted for the fourth one in a year. A replacement at time {@code t}
 * counts while {@code t > now - window}.
 *
 * <p>Thread-safe: stream threads may fail at the same moment. Pure otherwise: time is the caller's.
 */
public final class ThreadReplacementPolicy {

    /** Replacements allowed within one window unless told otherwise. */
    public static final int DEFAULT_MAX_REPLACEMENTS = 3;

    /** The sliding window unless told otherwise. */
    public static final Duration DEFAULT_WINDOW = Duration.ofMinutes(10);

    /** The answer for one failed thread. */
    public enum Decision {
        /** Start a new stream thread in place of the failed one. */
        REPLACE,
        /** Too many failures within the window: shut the client down, the process must stop. */
        SHUTDOWN
    }

    private final int maxReplacements;
    private final Duration window;
    private final Deque<Instant> replacements = new ArrayDeque<>();

    /**
     * @throws IllegalArgumentException if {@code maxReplacements} is negative or {@code window} is
     *     not positive
     */
    public ThreadReplacementPolicy(int maxReplacements, Duration window) {
        Objects.requireNonNull(window, "window");
        if (maxReplacements < 0) {
            throw new IllegalArgumentException("maxReplacements must be 0 or more, was " + maxReplacements);
        }
        if (window.isZero() || window.isNegative()) {
            throw new IllegalArgumentException("replacement window must be positive, was " + window);
        }
        this.maxReplacements = maxReplacements;
        this.window = window;
    }

    /** {@value #DEFAULT_MAX_REPLACEMENTS} replacements within 10 minutes. */
    public static ThreadReplacementPolicy defaults() {
        return new ThreadReplacementPolicy(DEFAULT_MAX_REPLACEMENTS, DEFAULT_WINDOW);
    }

    /** Decides for a thread that failed at {@code now}; a {@link Decision#REPLACE} is remembered. */
    public synchronized Decision decide(Instant now) {
        Instant horizon = now.minus(window);
        while (!replacements.isEmpty() && !replacements.peekFirst().isAfter(horizon)) {
            replacements.removeFirst();
        }
        if (replacements.size() >= maxReplacements) {
            return Decision.SHUTDOWN;
        }
        replacements.addLast(now);
        return Decision.REPLACE;
    }

    /** Replacements that still count at {@code now}. */
    public synchronized int replacementsWithinWindow(Instant now) {
        Instant horizon = now.minus(window);
        return (int) replacements.stream().filter(t -> t.isAfter(horizon)).count();
    }

    public int maxReplacements() {
        return maxReplacements;
    }

    public Duration window() {
        return window;
    }

    @Override
    public String toString() {
        return "at most " + maxReplacements + " thread replacement(s) within " + window;
    }
}
