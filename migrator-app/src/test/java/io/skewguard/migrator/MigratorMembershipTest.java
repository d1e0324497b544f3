package io.skewguard.migrator;

import static io.skewguard.migrator.MigratorHarness.CLUSTER;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SlotAssignment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The migrator follows membership: joins, drains (and cancel), losses and operator removes. */
class MigratorMembershipTest {

    private static final long GB = 1L << 30;
    private static final long[] COLD = new long[16];
    /** Six nodes on three racks. */
    private static final Map<String, String> RACKS = Map.of("n1", "r1", "n2", "r2", "n3", "r3", "n4", "r1", "n5", "r2", "n6", "r3");

    @TempDir
    Path stateDir;

    private MigratorHarness harness;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    /**
     * Six 1000 GB nodes, the table built by the migrator from their first reports (16 slots, 2
     * candidates, racks distinct in every set); every node holds 30 GB of every slot whose set
     * names it.
     */
    private SimulatedAgents balanced(Map<String, String> overrides) {
        SimulatedAgents agents = new SimulatedAgents(CLUSTER);
        RACKS.forEach((id, rack) -> agents.node(id, 1000 * GB, rack, Map.of()));
        harness = new MigratorHarness(stateDir, overrides);
        harness.sendCapacity(agents);
        harness.sendReport(agents, 6_000_000_000L, COLD);
        harness.sendReport(agents, 600_000_000L, COLD);
        // the first plan builds the table (the cluster is balanced: the repair ends at once);
        // the nodes fill what the table gives them
        harness.sendAlert(io.skewguard.schemas.AlertState.OBSERVING, io.skewguard.schemas.AlertState.CONFIRMED, 0.3);
        harness.latestRows().forEach((slot, row) -> row.getCandidates().forEach(n -> agents.nodes.get(n).shards().put(slot, 30 * GB)));
        harness.sendCapacity(agents);
        harness.repairStatus.clear();
        return agents;
    }

    private void assertRacksDistinct(Map<Integer, SlotAssignment> rows, Map<String, String> racks) {
        rows.forEach((slot, row) -> assertThat(row.getCandidates().stream().map(racks::get).distinct().count())
                .as("racks of slot %d: %s", slot, row.getCandidates()).isEqualTo(row.getCandidates().size()));
    }

    private List<NodeMembership> membership(String node) {
        return harness.allMembership.stream().filter(m -> m.getNode().equals(node)).toList();
    }

    @Test
    void theNodesOfTheRingAreWrittenAsMembersAndAJoiningNodeIsFilledUntilTheCvIsUnderTheTarget() {
        SimulatedAgents agents = balanced(Map.of("max-parallel", "3", "slot-count", "64"));
        assertThat(harness.allMembership).extracting(NodeMembership::getNode).containsExactlyInAnyOrderElementsOf(RACKS.keySet());
        assertThat(harness.allMembership).allMatch(m -> m.getState() == MembershipState.ACTIVE && m.getSource().equals("migrator"));

        agents.node("n7", 1000 * GB, "r4", Map.of());
        harness.sendCapacity(agents);
        harness.runAgents(agents, 10_000);

        assertThat(membership("n7")).singleElement().satisfies(m -> {
            assertThat(m.getState()).isEqualTo(MembershipState.ACTIVE);
            assertThat(m.getReason()).startsWith("joined: first capacity report");
        });
        assertThat(harness.repairStatus.get(0).getMessage()).isEqualTo("repair started: node n7 joined");
        assertThat(harness.repairStatus.get(harness.repairStatus.size() - 1).getMessage()).startsWith("repair done");
        assertThat(agents.nodes.get("n7").shards()).isNotEmpty();
        assertThat(agents.capacityCv()).isLessThanOrEqualTo(0.10);
    }

