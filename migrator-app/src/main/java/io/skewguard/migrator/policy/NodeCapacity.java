package io.skewguard.migrator.policy;

import java.util.Objects;

/**
 * One node's capacity as the planner sees it.
 *
 * @param node node id
 * @param usedBytes bytes in use, {@code 0 <= usedBytes <= totalBytes}
 * @param totalBytes capacity in bytes, {@code > 0}
 * @param rack failure domain, or {@code null} when unknown
 */
public record NodeCapacity(String node, long usedBytes, long totalBytes, String rack) {

    public NodeCapacity {
        Objects.requireNonNull(node, "node");
        if (totalBytes <= 0) {
            throw new IllegalArgumentException("node " + node + ": totalBytes must be > 0, was " + totalBytes);
        }
        if (usedBytes < 0 || usedBytes > totalBytes) {
            throw new IllegalArgumentException(
                    "node " + node + ": usedBytes must be in [0, totalBytes], was " + usedBytes + " of " + totalBytes);
        }
    }

    /** used / total. */
    public double utilisation() {
        return (double) usedBytes / totalBytes;
    }
}
