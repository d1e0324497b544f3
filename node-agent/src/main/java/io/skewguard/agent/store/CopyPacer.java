package io.skewguard.agent.store;

/**
 * How fast a node's copies may run, from its own write latency: the part of the copy budget that
 * follows the measured latency, not the write rate (docs/agents.md, "Copies follow the write
 * latency").
 *
 * <p>The migrator grants every copy a rate from the cluster's write rate (its adaptive limiter). The
 * node then runs its copies at {@code pace × granted}, {@code pace} in {@code [minPace, 1]}, decided
 * once per interval from the p99 of the writes its store served in that interval:
 *
 * <ul>
 *   <li>an interval with no copy work is <b>quiet</b>: its p99 moves the baseline, an exponentially
 *       weighted mean of the quiet intervals' p99s (weight {@value #BASELINE_WEIGHT} for the newest);
 *       the pace stays;
 *   <li>an interval with copy work whose p99 is above {@code baseline × (1 + tolerance)} halves the
 *       pace (never below {@code minPace}, so that a copy always ends);
 *   <li>one at or under it raises the pace by a quarter, up to 1;
 *   <li>an interval with fewer than {@value #MIN_WRITES} writes, or before any quiet interval gave a
 *       baseline, says nothing: the pace stays.
 * </ul>
 *
 * <p>Decrease fast and increase slowly, as TCP's congestion control does: a run of good intervals
 * brings the pace back from {@code minPace} to 1 in {@code log(1/minPace) / log(1.25)} intervals (18
 * at the default 0.02). Pure and immutable.
 */
public final class CopyPacer {

    /** Default tolerance: the paper's bound on the write latency's p99 with migrations running, +5 %. */
    public static final double DEFAULT_TOLERANCE = 0.05;

    /** Default lowest pace: 2 % of the granted rate. */
    public static final double DEFAULT_MIN_PACE = 0.02;

    /** Fewest writes in an interval for its p99 to count. */
    static final long MIN_WRITES = 100;

    /** Weight of the newest quiet interval in the baseline. */
    static final double BASELINE_WEIGHT = 0.2;

    private static final double DECREASE = 0.5;
    private static final double INCREASE = 1.25;

    private final double tolerance;
    private final double minPace;

    /**
     * @param tolerance how far over the quiet baseline the p99 may go with copies running: 0.05 = +5 %
     * @param minPace the lowest pace, in (0, 1]
     */
    public CopyPacer(double tolerance, double minPace) {
        if (!(tolerance >= 0) || Double.isInfinite(tolerance)) {
            throw new IllegalArgumentException("tolerance must be finite and >= 0, was " + tolerance);
        }
        if (!(minPace > 0 && minPace <= 1)) {
            throw new IllegalArgumentException("minPace must be in (0, 1] so that a copy always ends, was " + minPace);
        }
        this.tolerance = tolerance;
        this.minPace = minPace;
    }

    /**
     * Where the pacing stands.
     *
     * @param baselineMicros the quiet intervals' weighted p99; 0 before the first quiet interval
     * @param pace the fraction of the granted rate copies run at
     */
    public record Pace(double baselineMicros, double pace) {
        /** Before any interval: no baseline, full pace. */
        public static final Pace START = new Pace(0, 1);
    }

    /**
     * The pace after an interval.
     *
     * @param previous the pace before it
     * @param writes writes the store served in the interval
     * @param p99Micros their latency p99
     * @param copying whether any copy work ran in the interval
     */
    public Pace next(Pace previous, long writes, long p99Micros, boolean copying) {
        if (writes < MIN_WRITES) {
            return previous;
        }
        if (!copying) {
            double baseline = previous.baselineMicros() <= 0 ? p99Micros
                    : (1 - BASELINE_WEIGHT) * previous.baselineMicros() + BASELINE_WEIGHT * p99Micros;
            return new Pace(baseline, previous.pace());
        }
        if (previous.baselineMicros() <= 0) {
            return previous;
        }
        double pace = p99Micros > limitMicros(previous)
                ? Math.max(minPace, previous.pace() * DECREASE)
                : Math.min(1.0, previous.pace() * INCREASE);
        return new Pace(previous.baselineMicros(), pace);
    }

    /** The p99 an interval with copies may reach without slowing them: {@code baseline × (1 + tolerance)}. */
    public double limitMicros(Pace pace) {
        return pace.baselineMicros() * (1 + tolerance);
    }

    public double tolerance() {
        return tolerance;
    }

    public double minPace() {
        return minPace;
    }
}
