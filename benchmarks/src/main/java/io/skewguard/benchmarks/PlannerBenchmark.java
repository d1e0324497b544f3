package io.skewguard.benchmarks;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.migrator.policy.ClusterSnapshot;
import io.skewguard.migrator.policy.ColdestFirstPlanner;
import io.skewguard.migrator.policy.MigrationPlan;
import io.skewguard.migrator.policy.NodeCapacity;
import io.skewguard.migrator.policy.ShardLoad;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * One migration plan ({@link ColdestFirstPlanner#plan}) for a skewed cluster at the documented
 * scales: 48 nodes × 256 slots and 512 nodes × 4096 slots, candidate sets of 8 from the real ring
 * ({@link SlotTable#fromRing}), 16 racks. Capacities are heterogeneous (1×, 2×, 4× classes on equal
 * ring weight, the usual source of capacity skew), shard sizes log-normal-ish and heats random, so
 * the starting capacity CV is ≈ 0.3–0.5 and the plan must bring it to 0.10. Target: well under a
 * second at 512 × 4096.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class PlannerBenchmark {

    @Param({"48:256", "512:4096"})
    String shape;

    ClusterSnapshot snapshot;
    ColdestFirstPlanner planner;

    @Setup
    public void setUp() {
        String[] parts = shape.split(":");
        int nodeCount = Integer.parseInt(parts[0]);
        int slotCount = Integer.parseInt(parts[1]);
        SplittableRandom random = new SplittableRandom(11);
        List<Node> members = new ArrayList<>();
        for (int n = 0; n < nodeCount; n++) {
            members.add(Node.of(String.format("node-%03d", n), "rack-" + (n % 16)));
        }
        SlotTable table = SlotTable.fromRing(HashRing.of(members), SlotTable.DEFAULT_CANDIDATES, slotCount);
        Map<Integer, List<String>> sets = new HashMap<>();
        Map<String, Long> used = new HashMap<>();
        List<ShardLoad> shards = new ArrayList<>();
        for (int slot = 0; slot < slotCount; slot++) {
            List<String> ids = table.candidateIds(slot);
            sets.put(slot, ids);
            for (String id : ids) {
                long bytes = 1 + (long) (Math.exp(random.nextGaussian()) * 20_000_000_000L);
                shards.add(new ShardLoad(slot, id, bytes, random.nextInt(1_000_000)));
                used.merge(id, bytes, Long::sum);
            }
        }
        long meanUsed = used.values().stream().mapToLong(Long::longValue).sum() / nodeCount;
        List<NodeCapacity> nodes = new ArrayList<>();
        for (int n = 0; n < nodeCount; n++) {
            String id = members.get(n).id();
            long u = used.getOrDefault(id, 0L);
            long classFactor = 1L << (n % 3); // 1x, 2x, 4x
            long total = Math.max(u + 1, meanUsed * classFactor);
            nodes.add(new NodeCapacity(id, u, total, members.get(n).rack()));
        }
        snapshot = new ClusterSnapshot(nodes, shards, sets);
        planner = new ColdestFirstPlanner();
        MigrationPlan plan = planner.plan(snapshot);
        System.out.printf("%n%s: %d shards, capacity CV %.3f -> %.3f with %d moves (%s)%n", shape,
                shards.size(), plan.currentCv(), plan.projectedCv(), plan.moves().size(), plan.outcome());
    }

    @Benchmark
    public MigrationPlan plan() {
        return planner.plan(snapshot);
    }
}
