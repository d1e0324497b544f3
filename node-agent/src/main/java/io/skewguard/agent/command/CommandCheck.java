package io.skewguard.agent.command;

import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.WeightCommand;
import java.nio.charset.StandardCharsets;
import io.skewguard.schemas.DeadLetter;
import java.util.Objects;
import java.util.Optional;

/**
 * Validation of a decoded command addressed to this agent, before it reaches the
 * {@link CommandApplier}. A command that fails goes to the dead-letter topic with the reason
 * returned here (docs/design.md §5); it is never applied and never crashes the agent. Every reason
 * starts with {@code invalid: } and quotes ids and values cut by {@link DeadLetter#quote}, so a
 * dead letter never grows past the command.
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

    /**
     * Longest migration id accepted, in UTF-8 bytes: the migrator's ids are a cluster id, a batch and
     * a slot at a node id, each id at most 255 bytes; the agent keeps them in its state file.
     */
    public static final int MAX_MIGRATION_ID_BYTES = 1024;
    /** Longest command id accepted, in UTF-8 bytes: a migration id and a phase and node. */
    public static final int MAX_COMMAND_ID_BYTES = 2048;
    /** Longest weight command reason accepted, in UTF-8 bytes: a line for people, logged as it is. */
    public static final int MAX_REASON_BYTES = 4096;

    /** Why {@code c} must not be applied here, or empty if it may. */
    public Optional<String> problem(WeightCommand c) {
        return Optional.ofNullable(weightProblem(c)).map(p -> "invalid: " + p);
    }

    /** Why {@code c} must not be applied here, or empty if it may. */
    public Optional<String> problem(MigrationCommand c) {
        return Optional.ofNullable(migrationProblem(c)).map(p -> "invalid: " + p);
    }

    private String weightProblem(WeightCommand c) {
        if (!node.equals(c.getNode())) {
            return "weight command names node " + DeadLetter.quote(c.getNode()) + ", this agent is " + node;
        }
        if (!cluster.equals(c.getCluster())) {
            return "weight command is for cluster " + DeadLetter.quote(c.getCluster()) + ", this agent's cluster is " + cluster;
        }
        String id = idProblem("command id", c.getCommandId(), MAX_COMMAND_ID_BYTES);
        if (id != null) {
            return "weight command " + id;
        }
        if (c.getEpoch() < 0) {
            return "weight command has negative epoch " + c.getEpoch();
        }
        double w = c.getNewWeight();
        if (!(w >= MIN_WEIGHT && w <= MAX_WEIGHT)) {
            return "weight factor " + w + " is outside [" + MIN_WEIGHT + ", " + MAX_WEIGHT + "]";
        }
        // the factor it replaces is only reported, but one that is not a number says the sender is broken
        if (!Double.isFinite(c.getOldWeight())) {
            return "weight command's old weight factor " + c.getOldWeight() + " is not a number";
        }
        int reason = c.getReason() == null ? 0 : c.getReason().getBytes(StandardCharsets.UTF_8).length;
        if (reason > MAX_REASON_BYTES) {
            return "weight command's reason of " + reason + " bytes is longer than " + MAX_REASON_BYTES;
        }
        return null;
    }

    private String migrationProblem(MigrationCommand c) {
        if (!node.equals(c.getNode())) {
            return "migration command names node " + DeadLetter.quote(c.getNode()) + ", this agent is " + node;
        }
        if (!cluster.equals(c.getCluster())) {
            return "migration command is for cluster " + DeadLetter.quote(c.getCluster()) + ", this agent's cluster is " + cluster;
        }
        if (c.getMigrationId().isBlank()) {
            return "migration command has no migration id";
        }
        String id = idProblem("migration id", c.getMigrationId(), MAX_MIGRATION_ID_BYTES);
        if (id == null) {
            id = idProblem("command id", c.getCommandId(), MAX_COMMAND_ID_BYTES);
        }
        if (id != null) {
            return "migration command " + id;
        }
        if (c.getSlot() < 0 || c.getSlot() >= slotCount) {
            return "slot " + c.getSlot() + " is outside [0, " + slotCount + ")";
        }
        if (c.getSourceNode().equals(c.getTargetNode())) {
            return "source and target are the same node " + DeadLetter.quote(c.getSourceNode());
        }
        if (c.getMaxBytesPerSec() < 0 || c.getShardBytes() < 0) {
            return "negative size or rate: shardBytes " + c.getShardBytes() + ", maxBytesPerSec " + c.getMaxBytesPerSec();
        }
        if (c.getRoutingEpoch() < 0) {
            return "migration command has negative routing epoch " + c.getRoutingEpoch();
        }
        boolean target = node.equals(c.getTargetNode());
        boolean source = node.equals(c.getSourceNode());
        String misdirected = switch (c.getPhase()) {
            case COPY -> target ? null : "COPY goes to the target " + DeadLetter.quote(c.getTargetNode());
            case CLEANUP -> source ? null : "CLEANUP goes to the source " + DeadLetter.quote(c.getSourceNode());
            case PREPARE, COMMIT, ABORT -> target || source ? null
                    : c.getPhase() + " goes to source " + DeadLetter.quote(c.getSourceNode()) + " and target "
                            + DeadLetter.quote(c.getTargetNode());
        };
        return misdirected == null ? null : misdirected + ", not to " + node;
    }

    /** Why {@code id} (a {@code what}) cannot be kept: empty, longer than {@code maxBytes}, or holding a control character. */
    private static String idProblem(String what, String id, int maxBytes) {
        if (id == null || id.isEmpty()) {
            return "has an empty " + what;
        }
        int bytes = id.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > maxBytes) {
            return "has a " + what + " of " + bytes + " bytes, more than " + maxBytes + ": " + DeadLetter.quote(id);
        }
        for (int i = 0; i < id.length(); i++) {
            if (Character.isISOControl(id.charAt(i))) {
                return "has a " + what + " holding control character U+" + String.format("%04X", (int) id.charAt(i));
            }
        }
        return null;
    }
}
