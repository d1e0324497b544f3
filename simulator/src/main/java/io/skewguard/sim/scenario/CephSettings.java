package io.skewguard.sim.scenario;

/**
 * Ceph's {@code osd reweight-by-utilization} with its defaults: every {@code intervalMillis}, nodes at
 * or above {@code overload} × mean utilisation get {@code w ← max(w − maxChange, w · mean/util)},
 * the most loaded first, at most {@code maxNodes} per run.
 *
 * @param intervalMillis time between two runs (an operator's or a cron's cadence)
 * @param overload 1.20 (Ceph: {@code oload} 120)
 * @param maxChange 0.05 (Ceph: {@code max_change})
 * @param maxNodes 4 (Ceph: {@code max_osds})
 */
public record CephSettings(long intervalMillis, double overload, double maxChange, int maxNodes) {

    public static CephSettings defaults() {
        return new CephSettings(3_600_000L, 1.20, 0.05, 4);
    }
}
