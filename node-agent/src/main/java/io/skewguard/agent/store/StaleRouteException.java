package io.skewguard.agent.store;

/**
 * A write reached a node for a slot the node gave away and cleaned up: the writer's slot table is
 * older than the switch. The writer refreshes its table and writes to the new owner.
 */
public final class StaleRouteException extends RuntimeException {

    public StaleRouteException(String node, int slot) {
        super("node " + node + " no longer holds slot " + slot + ": it was moved away and cleaned up");
    }
}
