package io.skewguard.migrator.membership;

/** What an operator asks of one node with {@code ./skewguard node}. */
public sealed interface NodeChange {

    String node();

    /** {@code node add}: the node becomes ACTIVE; rack and capacity as declared (null when not given). */
    record Add(String node, String rack, Long capacityBytes) implements NodeChange {
    }

    /** {@code node drain}: the node becomes DRAINING. */
    record Drain(String node) implements NodeChange {
    }

    /** {@code node drain --cancel}: a DRAINING node becomes ACTIVE again. */
    record CancelDrain(String node) implements NodeChange {
    }

    /** {@code node remove}: the node is REMOVED at once. */
    record Remove(String node) implements NodeChange {
    }
}
