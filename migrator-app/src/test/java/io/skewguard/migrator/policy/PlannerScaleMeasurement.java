package io.skewguard.migrator.policy;

import java.util.Arrays;
import java.util.Random;

/**
 * How long one plan takes at the largest documented scale: 512 nodes, 4096 slots, candidate sets of
 * 8 (32 768 shards), a skewed cluster from {@link RandomClusters}. A measurement to run by hand
 * (docs/migrator.md has the command and the figure), not a test: timings do not belong in unit
 * tests. JMH will replace it in the benchmarks module.
 */
public final class PlannerScaleMeasurement {

    private PlannerScaleMeasurement() {}

    public static void main(String[] args) {
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 512;
        int slots = args.length > 1 ? Integer.parseInt(args[1]) : 4096;
        int m = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        ClusterSnapshot snapshot = RandomClusters.of(new Random(7), nodes, slots, m);
        ColdestFirstPlanner planner = new ColdestFirstPlanner();
        MigrationPlan plan = null;
        for (int i = 0; i < 5; i++) {
            plan = planner.plan(snapshot); // warm-up
        }
        int runs = 15;
        double[] ms = new double[runs];
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            plan = planner.plan(snapshot);
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        System.out.printf("nodes=%d slots=%d m=%d shards=%d%n", nodes, slots, m, snapshot.shards().size());
        System.out.printf("moves=%d bytes=%d cv %.4f -> %.4f (%s)%n", plan.moves().size(), plan.bytesMoved(),
                plan.currentCv(), plan.projectedCv(), plan.outcome());
        System.out.printf("plan time over %d runs: median %.1f ms, max %.1f ms%n", runs, ms[runs / 2], ms[runs - 1]);
    }
}
