package io.skewguard.detector.policy;

/**
 * What the per-cluster detection needs to know: the window geometry (all in milliseconds of
 * event time; window a multiple of tick), the alert parameters, node expiry and report size.
 */
public record DetectionParameters(
        long tickMs, long windowMs, long graceMs, long cooldownMs,
        double heatThreshold, double capacityThreshold, double hysteresis,
        long nodeExpiryMs, int topSlots) {

    public DetectionParameters {
        if (tickMs <= 0 || windowMs < tickMs || windowMs % tickMs != 0) {
            throw new IllegalArgumentException(
                    "window (" + windowMs + " ms) must be a positive multiple of tick (" + tickMs + " ms)");
        }
        if (graceMs < 0 || cooldownMs < 0 || nodeExpiryMs < 0 || topSlots < 0) {
            throw new IllegalArgumentException("grace, cooldown, node expiry and top slots must be >= 0");
        }
    }

    public int windowBuckets() {
        return (int) (windowMs / tickMs);
    }

    /** Ring size: the window, the grace period, the bucket being filled and one spare. */
    public int ringBuckets() {
        return windowBuckets() + (int) ((graceMs + tickMs - 1) / tickMs) + 2;
    }
}
