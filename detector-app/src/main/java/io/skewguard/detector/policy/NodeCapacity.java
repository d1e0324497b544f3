package io.skewguard.detector.policy;

/**
 * A node's latest capacity report: used and total bytes, rack (null if unknown), per-shard used
 * bytes (parallel arrays, possibly empty) and the report's event time.
 */
public record NodeCapacity(
        String node, long usedBytes, long totalBytes, String rack,
        int[] shardSlots, long[] shardUsedBytes, long eventTime) {

    public NodeCapacity {
        if (shardSlots.length != shardUsedBytes.length) {
            throw new IllegalArgumentException("parallel arrays differ in length");
        }
    }

    public double utilisation() {
        return totalBytes > 0 ? (double) usedBytes / totalBytes : 0.0;
    }
}
