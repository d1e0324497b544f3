package io.skewguard.sim.run;

/**
 * Probes per read of the sampled keys at the end of a run (docs/design.md §3.5): how many nodes a
 * reader asked, in the routing view's probe order, until one held the key. Unreadable keys are not
 * counted here ({@code keysUnreadable}).
 *
 * @param keys how many keys were read
 * @param mean mean probes per read
 * @param p99  99th percentile (nearest rank)
 * @param max  most probes any read took
 */
public record ReadProbes(long keys, double mean, int p99, int max) {

    /**
     * The figures of the keys {@code spread} says are not in a spread slot, then of those that are
     * ({@code probes} by key in write order).
     */
    public static ReadProbes[] split(int[] probes, java.util.function.IntPredicate spread) {
        int[] plain = new int[probes.length];
        int[] wide = new int[probes.length];
        int p = 0;
        int w = 0;
        for (int id = 0; id < probes.length; id++) {
            if (spread.test(id)) {
                wide[w++] = probes[id];
            } else {
                plain[p++] = probes[id];
            }
        }
        return new ReadProbes[] {of(java.util.Arrays.copyOf(plain, p)), of(java.util.Arrays.copyOf(wide, w))};
    }

    /** The figures of {@code probes} (1-based probe counts, 0 for a key not found, which is left out); null without any. */
    public static ReadProbes of(int[] probes) {
        int[] found = java.util.Arrays.stream(probes).filter(p -> p > 0).sorted().toArray();
        if (found.length == 0) {
            return null;
        }
        long sum = 0;
        for (int p : found) {
            sum += p;
        }
        int rank = (int) Math.ceil(0.99 * found.length) - 1;
        return new ReadProbes(found.length, (double) sum / found.length, found[Math.max(0, rank)], found[found.length - 1]);
    }
}
