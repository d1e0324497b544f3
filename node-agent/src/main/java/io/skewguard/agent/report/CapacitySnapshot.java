package io.skewguard.agent.report;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A node's capacity figures at one moment, as the node reads them: what a {@code CapacityEvent}
 * carries.
 *
 * @param usedBytes bytes in use on the node
 * @param totalBytes total capacity in bytes
 * @param rack failure domain, or null when unknown
 * @param shardBytes bytes held per slot (may be empty when the node does not track them)
 */
public record CapacitySnapshot(long usedBytes, long totalBytes, String rack, Map<Integer, Long> shardBytes) {

    public CapacitySnapshot {
        shardBytes = Map.copyOf(Objects.requireNonNull(shardBytes, "shardBytes"));
    }

    /** Why the detector would reject these figures (docs/design.md §5), or null if they are sound. */
    public String problem(int slotCount) {
        if (totalBytes <= 0) {
            return "total capacity " + totalBytes + " is not positive";
        }
        if (usedBytes < 0 || usedBytes > totalBytes) {
            return "used " + usedBytes + " is outside [0, total " + totalBytes + "]";
        }
        for (Map.Entry<Integer, Long> e : new TreeMap<>(shardBytes).entrySet()) {
            if (e.getKey() < 0 || e.getKey() >= slotCount) {
                return "shard of slot " + e.getKey() + " is outside [0, " + slotCount + ")";
            }
            if (e.getValue() < 0) {
                return "shard of slot " + e.getKey() + " has negative size " + e.getValue();
            }
        }
        return null;
    }
}
