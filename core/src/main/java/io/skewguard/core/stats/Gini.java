package io.skewguard.core.stats;

import java.util.Arrays;

/**
 * Gini coefficient of a set of non-negative values: 0 when all are equal, approaching 1 when one
 * value holds everything.
 *
 * <p>Formula (values sorted ascending, {@code x(1) <= ... <= x(n)}, ranks from 1):
 *
 * <pre>
 *   G = 2 * sum(i * x(i)) / (n * sum(x)) - (n + 1) / n
 * </pre>
 *
 * which equals the mean absolute difference over twice the mean, {@code sum|xi - xj| / (2 n^2 mean)}.
 * Cost: one copy and one sort, O(n log n) time, O(n) extra space.
 *
 * <p>Defined results: empty input, a single value and all zeros give 0 (no inequality to measure).
 * NaN, infinite or negative values are rejected with an {@link IllegalArgumentException}.
 */
public final class Gini {

    private Gini() {}

    /** Gini coefficient of {@code values}; the array is not modified. */
    public static double of(double[] values) {
        double[] sorted = values.clone();
        for (int i = 0; i < sorted.length; i++) {
            requireValid(sorted[i], i);
        }
        Arrays.sort(sorted);
        return ofSorted(sorted);
    }

    /** Gini coefficient of {@code values}; the array is not modified. */
    public static double of(long[] values) {
        double[] asDouble = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            if (values[i] < 0) {
                throw new IllegalArgumentException(
                        "Gini needs non-negative values, but value " + i + " is " + values[i]);
            }
            asDouble[i] = values[i];
        }
        Arrays.sort(asDouble);
        return ofSorted(asDouble);
    }

    private static double ofSorted(double[] sorted) {
        int n = sorted.length;
        if (n < 2) {
            return 0.0;
        }
        double sum = 0.0;
        double rankWeighted = 0.0;
        for (int i = 0; i < n; i++) {
            sum += sorted[i];
            rankWeighted += (i + 1) * sorted[i];
        }
        if (sum == 0.0) {
            return 0.0;
        }
        double g = 2.0 * rankWeighted / (n * sum) - (n + 1.0) / n;
        // rounding can leave a hair below zero for equal values
        return Math.max(0.0, g);
    }

    static void requireValid(double value, int index) {
        if (Double.isNaN(value) || Double.isInfinite(value) || value < 0) {
            throw new IllegalArgumentException(
                    "Gini needs finite non-negative values, but value " + index + " is " + value);
        }
    }
}