    @Test
    void withAutoJoinOffANewNodeIsLeftOutOfPlansUntilAnOperatorAddsIt() {
        SimulatedAgents agents = balanced(Map.of("auto-join", "false"));
        int before = harness.allMembership.size();
        agents.node("n7", 1000 * GB, "r1", Map.of());
        harness.sendCapacity(agents);
        harness.runAgents(agents, 10_000);
        assertThat(harness.allMembership).hasSize(before);
        assertThat(harness.allCommands).isEmpty();

        harness.sendOperator("n7", MembershipState.ACTIVE);
        harness.runAgents(agents, 10_000);
        assertThat(agents.nodes.get("n7").shards()).isNotEmpty();
    }

    @Test
    void aDrainMarksTheNodeReadOnlyMovesEveryShardAwayAndReplacesItInEverySetDrained() {
        SimulatedAgents agents = balanced(Map.of("max-parallel", "2"));
        long epochBefore = harness.latestRows().values().stream().mapToLong(SlotAssignment::getRoutingEpoch).max().orElseThrow();
        Set<Integer> held = new HashSet<>(agents.nodes.get("n3").shards().keySet());

        harness.sendOperator("n3", MembershipState.DRAINING);

        // one update marks n3 read-only wherever it is a candidate
        List<SlotAssignment> marks = harness.allRows.stream().filter(r -> r.getRoutingEpoch() == epochBefore + 1
                && r.getInFlightTarget() == null).toList(); // not the in-flight marks of the batch that follows
        assertThat(marks).extracting(SlotAssignment::getSlot).containsExactlyInAnyOrderElementsOf(held);
        assertThat(marks).allMatch(r -> r.getReadOnly().equals(List.of("n3")));
        assertThat(harness.repairStatus.get(0).getMessage()).startsWith("repair started: node n3 draining (" + held.size() + " shards");

        // the agents answer one command at a time; no slot ever drops n3 while only n3 holds its data
        for (int step = 0; step < 10_000 && !harness.pending.isEmpty(); step++) {
            harness.runAgents(agents, 1);
            Map<Integer, Long> onN3 = agents.nodes.get("n3").shards();
            harness.latestRows().forEach((slot, row) -> {
                if (onN3.getOrDefault(slot, 0L) > 0 && !row.getCandidates().contains("n3")) {
                    assertThat(row.getCandidates()).as("slot %d", slot)
                            .anyMatch(n -> agents.nodes.get(n).shards().getOrDefault(slot, 0L) >= onN3.get(slot));
                }
            });
        }
        harness.sendCapacity(agents);

        assertThat(agents.nodes.get("n3").shards()).isEmpty();
        assertThat(harness.latestRows().values()).noneMatch(r -> r.getCandidates().contains("n3") || r.getReadOnly().contains("n3"));
        NodeMembership drained = membership("n3").get(membership("n3").size() - 1);
        assertThat(drained.getState()).isEqualTo(MembershipState.DRAINED);
        assertThat(drained.getReason()).startsWith("drained: " + held.size() + " shards");
        assertRacksDistinct(harness.latestRows(), RACKS);
        assertThat(agents.serialQueueViolations).isEmpty();
        // nothing was copied to the draining node
        assertThat(harness.allCommands).noneMatch(c -> c.getPhase() == MigrationPhase.COPY && c.getTargetNode().equals("n3"));
    }

