package io.skewguard.agent.report;

import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.auth.NodeKeys;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a {@link NodeReporter}.
 *
 * @param cluster the node's cluster
 * @param node the node id (the key of every event)
 * @param slotCount S
 * @param topics topic names
 * @param flushInterval how often the write counters are flushed as WriteEvents; well under the
 *     detector's 10 s tick so that heat is current
 * @param capacityInterval how often a CapacityEvent is sent
 * @param kafka settings of the serdes (at least {@code schema.registry.url})
 * @param keys the node's key: capacity events are signed with it (docs/security.md); none: unsigned
 */
public record ReporterSettings(
        String cluster, String node, int slotCount, Topics topics, Duration flushInterval, Duration capacityInterval,
        Map<String, Object> kafka, NodeKeys keys) {

    public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofSeconds(1);
    public static final Duration DEFAULT_CAPACITY_INTERVAL = Duration.ofSeconds(10);

    public ReporterSettings {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(node, "node");
        SlotTable.requireSlotCount(slotCount);
        Objects.requireNonNull(topics, "topics");
        if (flushInterval.isNegative() || flushInterval.isZero() || capacityInterval.isNegative() || capacityInterval.isZero()) {
            throw new IllegalArgumentException("flush and capacity intervals must be positive");
        }
        kafka = Map.copyOf(kafka);
        Objects.requireNonNull(keys, "keys");
    }

    /** Settings without a key: nothing is signed. */
    public ReporterSettings(String cluster, String node, int slotCount, Topics topics, Duration flushInterval,
                            Duration capacityInterval, Map<String, Object> kafka) {
        this(cluster, node, slotCount, topics, flushInterval, capacityInterval, kafka, NodeKeys.none());
    }

    /** Defaults: 256 slots, {@code skew.} topics, flush every second, capacity every 10 s. */
    public static ReporterSettings defaults(String cluster, String node, Map<String, Object> kafka) {
        return new ReporterSettings(cluster, node, SlotTable.DEFAULT_SLOT_COUNT, Topics.defaults(),
                DEFAULT_FLUSH_INTERVAL, DEFAULT_CAPACITY_INTERVAL, kafka);
    }
}
