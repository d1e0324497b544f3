package io.skewguard.migrator;

import io.skewguard.core.stats.CoefficientOfVariation;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.StepResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Storage nodes as far as the coordinator can tell: each holds shards (slot → bytes), answers
 * every command the way an agent would, and reports its capacity. Scripted faults: a command
 * matching {@link #failWhen} is answered FAILED, one matching {@link #silentWhen} is never answered.
 *
 * <p>It also checks the per-node serial queue from the outside: a node asked to COPY, PREPARE or
 * COMMIT for one migration while another of its migrations has not ended (CLEANUP or ABORT answered)
 * is recorded in {@link #serialQueueViolations}.
 *
 * <p>Like an agent, a node keeps the routing epoch it committed each migration at, and refuses
 * (FAILED, recorded in {@link #epochRefusals}) a CLEANUP or a repeated COMMIT naming another one.
 */
final class SimulatedAgents {

    record Node(String id, long totalBytes, String rack, TreeMap<Integer, Long> shards) {
        long used() {
            return shards.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    final String cluster;
    final Map<String, Node> nodes = new TreeMap<>();
    final List<MigrationCommand> received = new ArrayList<>();
    final List<String> serialQueueViolations = new ArrayList<>();
    Predicate<MigrationCommand> failWhen = c -> false;
    Predicate<MigrationCommand> silentWhen = c -> false;
    final List<String> epochRefusals = new ArrayList<>();
    private final Map<String, String> runningMigrationOf = new HashMap<>();
    /** "node migrationId" → routing epoch of the COMMIT applied there. */
    private final Map<String, Long> commitEpochs = new HashMap<>();
    private final Map<String, Set<String>> abortAcks = new HashMap<>();

    SimulatedAgents(String cluster) {
        this.cluster = cluster;
    }

    SimulatedAgents node(String id, long totalBytes, Map<Integer, Long> shards) {
        return node(id, totalBytes, null, shards);
    }

    SimulatedAgents node(String id, long totalBytes, String rack, Map<Integer, Long> shards) {
        nodes.put(id, new Node(id, totalBytes, rack, new TreeMap<>(shards)));
        return this;
    }

    /** Answers to {@code command}: empty when silent. Applies COMMIT and CLEANUP to the shards. */
    List<MigrationStatus> answer(MigrationCommand command, long now) {
        received.add(command);
        checkSerialQueue(command);
        if (silentWhen.test(command)) {
            return List.of();
        }
        if (!nodes.containsKey(command.getNode())) {
            return List.of(); // a node that is gone answers nothing
        }
        if (failWhen.test(command)) {
            return List.of(status(command, StepResult.FAILED, "scripted failure", now));
        }
        if (command.getPhase() == MigrationPhase.COMMIT || command.getPhase() == MigrationPhase.CLEANUP) {
            Long committed = commitEpochs.get(command.getNode() + " " + command.getMigrationId());
            if (committed != null && committed != command.getRoutingEpoch()) {
                String refusal = command.getPhase() + " of " + command.getMigrationId() + " on " + command.getNode() + " names routing epoch "
                        + command.getRoutingEpoch() + ", committed at " + committed;
                epochRefusals.add(refusal);
                return List.of(status(command, StepResult.FAILED, refusal, now));
            }
            if (command.getPhase() == MigrationPhase.COMMIT) {
                commitEpochs.put(command.getNode() + " " + command.getMigrationId(), command.getRoutingEpoch());
            }
        }
        Node node = nodes.get(command.getNode());
        switch (command.getPhase()) {
            case COMMIT -> {
                if (node.id().equals(command.getTargetNode())) {
                    node.shards().put(command.getSlot(), command.getShardBytes());
                }
            }
            case CLEANUP -> {
                node.shards().remove(command.getSlot());
                runningMigrationOf.remove(command.getSourceNode());
                runningMigrationOf.remove(command.getTargetNode());
            }
            case ABORT -> {
                Set<String> acks = abortAcks.computeIfAbsent(command.getMigrationId(), k -> new HashSet<>());
                acks.add(command.getNode());
                if (acks.size() == 2) {
                    runningMigrationOf.remove(command.getSourceNode());
                    runningMigrationOf.remove(command.getTargetNode());
                }
            }
            default -> { }
        }
        return List.of(status(command, StepResult.DONE, null, now));
    }

    private void checkSerialQueue(MigrationCommand c) {
        if (c.getPhase() == MigrationPhase.CLEANUP || c.getPhase() == MigrationPhase.ABORT) {
            return;
        }
        for (String node : List.of(c.getSourceNode(), c.getTargetNode())) {
            String running = runningMigrationOf.putIfAbsent(node, c.getMigrationId());
            if (running != null && !running.equals(c.getMigrationId())) {
                serialQueueViolations.add(node + " in " + running + " and " + c.getMigrationId());
            }
        }
    }

    private MigrationStatus status(MigrationCommand c, StepResult outcome, String message, long now) {
        return MigrationStatus.newBuilder()
                .setCluster(c.getCluster())
                .setMigrationId(c.getMigrationId())
                .setCommandId(c.getCommandId())
                .setNode(c.getNode())
                .setPhase(c.getPhase())
                .setOutcome(outcome)
                .setBytesCopied(c.getPhase() == MigrationPhase.COPY ? c.getShardBytes() : 0)
                .setMessage(message)
                .setEventTime(Instant.ofEpochMilli(now))
                .build();
    }

    List<CapacityEvent> capacityReports(long now) {
        List<CapacityEvent> events = new ArrayList<>();
        for (Node n : nodes.values()) {
            List<ShardUsage> shards = new ArrayList<>();
            n.shards().forEach((slot, bytes) -> shards.add(new ShardUsage(slot, bytes)));
            events.add(CapacityEvent.newBuilder()
                    .setCluster(cluster)
                    .setNode(n.id())
                    .setUsedBytes(n.used())
                    .setTotalBytes(n.totalBytes())
                    .setRack(n.rack())
                    .setShards(shards)
                    .setEventTime(Instant.ofEpochMilli(now))
                    .build());
        }
        return events;
    }

    double capacityCv() {
        return CoefficientOfVariation.of(nodes.values().stream().mapToDouble(n -> (double) n.used() / n.totalBytes()).toArray());
    }
}
