package io.skewguard.migrator.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Small clusters for planner tests, written the way one would draw them. */
final class SnapshotBuilder {

    private final List<NodeCapacity> nodes = new ArrayList<>();
    private final List<ShardLoad> shards = new ArrayList<>();
    private final Map<Integer, List<String>> sets = new HashMap<>();
    private final java.util.Set<String> draining = new java.util.HashSet<>();
    private final java.util.Set<String> excluded = new java.util.HashSet<>();

    static SnapshotBuilder cluster() {
        return new SnapshotBuilder();
    }

    SnapshotBuilder node(String id, long used, long total) {
        return node(id, used, total, null);
    }

    SnapshotBuilder node(String id, long used, long total, String rack) {
        nodes.add(new NodeCapacity(id, used, total, rack));
        return this;
    }

    /** A slot and its candidate set, anchor first. */
    SnapshotBuilder slot(int slot, String... candidates) {
        sets.put(slot, List.of(candidates));
        return this;
    }

    SnapshotBuilder shard(int slot, String node, long bytes, long heat) {
        shards.add(new ShardLoad(slot, node, bytes, heat));
        return this;
    }

    /** Marks {@code node} as being drained. */
    SnapshotBuilder draining(String node) {
        draining.add(node);
        return this;
    }

    SnapshotBuilder excluded(String node) {
        excluded.add(node);
        return this;
    }

    ClusterSnapshot build() {
        return new ClusterSnapshot(nodes, shards, sets, draining, excluded);
    }
}
