package io.skewguard.agent.command;

import java.util.Collections;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything a node agent has applied: the newest weight factor and its epoch, and one record per
 * migration it took part in (tombstones of aborted and finished ones included, so that a late
 * repeat of an old command is still recognised, until they are pruned: {@link #withoutFinishedBefore}). Immutable; the agent writes it to its state file
 * after every change.
 *
 * @param node the node this agent acts for
 * @param weightEpoch epoch of the applied weight factor; -1 before the first weight command
 * @param weight the applied weight factor; 1.0 before the first weight command
 * @param migrations records by migration id, sorted
 */
public record AgentState(String node, long weightEpoch, double weight, SortedMap<String, MigrationRecord> migrations) {

    /** Epoch meaning "no weight command applied yet". */
    public static final long NO_EPOCH = -1;

    public AgentState {
        Objects.requireNonNull(node, "node");
        migrations = Collections.unmodifiableSortedMap(new TreeMap<>(migrations));
    }

    /** The state of an agent that has applied nothing. */
    public static AgentState initial(String node) {
        return new AgentState(node, NO_EPOCH, 1.0, new TreeMap<>());
    }

    /** The record of {@code migrationId}, or null. */
    public MigrationRecord migration(String migrationId) {
        return migrations.get(migrationId);
    }

    /** This state with the weight factor of {@code epoch}. */
    public AgentState withWeight(long epoch, double factor) {
        return new AgentState(node, epoch, factor, migrations);
    }

    /**
     * This state without the records of migrations that finished here before {@code cutoffMillis}
     * (the same state if there are none). Kept until then, a finished record answers a redelivered
     * command of its migration the same way; once every such command has left the command topic
     * (its retention), the record has nothing left to answer.
     */
    public AgentState withoutFinishedBefore(long cutoffMillis) {
        TreeMap<String, MigrationRecord> kept = new TreeMap<>(migrations);
        boolean removed = kept.values().removeIf(r -> r.finished() && r.finishedAt() < cutoffMillis);
        return removed ? new AgentState(node, weightEpoch, weight, kept) : this;
    }

    /** This state with {@code record} put in. */
    public AgentState with(MigrationRecord record) {
        TreeMap<String, MigrationRecord> next = new TreeMap<>(migrations);
        next.put(record.migrationId(), record);
        return new AgentState(node, weightEpoch, weight, next);
    }
}
