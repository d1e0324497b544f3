package io.skewguard.agent.command;

/**
 * How far one migration has got on this node, as recorded in the agent's state. A stage only moves
 * forward along one of these paths; a duplicate or late command never moves it back:
 *
 * <pre>
 *   target: COPYING ──copy done──▶ COPIED ──PREPARE──▶ PREPARED ──COMMIT──▶ COMMITTED
 *   source:                                 PREPARE──▶ PREPARED ──COMMIT──▶ COMMITTED ──CLEANUP──▶ CLEANED
 *   either: any stage before COMMITTED ──ABORT──▶ ABORTED (kept as a tombstone: refuses later COPY/PREPARE/COMMIT)
 * </pre>
 */
public enum Stage {
    COPYING, COPIED, PREPARED, COMMITTED, ABORTED, CLEANED
}
