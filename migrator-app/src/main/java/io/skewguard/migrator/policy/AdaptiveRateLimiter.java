package io.skewguard.migrator.policy;

/**
 * The migration bandwidth budget, following the cluster's write load (docs/design.md §8step 6).
 *
 * <p>Write rate {@code r = totalWriteBytes / window} from each {@code SkewReport}. The reference is a
 * decaying peak {@code p = max(r, p_prev × 2^(−Δt / halfLife))}, so the limiter calibrates itself to
 * the cluster's own daily cycle instead of an absolute figure. With load {@code ℓ = r / p}:
 *
 * <pre>
 *   budget = max                                   if ℓ ≤ low   (trough: full speed)
 *   budget = max × (1 − (1 − floor) × (ℓ − low) / (high − low))   between
 *   budget = max × floor                           if ℓ ≥ high  (peak: back off)
 * </pre>
 *
 * and never less than 1 byte/s. Defaults: low 0.5, high 0.9, floor 0.1. O(1), no allocation.
 */
public final class AdaptiveRateLimiter {

    private final long maxBytesPerSec;
    private final double lowLoad;
    private final double highLoad;
    private final double floor;
    private final long peakHalfLifeMillis;

    public AdaptiveRateLimiter(long maxBytesPerSec, double lowLoad, double highLoad, double floor, long peakHalfLifeMillis) {
        if (maxBytesPerSec < 1) {
            throw new IllegalArgumentException("maxBytesPerSec must be >= 1, was " + maxBytesPerSec);
        }
        if (!(lowLoad >= 0 && lowLoad < highLoad && highLoad <= 1)) {
            throw new IllegalArgumentException("need 0 <= lowLoad < highLoad <= 1, got " + lowLoad + ", " + highLoad);
        }
        if (!(floor > 0 && floor <= 1)) {
            throw new IllegalArgumentException("floor must be in (0, 1] so the budget is never zero, was " + floor);
        }
        if (peakHalfLifeMillis < 1) {
            throw new IllegalArgumentException("peakHalfLifeMillis must be >= 1, was " + peakHalfLifeMillis);
        }
        this.maxBytesPerSec = maxBytesPerSec;
        this.lowLoad = lowLoad;
        this.highLoad = highLoad;
        this.floor = floor;
        this.peakHalfLifeMillis = peakHalfLifeMillis;
    }

    /** The write load the limiter remembers: the decaying peak rate and when it was last updated. */
    public record WriteLoad(double rateBytesPerSec, double peakBytesPerSec, long atMillis) {
        /** Nothing observed yet: full budget. */
        public static final WriteLoad NONE = new WriteLoad(0, 0, Long.MIN_VALUE);
    }

    /** The load after observing {@code rateBytesPerSec} at {@code atMillis}. */
    public WriteLoad observe(WriteLoad previous, double rateBytesPerSec, long atMillis) {
        if (!(rateBytesPerSec >= 0) || Double.isInfinite(rateBytesPerSec)) {
            throw new IllegalArgumentException("write rate must be finite and >= 0, was " + rateBytesPerSec);
        }
        double decayed = previous.peakBytesPerSec();
        if (previous.atMillis() != Long.MIN_VALUE && atMillis > previous.atMillis()) {
            decayed *= Math.pow(0.5, (double) (atMillis - previous.atMillis()) / peakHalfLifeMillis);
        }
        long at = previous.atMillis() == Long.MIN_VALUE ? atMillis : Math.max(atMillis, previous.atMillis());
        return new WriteLoad(rateBytesPerSec, Math.max(rateBytesPerSec, decayed), at);
    }

    /** The bandwidth budget in bytes per second under {@code load}: in [max(1, floor × max), max]. */
    public long budget(WriteLoad load) {
        if (load.peakBytesPerSec() <= 0) {
            return maxBytesPerSec;
        }
        double l = load.rateBytesPerSec() / load.peakBytesPerSec();
        double fraction;
        if (l <= lowLoad) {
            fraction = 1.0;
        } else if (l >= highLoad) {
            fraction = floor;
        } else {
            fraction = 1.0 - (1.0 - floor) * (l - lowLoad) / (highLoad - lowLoad);
        }
        return Math.max(1L, (long) Math.floor(maxBytesPerSec * fraction));
    }

    public long maxBytesPerSec() {
        return maxBytesPerSec;
    }
}
