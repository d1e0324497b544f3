package io.skewguard.migrator.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Random skewed clusters: heterogeneous capacities, racks, slots with candidate sets of m distinct
 * nodes, shard sizes drawn so that each node's used bytes are the sum of its shards plus other data.
 */
final class RandomClusters {

    private RandomClusters() {}

    static ClusterSnapshot of(Random random, int nodeCount, int slots, int m) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < nodeCount; i++) {
            ids.add(String.format("node-%03d", i));
        }
        Map<String, Long> shardSum = new HashMap<>();
        Map<Integer, List<String>> sets = new HashMap<>();
        List<ShardLoad> shards = new ArrayList<>();
        int hotNodes = Math.max(1, nodeCount / 5);
        for (int slot = 0; slot < slots; slot++) {
            List<String> set = new ArrayList<>();
            while (set.size() < Math.min(m, nodeCount)) {
                // the first fifth of the nodes is picked more often: that is the skew
                String id = random.nextInt(3) == 0 ? ids.get(random.nextInt(hotNodes)) : ids.get(random.nextInt(nodeCount));
                if (!set.contains(id)) {
                    set.add(id);
                }
            }
            sets.put(slot, set);
            for (String id : set) {
                long bytes = 1 + (long) (random.nextDouble() * random.nextDouble() * 4_000_000_000L);
                shards.add(new ShardLoad(slot, id, bytes, random.nextInt(1_000_000)));
                shardSum.merge(id, bytes, Long::sum);
            }
        }
        List<NodeCapacity> nodes = new ArrayList<>();
        int racks = 1 + random.nextInt(5);
        for (String id : ids) {
            long used = shardSum.getOrDefault(id, 0L) + (long) (random.nextDouble() * 5_000_000_000L);
            long total = Math.max(used, 1L) + (long) ((0.2 + random.nextDouble() * 2) * Math.max(used, 50_000_000_000L));
            String rack = random.nextInt(4) == 0 ? null : "rack-" + random.nextInt(racks);
            nodes.add(new NodeCapacity(id, used, total, rack));
        }
        return new ClusterSnapshot(nodes, shards, sets);
    }
}