    @Test
    void aCleanupSentAgainAfterADrainMarkRaisedItsRowStillNamesTheRoutingEpochOfTheSwitch() {
        SimulatedAgents agents = balanced(Map.of("max-parallel", "1"));
        // n7 joins: a repair moves a shard to it; its source's CLEANUP goes unanswered for now
        agents.silentWhen = c -> c.getPhase() == MigrationPhase.CLEANUP;
        agents.node("n7", 1000 * GB, "r4", Map.of());
        harness.sendCapacity(agents);
        harness.runAgents(agents, 10_000);
        MigrationCommand cleanup = harness.allCommands.stream().filter(c -> c.getPhase() == MigrationPhase.CLEANUP).findFirst().orElseThrow();
        long switchEpoch = cleanup.getRoutingEpoch();
        SlotAssignment switched = harness.latestRows().get(cleanup.getSlot());
        assertThat(switched.getRoutingEpoch()).isEqualTo(switchEpoch);
        String other = switched.getCandidates().stream().filter(n -> !n.equals(cleanup.getTargetNode())).findFirst().orElseThrow();

        // a drain of another candidate of the slot marks it read-only: the row's routing epoch goes up
        harness.sendOperator(other, MembershipState.DRAINING);
        assertThat(harness.latestRows().get(cleanup.getSlot()).getRoutingEpoch()).isGreaterThan(switchEpoch);

        // the unanswered CLEANUP goes out again, at the epoch the source committed at, and is applied
        agents.silentWhen = c -> false;
        harness.advance(Duration.ofSeconds(31));
        harness.runAgents(agents, 10_000);
        assertThat(harness.allCommands).filteredOn(c -> c.getMigrationId().equals(cleanup.getMigrationId())
                        && (c.getPhase() == MigrationPhase.CLEANUP || c.getPhase() == MigrationPhase.COMMIT))
                .hasSizeGreaterThan(3)
                .allSatisfy(c -> assertThat(c.getRoutingEpoch()).as(c.getCommandId()).isEqualTo(switchEpoch));
        assertThat(agents.epochRefusals).isEmpty();
        assertThat(agents.nodes.get(cleanup.getSourceNode()).shards()).doesNotContainKey(cleanup.getSlot());
    }

    @Test
    void cancellingADrainClearsTheReadOnlyMarksInOneUpdate() {
        SimulatedAgents agents = balanced(Map.of());
        agents.silentWhen = c -> true; // nothing moves
        harness.sendOperator("n3", MembershipState.DRAINING);
        long marked = harness.latestRows().values().stream().mapToLong(SlotAssignment::getRoutingEpoch).max().orElseThrow();

        harness.sendOperator("n3", MembershipState.ACTIVE);

        assertThat(harness.latestRows().values()).noneMatch(r -> r.getReadOnly().contains("n3"));
        List<SlotAssignment> cleared = harness.allRows.stream().filter(r -> r.getRoutingEpoch() == marked + 1).toList();
        assertThat(cleared).isNotEmpty().allMatch(r -> r.getCandidates().contains("n3"));
        NodeMembership cancel = membership("n3").get(membership("n3").size() - 1);
        assertThat(cancel.getState()).isEqualTo(MembershipState.ACTIVE);
        assertThat(cancel.getSource()).isEqualTo("migrator");
        assertThat(cancel.getReason()).startsWith("drain cancelled").contains("routing epoch " + (marked + 1));
    }

    @Test
    void aLostNodeIsReplacedInEverySetInOneUpdateKeepingRacksDistinctAndItsSlotsAreNamedForRebuild() {
        SimulatedAgents agents = balanced(Map.of("node-expiry", "1m"));
        Set<Integer> held = new HashSet<>(agents.nodes.get("n3").shards().keySet());
        long epochBefore = harness.latestRows().values().stream().mapToLong(SlotAssignment::getRoutingEpoch).max().orElseThrow();
        agents.nodes.remove("n3");
        for (int i = 0; i < 8; i++) {
            harness.advance(Duration.ofSeconds(15));
            harness.sendCapacity(agents);
        }

        NodeMembership lost = membership("n3").get(membership("n3").size() - 1);
        assertThat(lost.getState()).isEqualTo(MembershipState.LOST);
        assertThat(lost.getRoutingEpoch()).isEqualTo(epochBefore + 1);
        assertThat(lost.getReason()).startsWith("lost: no capacity report for 1m; replaced in " + held.size()
                + " candidate sets at routing epoch " + (epochBefore + 1) + "; rebuild from replicas: " + held.size() + " slots");
        List<SlotAssignment> update = harness.allRows.stream().filter(r -> r.getRoutingEpoch() == epochBefore + 1).toList();
        assertThat(update).extracting(SlotAssignment::getSlot).containsExactlyInAnyOrderElementsOf(held);
        assertThat(harness.latestRows().values()).noneMatch(r -> r.getCandidates().contains("n3"));
        assertRacksDistinct(harness.latestRows(), RACKS);
        assertThat(harness.repairStatus).extracting(s -> s.getMessage()).anyMatch(m -> m.startsWith("node n3 lost"));
    }

