package io.skewguard.migrator.policy;

import java.util.Objects;

/**
 * One shard (slot, node): its size and its heat (bytes written to the slot in the detector's
 * window), the unit the planner moves.
 *
 * @param slot slot of the shard
 * @param node node holding it
 * @param bytes bytes the shard holds, {@code >= 0}
 * @param heat heat of the slot, {@code >= 0}; lower is colder
 */
public record ShardLoad(int slot, String node, long bytes, long heat) {

    public ShardLoad {
        Objects.requireNonNull(node, "node");
        if (slot < 0 || bytes < 0 || heat < 0) {
            throw new IllegalArgumentException("shard (" + slot + ", " + node + "): slot, bytes and heat must be >= 0");
        }
    }
}
