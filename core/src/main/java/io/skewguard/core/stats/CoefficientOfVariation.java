package io.skewguard.core.stats;

/**
 * Population coefficient of variation: standard deviation over mean,
 *
 * <pre>
 *   mean = sum(x) / n,   sd = sqrt(sum((x - mean)^2) / n),   CV = sd / mean
 * </pre>
 *
 * (the population form, dividing by n, since a cluster's nodes are the whole population, not a
 * sample). Two passes, O(n) time, no allocation.
 *
 * <p>Defined results: empty input, a single value and all zeros give 0. NaN, infinite or negative
 * values are rejected with an {@link IllegalArgumentException} (utilisations and sizes are never
 * negative, so a negative value is a bug upstream, not a figure to average).
 */
public final class CoefficientOfVariation {

    private CoefficientOfVariation() {}

    /** Population CV of {@code values}. */
    public static double of(double[] values) {
        int n = values.length;
        if (n == 0) {
            return 0.0;
        }
        double sum = 0.0;
        for (int i = 0; i < n; i++) {
            double v = values[i];
            if (Double.isNaN(v) || Double.isInfinite(v) || v < 0) {
                throw new IllegalArgumentException(
                        "coefficient of variation needs finite non-negative values, but value "
                                + i + " is " + v);
            }
            sum += v;
        }
        double mean = sum / n;
        if (mean == 0.0) {
            return 0.0;
        }
        double squares = 0.0;
        for (int i = 0; i < n; i++) {
            double d = values[i] - mean;
            squares += d * d;
        }
        return Math.sqrt(squares / n) / mean;
    }

    /** Population CV of {@code values}. */
    public static double of(long[] values) {
        double[] asDouble = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            asDouble[i] = values[i];
        }
        return of(asDouble);
    }
}
