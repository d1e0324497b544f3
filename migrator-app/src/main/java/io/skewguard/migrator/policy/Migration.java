package io.skewguard.migrator.policy;

import java.util.List;
import java.util.Objects;

/**
 * One shard migration of a switch batch.
 *
 * @param id migration id, {@code <cluster>/<batchId>/<shardId>}; unique, deterministic
 * @param slot slot of the shard
 * @param source node that gives the shard up
 * @param target node that receives it
 * @param bytes size when planned
 * @param state where it stands
 */
public record Migration(String id, int slot, String source, String target, long bytes, MigrationState state) {

    public Migration {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(state, "state");
    }

    public String shardId() {
        return ShardId.of(slot, source);
    }

    /** Target and source: the nodes PREPARE, COMMIT and ABORT go to. */
    public List<String> participants() {
        return List.of(target, source);
    }

    public Migration with(MigrationState next) {
        return new Migration(id, slot, source, target, bytes, next);
    }
}
