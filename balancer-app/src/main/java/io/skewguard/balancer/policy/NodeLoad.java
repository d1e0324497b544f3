package io.skewguard.balancer.policy;

/**
 * One node's figures as the controller sees them in a round.
 *
 * @param node node id
 * @param heat bytes written to the node within the report's window
 * @param capacity the node's total bytes; a node without a capacity report yet has 0 and is left
 *     out of the round (its capacity share, and so its load ratio, is unknown)
 */
public record NodeLoad(String node, double heat, double capacity) {

    public NodeLoad {
        if (node == null || node.isEmpty()) {
            throw new IllegalArgumentException("node id must not be empty");
        }
        if (!Double.isFinite(heat) || heat < 0) {
            throw new IllegalArgumentException("heat of node " + node + " must be finite and >= 0, was " + heat);
        }
        if (!Double.isFinite(capacity) || capacity < 0) {
            throw new IllegalArgumentException(
                    "capacity of node " + node + " must be finite and >= 0, was " + capacity);
        }
    }
}
