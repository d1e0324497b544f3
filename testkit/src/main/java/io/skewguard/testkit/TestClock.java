package io.skewguard.testkit;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicInteger;

/** A clock a test sets (UTC, in epoch milliseconds), which counts how often it was read. */
public final class TestClock extends Clock {

    private volatile long millis;
    private final AtomicInteger reads = new AtomicInteger();

    public TestClock(long millis) {
        this.millis = millis;
    }

    /** Moves the clock to {@code millis}, forward or back. */
    public void set(long millis) {
        this.millis = millis;
    }

    /** How often {@link #millis} or {@link #instant} was called. */
    public int reads() {
        return reads.get();
    }

    @Override
    public long millis() {
        reads.incrementAndGet();
        return millis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a test clock has no zone but UTC");
    }
}