    @Test
    void aLossAbortsARunningBatchThatTouchesTheNodeBeforeItsCommitPoint() {
        SimulatedAgents agents = balanced(Map.of("node-expiry", "1m"));
        harness.sendOperator("n3", MembershipState.DRAINING);
        // the COPY commands stay unanswered; n3, a source of the batch, goes silent
        List<String> batchNodes = harness.pending.stream().filter(c -> c.getPhase() == MigrationPhase.COPY)
                .flatMap(c -> java.util.stream.Stream.of(c.getSourceNode(), c.getTargetNode())).toList();
        assertThat(batchNodes).contains("n3");
        agents.nodes.remove("n3");
        for (int i = 0; i < 8; i++) {
            harness.advance(Duration.ofSeconds(15));
            harness.sendCapacity(agents);
        }

        assertThat(harness.allCommands).anyMatch(c -> c.getPhase() == MigrationPhase.ABORT);
        assertThat(harness.allCommands).noneMatch(c -> c.getPhase() == MigrationPhase.PREPARE);
        assertThat(membership("n3").get(membership("n3").size() - 1).getState()).isEqualTo(MembershipState.LOST);
        assertThat(harness.latestRows().values()).noneMatch(r -> r.getCandidates().contains("n3") || "n3".equals(r.getInFlightSource()));
    }

    @Test
    void anOperatorRemoveReplacesTheNodeAndTheMigratorRecordsWhatToRebuild() {
        SimulatedAgents agents = balanced(Map.of());
        Set<Integer> held = new HashSet<>(agents.nodes.get("n2").shards().keySet());

        harness.sendOperator("n2", MembershipState.REMOVED);

        NodeMembership removed = membership("n2").get(membership("n2").size() - 1);
        assertThat(removed.getState()).isEqualTo(MembershipState.REMOVED);
        assertThat(removed.getSource()).isEqualTo("migrator");
        assertThat(removed.getReason()).startsWith("removed by an operator; replaced in " + held.size())
                .contains("rebuild from replicas: " + held.size() + " slots");
        assertThat(harness.latestRows().values()).noneMatch(r -> r.getCandidates().contains("n2"));
        assertRacksDistinct(harness.latestRows(), RACKS);
    }

    @Test
    void aDrainOfANodeTheClusterDoesNotKnowIsDeadLetteredAndChangesNothing() {
        balanced(Map.of());
        int rows = harness.allRows.size();
        harness.dlq.readRecordsToList();

        harness.sendOperator("n9", MembershipState.DRAINING);

        List<TestRecord<byte[], byte[]>> dead = harness.dlq.readRecordsToList();
        assertThat(dead).hasSize(1);
        String reason = new String(dead.get(0).headers().lastHeader(DeadLetter.REASON).value(), StandardCharsets.UTF_8);
        assertThat(reason).startsWith("invalid: ").contains("n9");
        assertThat(harness.allRows).hasSize(rows);
        assertThat(harness.repairStatus).isEmpty();
    }

    @Test
    void recordsTheMigratorWroteItselfAreIgnoredOnItsInput() {
        balanced(Map.of());
        int rows = harness.allRows.size();
        long now = harness.tick();
        harness.membershipIn.pipeInput(CLUSTER + "/n3", NodeMembership.newBuilder().setCluster(CLUSTER).setNode("n3")
                .setState(MembershipState.LOST).setSource("migrator").setUpdatedAt(java.time.Instant.ofEpochMilli(now)).build(), now);
        harness.drainOutputs();
        assertThat(harness.allRows).hasSize(rows);
        assertThat(harness.dlq.readRecordsToList()).isEmpty();
    }
}
