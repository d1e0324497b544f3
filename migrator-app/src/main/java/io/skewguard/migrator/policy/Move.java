package io.skewguard.migrator.policy;

import java.util.Objects;

/**
 * One planned migration: shard (slot, source) goes to target.
 *
 * @param slot slot of the shard
 * @param source node that gives it up
 * @param target node that receives it (not in the slot's candidate set before the move)
 * @param bytes size of the shard when planned
 */
public record Move(int slot, String source, String target, long bytes) {

    public Move {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
        if (source.equals(target)) {
            throw new IllegalArgumentException("a move needs two different nodes, got " + source + " twice");
        }
    }

    /** The shard id, {@link ShardId#of(int, String)} of the source shard. */
    public String shardId() {
        return ShardId.of(slot, source);
    }
}
