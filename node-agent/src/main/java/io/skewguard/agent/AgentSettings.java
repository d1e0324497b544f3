package io.skewguard.agent;

import io.skewguard.agent.command.EpochBound;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.auth.NodeKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of one node agent.
 *
 * @param cluster the cluster of the node
 * @param node the node this agent acts for; its consumer group is {@code skewguard-agent-<node>}
 * @param slotCount S (docs/design.md §3)
 * @param topics topic names
 * @param stateFile where the applied state is kept across restarts
 * @param pollTimeout longest wait of one poll of the command topics
 * @param progressInterval how often running copies are reported (COPY PROGRESS keeps the
 *     coordinator's stall timer from firing, so this must be well under its copy-stall timeout)
 * @param kafka client settings shared by the agent's consumer, producer and serdes: at least
 *     {@code bootstrap.servers} and {@code schema.registry.url}
 * @param epochs how far a weight or commit epoch may jump past the applied one
 * @param keepFinished how long records of finished migrations are kept against redelivered
 *     commands (at least the command topic's retention); zero: forever
 * @param keys this node's key (docs/security.md): with one, migration commands must carry the
 *     migrator's signature for this node and the answers are signed; {@link NodeKeys#none()}: neither
 */
public record AgentSettings(
        String cluster, String node, int slotCount, Topics topics, Path stateFile,
        Duration pollTimeout, Duration progressInterval, Map<String, Object> kafka,
        EpochBound epochs, Duration keepFinished, NodeKeys keys) {

    public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(500);
    public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofSeconds(5);

    public AgentSettings {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(node, "node");
        SlotTable.requireSlotCount(slotCount);
        Objects.requireNonNull(topics, "topics");
        Objects.requireNonNull(stateFile, "stateFile");
        Objects.requireNonNull(pollTimeout, "pollTimeout");
        Objects.requireNonNull(progressInterval, "progressInterval");
        kafka = Map.copyOf(kafka);
        if (node.isBlank()) {
            throw new IllegalArgumentException("node id must not be blank");
        }
        Objects.requireNonNull(epochs, "epochs");
        Objects.requireNonNull(keepFinished, "keepFinished");
        Objects.requireNonNull(keys, "keys");
        if (keys.configured() && keys.signer(node).isEmpty()) {
            throw new IllegalArgumentException("the node keys hold no key for node " + node);
        }
    }

    /** Settings with the default epoch bound, finished records kept forever, and no key. */
    public AgentSettings(String cluster, String node, int slotCount, Topics topics, Path stateFile,
                         Duration pollTimeout, Duration progressInterval, Map<String, Object> kafka) {
        this(cluster, node, slotCount, topics, stateFile, pollTimeout, progressInterval, kafka, EpochBound.defaults(),
                Duration.ZERO, NodeKeys.none());
    }

    /** Settings with the defaults of docs/design.md: 256 slots, topics prefixed {@code skew.}, 500 ms polls, progress every 5 s. */
    public static AgentSettings defaults(String cluster, String node, Path stateFile, Map<String, Object> kafka) {
        return new AgentSettings(cluster, node, SlotTable.DEFAULT_SLOT_COUNT, Topics.defaults(), stateFile,
                DEFAULT_POLL_TIMEOUT, DEFAULT_PROGRESS_INTERVAL, kafka);
    }

    /** The agent's consumer group: one per node, so every agent reads every command once. */
    public String groupId() {
        return "skewguard-agent-" + node;
    }
}
