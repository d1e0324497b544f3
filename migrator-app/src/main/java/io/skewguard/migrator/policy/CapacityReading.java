package io.skewguard.migrator.policy;

import java.util.Map;

/**
 * A node's latest capacity report as the coordinator keeps it.
 *
 * @param node node id
 * @param usedBytes used bytes
 * @param totalBytes total bytes
 * @param rack rack or null
 * @param shardBytes slot to bytes of that slot held on the node
 * @param eventTime the node's clock when it read the figures
 */
public record CapacityReading(String node, long usedBytes, long totalBytes, String rack, Map<Integer, Long> shardBytes, long eventTime) {

    public CapacityReading {
        shardBytes = Map.copyOf(shardBytes);
    }
}
