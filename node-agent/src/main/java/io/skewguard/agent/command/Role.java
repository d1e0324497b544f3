package io.skewguard.agent.command;

/** This node's part in one shard migration. */
public enum Role {
    /** Gives the shard up: PREPARE, COMMIT, ABORT, CLEANUP come here. */
    SOURCE,
    /** Receives the shard: COPY, PREPARE, COMMIT, ABORT come here. */
    TARGET
}
