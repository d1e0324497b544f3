package io.skewguard.migrator.policy;

/** Turns a cluster's capacity picture into an ordered list of shard moves. */
public interface MigrationPlanner {

    /** The moves that bring the snapshot's capacity CV towards the planner's target. Pure. */
    MigrationPlan plan(ClusterSnapshot snapshot);
}
