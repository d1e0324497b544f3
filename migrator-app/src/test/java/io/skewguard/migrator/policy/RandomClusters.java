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

    /**
     * As {@link #of}, then up to a quarter of the nodes (at least one) get one of their shards grown
     * to 55–95 % of their capacity, the node's used bytes with it (its capacity too if they pass it): shards that
     * alone hold a node above the mean, as a slot of old heat leaves them.
     */
    static ClusterSnapshot withBlockers(Random random, int nodeCount, int slots, int m) {
        ClusterSnapshot base = of(random, nodeCount, slots, m);
        List<NodeCapacity> nodes = new ArrayList<>(base.nodes());
        List<ShardLoad> shards = new ArrayList<>(base.shards());
        int blockers = 1 + random.nextInt(Math.max(1, nodeCount / 4));
        for (int b = 0; b < blockers; b++) {
            int k = random.nextInt(nodes.size());
            NodeCapacity node = nodes.get(k);
            List<Integer> own = new ArrayList<>();
            for (int i = 0; i < shards.size(); i++) {
                if (shards.get(i).node().equals(node.node())) {
                    own.add(i);
                }
            }
            if (own.isEmpty()) {
                continue;
            }
            int i = own.get(random.nextInt(own.size()));
            ShardLoad shard = shards.get(i);
            long bytes = (long) ((0.55 + 0.4 * random.nextDouble()) * node.totalBytes());
            long used = node.usedBytes() - shard.bytes() + bytes; // the node's shards still sum to at most its used bytes
            long total = Math.max(node.totalBytes(), used);
            shards.set(i, new ShardLoad(shard.slot(), shard.node(), bytes, shard.heat()));
            nodes.set(k, new NodeCapacity(node.node(), used, total, node.rack()));
        }
        return new ClusterSnapshot(nodes, shards, base.candidateSets());
    }
}
