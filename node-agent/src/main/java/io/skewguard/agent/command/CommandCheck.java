package io.skewguard.agent.command;

import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.WeightCommand;
import java.util.Objects;
import java.util.Optional;

/**
 * Validation of a decoded command addressed to this agent, before it reaches the
 * {@link CommandApplier}. A command that fails goes to the dead-letter topic with the reason
 * returned here (docs/design.md §5); it is never applied and never crashes the agent.
 *
 * @param cluster the cluster this agent's node belongs to
 * @param node this agent's node
 * @param slotCount S, to check slots
 */
public record CommandCheck(String cluster, String node, int slotCount) {

    /** Lowest weight factor (docs/design.md §2, §7). */
    public static final double MIN_WEIGHT = 0.5;
    /** Highest weight factor (docs/design.md §2, §7). */
    public static final double MAX_WEIGHT = 2.0;

    public CommandCheck {
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(node, "node");
    }

    /** Why {@code c} must not be applied here, or empty if it may. */
    public Optional<String> problem(WeightCommand c) {
        if (!node.equals(c.getNode())) {
            return Optional.of("weight command names node " + c.getNode() + ", this agent is " + node);
        }
        if (!cluster.equals(c.getCluster())) {
            return Optional.of("weight command is for cluster " + c.getCluster() + ", this agent's cluster is " + cluster);
        }
        if (c.getEpoch() < 0) {
            return Optional.of("weight command has negative epoch " + c.getEpoch());
        }
        double w = c.getNewWeight();
        if (!(w >= MIN_WEIGHT && w <= MAX_WEIGHT)) {
            return Optional.of("weight factor " + w + " is outside [" + MIN_WEIGHT + ", " + MAX_WEIGHT + "]");
        }
        return Optional.empty();
    }

    /** Why {@code c} must not be applied here, or empty if it may. */
    public Optional<String> problem(MigrationCommand c) {
        if (!node.equals(c.getNode())) {
            return Optional.of("migration command names node " + c.getNode() + ", this agent is " + node);
        }
        if (!cluster.equals(c.getCluster())) {
            return Optional.of("migration command is for cluster " + c.getCluster() + ", this agent's cluster is " + cluster);
        }
        if (c.getMigrationId().isBlank()) {
            return Optional.of("migration command has no migration id");
        }
        if (c.getSlot() < 0 || c.getSlot() >= slotCount) {
            return Optional.of("slot " + c.getSlot() + " is outside [0, " + slotCount + ")");
        }
        if (c.getSourceNode().equals(c.getTargetNode())) {
            return Optional.of("source and target are the same node " + c.getSourceNode());
        }
        if (c.getMaxBytesPerSec() < 0 || c.getShardBytes() < 0) {
            return Optional.of("negative size or rate: shardBytes " + c.getShardBytes() + ", maxBytesPerSec " + c.getMaxBytesPerSec());
        }
        boolean target = node.equals(c.getTargetNode());
        boolean source = node.equals(c.getSourceNode());
        String misdirected = switch (c.getPhase()) {
            case COPY -> target ? null : "COPY goes to the target " + c.getTargetNode();
            case CLEANUP -> source ? null : "CLEANUP goes to the source " + c.getSourceNode();
            case PREPARE, COMMIT, ABORT -> target || source ? null
                    : c.getPhase() + " goes to source " + c.getSourceNode() + " and target " + c.getTargetNode();
        };
        return Optional.ofNullable(misdirected).map(m -> m + ", not to " + node);
    }
}
