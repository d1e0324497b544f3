package io.skewguard.agent.store;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures the write latency of the stores it governs and paces their copies by it with a
 * {@link CopyPacer}. One per process: the stores of one process share its disk and cores, so a copy
 * into one of them slows the writes of all of them.
 *
 * <p>{@link #recordWrite} is called by the stores' write path and records into an HdrHistogram
 * {@link Recorder} (two significant digits, wait-free). Whichever call, a write's or a copy's
 * {@link #pace()}, comes first once an interval has passed closes it: the p99 of its writes and
 * whether any copy worked in it go to the pacer. That costs one percentile of a small histogram
 * once an interval, on one write. Thread-safe.
 */
public final class LatencyGovernor {

    private static final Logger LOG = LoggerFactory.getLogger(LatencyGovernor.class);

    /** Longest latency told apart, in microseconds: a minute. */
    private static final long HIGHEST_MICROS = 60_000_000L;

    private final CopyPacer pacer;
    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private final Recorder recorder = new Recorder(HIGHEST_MICROS, 2);
    private final AtomicBoolean copied = new AtomicBoolean();
    private volatile CopyPacer.Pace pace = CopyPacer.Pace.START;
    private volatile long intervalStart;
    // guarded by this
    private Histogram interval;
    private long intervals;
    private long slowed;

    /**
     * @param pacer the rule the pace follows
     * @param interval how long each measured interval is at least
     * @param nanoClock {@link System#nanoTime} but for tests
     */
    public LatencyGovernor(CopyPacer pacer, Duration interval, LongSupplier nanoClock) {
        this.pacer = Objects.requireNonNull(pacer, "pacer");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("interval must be positive, was " + interval);
        }
        this.intervalNanos = interval.toNanos();
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.intervalStart = nanoClock.getAsLong();
    }

    /** A governor with the default pacing, one-second intervals, on the system's clock. */
    public static LatencyGovernor defaults() {
        return new LatencyGovernor(new CopyPacer(CopyPacer.DEFAULT_TOLERANCE, CopyPacer.DEFAULT_MIN_PACE),
                Duration.ofSeconds(1), System::nanoTime);
    }

    /** The clock the write path reads before a write, to hand to {@link #recordWrite}. */
    public long now() {
        return nanoClock.getAsLong();
    }

    /** A write that started at {@code startNanos} (from {@link #now()}) has returned. */
    public void recordWrite(long startNanos) {
        long now = nanoClock.getAsLong();
        recorder.recordValue(Math.max(0, Math.min((now - startNanos) / 1000, HIGHEST_MICROS)));
        if (now - intervalStart >= intervalNanos) {
            closeInterval();
        }
    }

    /** A copy did work: the interval under way is not quiet. */
    public void copied() {
        copied.set(true);
    }

    /** The fraction of its granted rate a copy may run at now, in {@code [minPace, 1]}. */
    public double pace() {
        if (nanoClock.getAsLong() - intervalStart >= intervalNanos) {
            closeInterval();
        }
        return pace.pace();
    }

    /** Where the pacing stands (the baseline and the pace). */
    public CopyPacer.Pace state() {
        return pace;
    }

    /** How many one-interval decisions were taken, and how many of them slowed the copies. */
    public record Intervals(long closed, long slowed) {}

    /** The intervals closed so far. */
    public synchronized Intervals intervals() {
        return new Intervals(intervals, slowed);
    }

    private synchronized void closeInterval() {
        long now = nanoClock.getAsLong();
        if (now - intervalStart < intervalNanos) {
            return; // another thread closed it
        }
        interval = recorder.getIntervalHistogram(interval);
        boolean copying = copied.getAndSet(false);
        CopyPacer.Pace before = pace;
        CopyPacer.Pace after = pacer.next(before, interval.getTotalCount(), interval.getValueAtPercentile(99), copying);
        intervals++;
        if (after.pace() < before.pace()) {
            slowed++;
        }
        if ((after.pace() < 1) != (before.pace() < 1)) {
            LOG.info("copies {}: write latency p99 {} µs in the last {} ms against a limit of {} µs (quiet baseline {} µs); "
                            + "pace {}", after.pace() < 1 ? "slowed" : "back at their granted rate",
                    interval.getValueAtPercentile(99), (now - intervalStart) / 1_000_000,
                    Math.round(pacer.limitMicros(before)), Math.round(before.baselineMicros()), after.pace());
        }
        pace = after;
        intervalStart = now;
    }
}
