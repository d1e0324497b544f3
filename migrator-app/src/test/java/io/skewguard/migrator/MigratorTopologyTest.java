package io.skewguard.migrator;

import static io.skewguard.migrator.MigratorHarness.CLUSTER;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MigratorTopologyTest {

    private static final long GB = 1L << 30;
    private static final List<String> NODES = List.of("n1", "n2", "n3", "n4", "n5", "n6");
    private static final long[] COLD = new long[16];

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
     * Six 1000 GB nodes; the slot table is the one the migrator builds from the ring (16 slots, 2
     * candidates). n1 and n2 hold 800 GB each, spread evenly over their shards, the others 30 GB per
     * shard: capacity CV far above 0.25, and two equally overloaded sources so batches hold two
     * migrations.
     */
    private SimulatedAgents skewedCluster() {
        List<Node> ring = NODES.stream().map(id -> new Node(id, null, 1.0)).toList();
        SlotTable table = SlotTable.fromRing(HashRing.of(ring, 150), 2, 16);
        SimulatedAgents agents = new SimulatedAgents(CLUSTER);
        for (String id : NODES) {
            List<Integer> held = new ArrayList<>();
            for (int slot = 0; slot < 16; slot++) {
                if (table.candidateIds(slot).contains(id)) {
                    held.add(slot);
                }
            }
            boolean heavy = id.equals("n1") || id.equals("n2");
            Map<Integer, Long> shards = new HashMap<>();
            for (int slot : held) {
                shards.put(slot, heavy ? 800 * GB / held.size() : 30 * GB);
            }
            agents.node(id, 1000 * GB, shards);
        }
        return agents;
    }

    private MigratorHarness start(Map<String, String> overrides, SimulatedAgents agents) {
        harness = new MigratorHarness(stateDir, overrides);
        harness.sendCapacity(agents);
        harness.sendReport(agents, 6_000_000_000L, COLD); // 100 MB/s: the first report is the peak
        harness.sendReport(agents, 600_000_000L, COLD); //   10 MB/s: a trough, full budget
        return harness;
    }

    @Test
    void confirmedCapacityAlertStartsARepairThatRunsBatchAfterBatchToTheTargetCvEvenAfterTheAlertClears() {
        SimulatedAgents agents = skewedCluster();
        double before = agents.capacityCv();
        start(Map.of("max-parallel", "2"), agents);

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, before);
        harness.runAgents(agents, 12); // part of the first batch
        harness.sendAlert(AlertState.CONFIRMED, AlertState.CLEARED, 0.2);
        harness.runAgents(agents, 10_000);

        assertThat(before).isGreaterThan(0.25);
        assertThat(agents.capacityCv()).isLessThanOrEqualTo(0.10);
        assertThat(batches(harness.allCommands)).hasSizeGreaterThan(1);
        assertThat(harness.repairStatus).extracting(MigrationStatus::getOutcome).containsExactly(StepResult.PROGRESS, StepResult.DONE);
        assertThat(harness.repairStatus.get(1).getMessage()).contains("repair done");
        assertThat(agents.serialQueueViolations).isEmpty();
    }

    @Test
    void theSlotTableIsBuiltFromTheRingPublishedAndChangedOnlyByCommitsEachRaisingTheRoutingEpochByOne() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-parallel", "2"), agents);

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        harness.runAgents(agents, 10_000);

        List<SlotAssignment> initial = harness.allRows.subList(0, 16);
        assertThat(initial).allMatch(r -> r.getRoutingEpoch() == 0 && r.getInFlightTarget() == null);
        List<Long> switchEpochs = harness.allRows.stream()
                .filter(r -> r.getRoutingEpoch() > 0 && r.getInFlightTarget() == null)
                .map(SlotAssignment::getRoutingEpoch).toList();
        long commits = harness.allCommands.stream()
                .filter(c -> c.getPhase() == MigrationPhase.CLEANUP).map(MigrationCommand::getMigrationId).distinct().count();
        assertThat(switchEpochs).hasSize((int) commits);
        for (int i = 0; i < switchEpochs.size(); i++) {
            assertThat(switchEpochs.get(i)).isEqualTo(i + 1L);
        }
        // the published table says exactly where the data is
        harness.latestRows().forEach((slot, row) -> {
            for (String node : NODES) {
                assertThat(row.getCandidates().contains(node))
                        .as("slot %d on %s", slot, node)
                        .isEqualTo(agents.nodes.get(node).shards().containsKey(slot));
            }
        });
    }

    @Test
    void copyNamesTheInFlightTargetInTheSlotTableFirstAndCarriesTheBudgetShareOfTheBatch() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-parallel", "2", "max-bytes-per-sec", "1000000"), agents);

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());

        List<MigrationCommand> copies = harness.pending.stream().filter(c -> c.getPhase() == MigrationPhase.COPY).toList();
        assertThat(copies).hasSize(2);
        for (MigrationCommand copy : copies) {
            assertThat(copy.getNode()).isEqualTo(copy.getTargetNode());
            assertThat(copy.getMaxBytesPerSec()).isEqualTo(500_000); // full budget (trough) shared by 2 copies
            SlotAssignment row = harness.latestRows().get(copy.getSlot());
            assertThat(row.getInFlightTarget()).isEqualTo(copy.getTargetNode());
            assertThat(row.getInFlightSource()).isEqualTo(copy.getSourceNode());
            assertThat(row.getMigrationId()).isEqualTo(copy.getMigrationId());
            assertThat(row.getRoutingEpoch()).isZero();
        }
        assertThat(metric("migration-budget-bytes-per-sec")).isEqualTo(1_000_000.0);
    }

    @Test
    void atPeakWriteLoadTheBudgetBacksOffToItsFloorButNeverToZero() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-parallel", "1", "max-bytes-per-sec", "1000000"), agents);
        harness.sendReport(agents, 6_000_000_000L, COLD); // back at the peak

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());

        assertThat(harness.pending).filteredOn(c -> c.getPhase() == MigrationPhase.COPY)
                .extracting(MigrationCommand::getMaxBytesPerSec).containsExactly(100_000L);
        assertThat(metric("migration-budget-bytes-per-sec")).isEqualTo(100_000.0);
    }

    @Test
    void commitsOfABatchGoOneByOneInLexicographicOrderOfShardIdEachAfterTheSlotSwitched() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-parallel", "2"), agents);

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        harness.runAgents(agents, 10_000);

        Map<String, List<MigrationCommand>> byBatch = batches(harness.allCommands);
        assertThat(byBatch.values()).anyMatch(cs -> cs.stream().filter(c -> c.getPhase() == MigrationPhase.COPY).count() == 2);
        for (List<MigrationCommand> batch : byBatch.values()) {
            List<String> commitOrder = batch.stream().filter(c -> c.getPhase() == MigrationPhase.COMMIT)
                    .map(MigrationCommand::getMigrationId).distinct().toList();
            assertThat(commitOrder).isSorted();
            // each COMMIT names the routing epoch after its switch
            batch.stream().filter(c -> c.getPhase() == MigrationPhase.COMMIT)
                    .forEach(c -> assertThat(c.getRoutingEpoch()).isPositive());
        }
        // the second commit of a batch is only sent after both participants acknowledged the first
        List<MigrationCommand> all = harness.allCommands;
        for (List<MigrationCommand> batch : byBatch.values()) {
            List<String> order = batch.stream().filter(c -> c.getPhase() == MigrationPhase.COMMIT)
                    .map(MigrationCommand::getMigrationId).distinct().toList();
            if (order.size() == 2) {
                int firstCleanup = indexOf(all, order.get(0), MigrationPhase.CLEANUP);
                int secondCommit = indexOf(all, order.get(1), MigrationPhase.COMMIT);
                assertThat(firstCleanup).isLessThan(secondCommit);
            }
        }
    }

    @Test
    void aNodeIsInAtMostOneRunningMigrationAndABatchHoldsOnlyDisjointPairsUpToTheLimit() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-parallel", "3"), agents);

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        harness.runAgents(agents, 10_000);

        assertThat(agents.serialQueueViolations).isEmpty();
        for (List<MigrationCommand> batch : batches(harness.allCommands).values()) {
            List<MigrationCommand> copies = batch.stream().filter(c -> c.getPhase() == MigrationPhase.COPY).toList();
            List<String> nodes = copies.stream().flatMap(c -> java.util.stream.Stream.of(c.getSourceNode(), c.getTargetNode())).toList();
            assertThat(nodes).doesNotHaveDuplicates();
            assertThat(copies).hasSizeLessThanOrEqualTo(3);
        }
        // batches never overlap: the next COPY comes after every answer to the previous batch
        List<String> batchOrder = harness.allCommands.stream().map(c -> batchOf(c.getMigrationId())).distinct().toList();
        assertThat(batchOrder).isSorted();
    }

    @Test
    void aFailedCopyAbortsTheWholeBatchLeavesTheSlotTableAsItWasAndTheRepairGoesOn() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-parallel", "2"), agents);
        agents.failWhen = c -> c.getPhase() == MigrationPhase.COPY && c.getMigrationId().contains("/b000001/")
                && c.getMigrationId().equals(firstCopy(harness).getMigrationId());

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        harness.runAgents(agents, 10_000);

        assertAbortedFirstBatch(1); // a failed copy while the batch copies aborts all of it
        assertThat(agents.capacityCv()).isLessThanOrEqualTo(0.10);
    }

    @Test
    void aRejectedPrepareAbortsItsSwitchAndTheCarriedCopyAbortsInTheSwitchItIsIn() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-parallel", "2"), agents);
        agents.failWhen = c -> c.getPhase() == MigrationPhase.PREPARE && c.getMigrationId().contains("/b000001/")
                && c.getNode().equals(c.getSourceNode());

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        harness.runAgents(agents, 10_000);

        // the first complete copy switches alone and is rejected; the other, carried, switches in the
        // next batch and is rejected there: two aborted switches
        assertAbortedFirstBatch(2);
    }

    @Test
    void aPrepareUnansweredPastItsTimeoutAbortsItsSwitchOnTheClock() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-parallel", "2", "prepare-timeout", "30s"), agents);
        agents.silentWhen = c -> c.getPhase() == MigrationPhase.PREPARE && c.getMigrationId().contains("/b000001/")
                && c.getNode().equals(c.getTargetNode());

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        harness.runAgents(agents, 10_000);
        assertThat(harness.allCommands).noneMatch(c -> c.getPhase() == MigrationPhase.ABORT);
        harness.advance(Duration.ofSeconds(31));
        harness.runAgents(agents, 10_000);
        // the carried copy switches in the next batch and waits there for its own timeout
        harness.advance(Duration.ofSeconds(31));
        harness.runAgents(agents, 10_000);

        assertAbortedFirstBatch(2);
    }

    @Test
    void aRestartBetweenTwoCommitsOfABatchResumesWithTheSecondCommitAndRunsNothingTwice() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-parallel", "2"), agents);
        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        // answer everything until the first COMMIT of the first batch has been sent, then crash
        while (harness.pending.stream().noneMatch(c -> c.getPhase() == MigrationPhase.COMMIT)) {
            harness.runAgents(agents, 1);
        }
        List<MigrationCommand> firstCommits = harness.pending.stream().filter(c -> c.getPhase() == MigrationPhase.COMMIT).toList();
        assertThat(firstCommits).hasSize(2).extracting(MigrationCommand::getMigrationId).containsOnly(firstCommits.get(0).getMigrationId());
        int sentBeforeCrash = harness.allCommands.size();

        harness.restart();
        assertThat(harness.allCommands).hasSize(sentBeforeCrash); // a restart alone sends nothing
        harness.runAgents(agents, 10_000);

        List<MigrationCommand> batch1 = batches(harness.allCommands).get("b000001");
        List<String> commitOrder = batch1.stream().filter(c -> c.getPhase() == MigrationPhase.COMMIT)
                .map(MigrationCommand::getMigrationId).distinct().toList();
        assertThat(commitOrder).hasSize(2).isSorted();
        assertThat(harness.allCommands).extracting(MigrationCommand::getCommandId).doesNotHaveDuplicates();
        assertThat(harness.allRows.stream().filter(r -> r.getRoutingEpoch() > 0 && r.getInFlightTarget() == null)
                .map(SlotAssignment::getRoutingEpoch).toList()).doesNotHaveDuplicates();
        assertThat(agents.capacityCv()).isLessThanOrEqualTo(0.10);
        assertThat(harness.repairStatus).extracting(MigrationStatus::getOutcome).endsWith(StepResult.DONE);
    }

    @Test
    void aRepairedClusterThatDriftsAboveTheMaintenanceLevelIsRepairedAgainWithoutAnAlert() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-parallel", "2", "maintenance-hold", "0"), agents);
        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        harness.runAgents(agents, 10_000);
        assertThat(harness.repairStatus).extracting(MigrationStatus::getOutcome).containsExactly(StepResult.PROGRESS, StepResult.DONE);
        int commandsAfterRepair = harness.allCommands.size();

        // a report at the level changes nothing; then today's writes pile onto n3's shards
        harness.sendReport(agents, 600_000_000L, COLD);
        assertThat(harness.repairStatus).hasSize(2);
        SimulatedAgents.Node n3 = agents.nodes.get("n3");
        Map<Integer, Long> fuller = new HashMap<>();
        n3.shards().forEach((slot, bytes) -> fuller.put(slot, bytes + 150 * GB / n3.shards().size()));
        agents.node("n3", n3.totalBytes(), fuller);
        double drifted = agents.capacityCv();
        assertThat(drifted).isGreaterThan(0.15).isLessThan(0.25); // above 1.5 × 0.10, under the alert
        harness.sendCapacity(agents);
        harness.sendReport(agents, 600_000_000L, COLD);

        assertThat(harness.repairStatus).hasSize(3);
        assertThat(harness.repairStatus.get(2).getOutcome()).isEqualTo(StepResult.PROGRESS);
        assertThat(harness.repairStatus.get(2).getMessage()).startsWith("maintenance repair started");
        harness.runAgents(agents, 10_000);
        assertThat(harness.allCommands.size()).isGreaterThan(commandsAfterRepair);
        assertThat(harness.repairStatus).last().satisfies(st -> {
            assertThat(st.getOutcome()).isEqualTo(StepResult.DONE);
            assertThat(st.getMessage()).contains("repair done");
        });
        assertThat(agents.capacityCv()).isLessThanOrEqualTo(0.10);
    }

    @Test
    void aBalancedClusterGetsNoMigrationAndTheRepairEndsAtOnce() {
        SimulatedAgents agents = new SimulatedAgents(CLUSTER);
        for (String id : NODES) {
            Map<Integer, Long> shards = new HashMap<>();
            shards.put(NODES.indexOf(id), 500 * GB);
            agents.node(id, 1000 * GB, shards);
        }
        start(Map.of(), agents);

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, 0.3);

        assertThat(harness.allCommands).isEmpty();
        assertThat(harness.repairStatus).extracting(MigrationStatus::getOutcome).containsExactly(StepResult.PROGRESS, StepResult.DONE);
    }

    @Test
    void whenNoMoveImprovesTheCvTheRepairStopsEarlyAndSaysSo() {
        // one slot per node, n1's shard far bigger than its excess: nothing may move
        SimulatedAgents agents = new SimulatedAgents(CLUSTER);
        agents.node("n1", 1000 * GB, Map.of(0, 900 * GB));
        agents.node("n2", 1000 * GB, Map.of(1, 100 * GB));
        start(Map.of(), agents);

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());

        assertThat(harness.allCommands).isEmpty();
        assertThat(harness.repairStatus).extracting(MigrationStatus::getOutcome).containsExactly(StepResult.PROGRESS, StepResult.FAILED);
        assertThat(harness.repairStatus.get(1).getMessage()).contains("no move improves");
        assertThat(metric("repairs-stopped-early-total")).isEqualTo(1.0);
    }

    @Test
    void undecodableAndInvalidInputGoesToTheDeadLetterTopicWithItsOriginAndProcessingGoesOn() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of(), agents);

        harness.rawCapacity.pipeInput("n1".getBytes(), new byte[] {7, 1, 2, 3});
        var invalid = agents.capacityReports(harness.tick()).get(0);
        invalid.setUsedBytes(invalid.getTotalBytes() + 1);
        harness.capacity.pipeInput("n1", invalid);
        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());

        List<TestRecord<byte[], byte[]>> dead = harness.dlq.readRecordsToList();
        assertThat(dead).hasSize(2);
        DeadLetter first = DeadLetter.fromHeaders(dead.get(0).headers());
        assertThat(first.sourceTopic()).isEqualTo("skew.node-capacity");
        assertThat(first.sourceOffset()).isGreaterThanOrEqualTo(0);
        assertThat(dead.get(0).value()).containsExactly(7, 1, 2, 3);
        assertThat(DeadLetter.fromHeaders(dead.get(1).headers()).reason()).contains("usedBytes");
        assertThat(metric("dead-letters-total")).isEqualTo(2.0);
        harness.drainOutputs();
        assertThat(harness.allCommands).anyMatch(c -> c.getPhase() == MigrationPhase.COPY);
    }

    /**
     * A node's latest capacity report is the one with the highest event time: one ten years ahead
     * would hide every later ordinary report of that node. It is refused, and the ordinary ones count.
     */
    @Test
    void aCapacityReportTenYearsAheadIsDeadLetteredAsFutureAndTheNodesOrdinaryReportsStillCount() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of(), agents);

        CapacityEvent ahead = agents.capacityReports(harness.tick()).get(0);
        ahead.setEventTime(java.time.Instant.ofEpochMilli(harness.clock + 3652L * 86_400_000));
        ahead.setUsedBytes(0);
        ahead.setShards(List.of());
        harness.capacity.pipeInput(ahead.getNode(), ahead);
        harness.sendCapacity(agents);

        assertThat(harness.dlq.readRecordsToList()).singleElement().satisfies(d -> assertThat(
                DeadLetter.fromHeaders(d.headers()).reason()).startsWith("future: eventTime").contains("ahead of this process's clock"));
        org.apache.kafka.streams.state.KeyValueStore<String, CapacityEvent> latest =
                harness.driver.getKeyValueStore(CoordinatorProcessor.CAPACITY_STORE);
        assertThat(latest.get(CoordinatorProcessor.storeKey(CLUSTER, ahead.getNode())).getEventTime().toEpochMilli()).isEqualTo(harness.clock);
    }

    /** Each figure of a capacity report checked, the reason naming it; the valid report after them is taken. */
    @Test
    void capacityReportsWithImpossibleFiguresAreDeadLetteredWithTheFigureInTheReason() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of(), agents);
        long now = harness.tick();
        List<java.util.function.Consumer<CapacityEvent>> breaks = List.of(
                c -> c.setTotalBytes(0L),
                c -> c.setUsedBytes(c.getTotalBytes() + 1),
                c -> c.setUsedBytes(-1L),
                c -> c.setShards(List.of(new io.skewguard.schemas.ShardUsage(-1, 5L))),
                c -> c.setShards(List.of(new io.skewguard.schemas.ShardUsage(0, 5L), new io.skewguard.schemas.ShardUsage(1 << 20, 5L))),
                c -> c.setShards(List.of(new io.skewguard.schemas.ShardUsage(3, -7L))));
        for (var change : breaks) {
            CapacityEvent bad = agents.capacityReports(now).get(0);
            change.accept(bad);
            harness.capacity.pipeInput(bad.getNode(), bad);
        }
        CapacityEvent good = agents.capacityReports(now).get(0);
        harness.capacity.pipeInput(good.getNode(), good);

        List<String> reasons = reasons();
        assertThat(reasons).hasSize(breaks.size()).allSatisfy(r -> assertThat(r).startsWith("invalid: "));
        assertThat(reasons.get(0)).isEqualTo("invalid: totalBytes must be > 0, was 0");
        assertThat(reasons.get(1)).contains("usedBytes " + (good.getTotalBytes() + 1) + " outside [0, totalBytes " + good.getTotalBytes() + "]");
        assertThat(reasons.get(2)).contains("usedBytes -1 outside");
        assertThat(reasons.get(3)).startsWith("invalid: slot -1 outside [0, ");
        assertThat(reasons.get(4)).startsWith("invalid: slot " + (1 << 20) + " outside [0, ");
        assertThat(reasons.get(5)).isEqualTo("invalid: negative shard size on slot 3");
        org.apache.kafka.streams.state.KeyValueStore<String, CapacityEvent> latest =
                harness.driver.getKeyValueStore(CoordinatorProcessor.CAPACITY_STORE);
        assertThat(latest.get(CoordinatorProcessor.storeKey(CLUSTER, good.getNode())).getUsedBytes()).isEqualTo(good.getUsedBytes());
    }

    private List<String> reasons() {
        return harness.dlq.readRecordsToList().stream().map(d -> DeadLetter.fromHeaders(d.headers()).reason()).toList();
    }

    private static io.skewguard.schemas.SkewReport report(long now) {
        return io.skewguard.schemas.SkewReport.newBuilder()
                .setCluster(CLUSTER).setWindowStart(java.time.Instant.ofEpochMilli(now - 60_000))
                .setWindowEnd(java.time.Instant.ofEpochMilli(now)).setHeatGini(0.1).setCapacityCv(0.2).setShardCapacityCv(0)
                .setNodeCount(1).setTotalWriteBytes(1000)
                .setNodes(new ArrayList<>(List.of(new io.skewguard.schemas.NodeFigures("n1", null, 10L, 5L, 10L, 0.5))))
                .setHottestSlots(List.of()).setSlotHeat(List.of())
                .setHeatState(AlertState.NORMAL).setCapacityState(AlertState.NORMAL).build();
    }

    private static io.skewguard.schemas.SkewAlert alert(long now) {
        return io.skewguard.schemas.SkewAlert.newBuilder()
                .setAlertId(CLUSTER + "/CAPACITY/OBSERVING/" + now).setCluster(CLUSTER)
                .setKind(io.skewguard.schemas.AlertKind.CAPACITY).setPreviousState(AlertState.NORMAL)
                .setState(AlertState.OBSERVING).setValue(0.3).setThreshold(0.25)
                .setSince(java.time.Instant.ofEpochMilli(now)).setEventTime(java.time.Instant.ofEpochMilli(now)).build();
    }

    private static io.skewguard.schemas.MigrationStatus status(long now) {
        return new io.skewguard.schemas.MigrationStatus(CLUSTER, CLUSTER + "/b1/3@n1", "cmd", "n2", MigrationPhase.COPY,
                io.skewguard.schemas.StepResult.PROGRESS, 10L, null, java.time.Instant.ofEpochMilli(now));
    }

    @Test
    void reportsWithFiguresThatAreNotFiniteNumbersAtLeastZeroOrWithBadNodeIdsAreDeadLetteredAsInvalid() {
        harness = new MigratorHarness(stateDir, Map.of());
        long now = harness.tick();
        List<java.util.function.Consumer<io.skewguard.schemas.SkewReport>> breaks = List.of(
                r -> r.setHeatGini(Double.NaN), r -> r.setHeatGini(-0.5), r -> r.setCapacityCv(Double.POSITIVE_INFINITY),
                r -> r.setCapacityCv(-0.5), r -> r.setShardCapacityCv(Double.NaN),
                r -> r.getNodes().get(0).setUtilisation(Double.NaN), r -> r.getNodes().get(0).setUtilisation(-0.5),
                r -> r.getNodes().get(0).setHeatBytes(-1L), r -> r.getNodes().get(0).setUsedBytes(11L),
                r -> r.getNodes().get(0).setNode(""), r -> r.getNodes().get(0).setNode("x".repeat(10 * 1024)));
        for (var change : breaks) {
            io.skewguard.schemas.SkewReport bad = report(now);
            change.accept(bad);
            harness.reports.pipeInput(CLUSTER, bad, now);
        }
        harness.reports.pipeInput(CLUSTER, report(now), now);

        List<String> reasons = reasons();
        assertThat(reasons).hasSize(breaks.size()).allSatisfy(r -> assertThat(r).startsWith("invalid: ").hasSizeLessThan(300));
        assertThat(reasons.get(0)).isEqualTo("invalid: heatGini NaN is not a finite number >= 0");
        assertThat(reasons.get(5)).contains("utilisation NaN");
        assertThat(reasons.get(8)).contains("usedBytes 11 outside [0, totalBytes 10]");
        assertThat(reasons.get(10)).isEqualTo("invalid: node id of 10240 bytes, more than 255");
        assertThat(metric("dead-letters-total")).isEqualTo(breaks.size());
    }

    @Test
    void alertsWithANegativeValueOrAThresholdThatIsNotFiniteOrATimeFarAheadAreDeadLettered() {
        harness = new MigratorHarness(stateDir, Map.of());
        long now = harness.tick();
        long tenYears = 3652L * 86_400_000;
        List<java.util.function.Consumer<io.skewguard.schemas.SkewAlert>> breaks = List.of(
                a -> a.setValue(-0.5), a -> a.setValue(Double.NaN), a -> a.setThreshold(Double.NaN),
                a -> a.setThreshold(Double.NEGATIVE_INFINITY), a -> a.setSince(java.time.Instant.ofEpochMilli(now + tenYears)),
                a -> a.setEventTime(java.time.Instant.ofEpochMilli(now + tenYears)));
        for (var change : breaks) {
            io.skewguard.schemas.SkewAlert bad = alert(now);
            change.accept(bad);
            harness.alerts.pipeInput(CLUSTER, bad, now);
        }
        harness.alerts.pipeInput(CLUSTER, alert(now), now);

        List<String> reasons = reasons();
        assertThat(reasons.subList(0, 4)).containsExactly(
                "invalid: alert value -0.5 is not a finite number >= 0",
                "invalid: alert value NaN is not a finite number >= 0",
                "invalid: alert threshold NaN is not finite",
                "invalid: alert threshold -Infinity is not finite");
        assertThat(reasons.get(4)).startsWith("future: since ");
        assertThat(reasons.get(5)).startsWith("future: eventTime ");
        assertThat(reasons).hasSize(breaks.size());
    }

    @Test
    void statusesWithAnEmptyOrOverlongMigrationOrNodeIdOrATimeFarAheadAreDeadLettered() {
        harness = new MigratorHarness(stateDir, Map.of());
        long now = harness.tick();
        List<java.util.function.Consumer<io.skewguard.schemas.MigrationStatus>> breaks = List.of(
                st -> st.setMigrationId(""), st -> st.setMigrationId("x".repeat(300 * 1024)), st -> st.setNode(""),
                st -> st.setNode("y".repeat(10 * 1024)),
                st -> st.setEventTime(java.time.Instant.ofEpochMilli(now + 3652L * 86_400_000)));
        for (var change : breaks) {
            io.skewguard.schemas.MigrationStatus bad = status(now);
            change.accept(bad);
            harness.status.pipeInput(bad.getMigrationId(), bad, now);
        }
        harness.status.pipeInput("ok", status(now), now);

        List<String> reasons = reasons();
        assertThat(reasons).hasSize(breaks.size());
        assertThat(reasons.get(0)).isEqualTo("invalid: empty migration id");
        assertThat(reasons.get(1)).startsWith("invalid: migration id of 307200 bytes, more than 1024: 'xxx")
                .endsWith("…' (307200 characters)").hasSizeLessThan(300);
        assertThat(reasons.get(2)).isEqualTo("invalid: empty node id");
        assertThat(reasons.get(3)).isEqualTo("invalid: node id of 10240 bytes, more than 255");
        assertThat(reasons.get(4)).startsWith("future: eventTime ");
    }

    @Test
    void withClustersSetRecordsOfOtherClustersAreDeadLetteredAndTheirIdQuotedShort() {
        harness = new MigratorHarness(stateDir, Map.of("clusters", CLUSTER));
        long now = harness.tick();
        io.skewguard.schemas.SkewAlert other = alert(now);
        other.setCluster("elsewhere");
        harness.alerts.pipeInput("elsewhere", other, now);
        io.skewguard.schemas.MigrationStatus huge = status(now);
        huge.setCluster("c".repeat(10 * 1024));
        harness.status.pipeInput("x", huge, now);
        harness.alerts.pipeInput(CLUSTER, alert(now), now);

        assertThat(reasons()).containsExactly("unknown-cluster: cluster 'elsewhere' is not one of the clusters served [c1]",
                "invalid: cluster id of 10240 bytes, more than 255");
    }

    /**
     * Nothing is too old for the clock, but a record whose time lies more than node-expiry behind
     * the latest time the task has read is dead-lettered as late: the coordinator has forgotten
     * whatever such a record could speak of.
     */
    @Test
    void aTimeMoreThanNodeExpiryBehindTheLatestReadIsDeadLetteredAsLateWhileOldInputReadInOrderIsNot() {
        harness = new MigratorHarness(stateDir, Map.of("node-expiry", "1h"));
        long then = harness.tick();
        harness.status.pipeInput("old", status(then), then); // catching up: old, but so is stream time
        harness.advance(Duration.ofHours(2));
        long now = harness.clock;
        harness.status.pipeInput("now", status(now), now);
        harness.status.pipeInput("late", status(then), now);
        harness.reports.pipeInput(CLUSTER, report(then), now);

        List<String> reasons = reasons();
        assertThat(reasons).hasSize(2);
        assertThat(reasons.get(0)).startsWith("late: eventTime ").contains(" behind the latest time read ").endsWith("(node-expiry 1h)");
        assertThat(reasons.get(1)).startsWith("late: windowEnd ");
    }

    /**
     * An alert's {@code since} is when its state began, not when it was sent: an alert that stays
     * CONFIRMED for longer than node-expiry is read, its eventTime alone is held to the bound.
     */
    @Test
    void anAlertWhoseStateBeganMoreThanNodeExpiryAgoIsReadWhenItsEventTimeIsRecent() {
        harness = new MigratorHarness(stateDir, Map.of("node-expiry", "1h"));
        long then = harness.tick();
        harness.status.pipeInput("old", status(then), then);
        harness.advance(Duration.ofHours(2));
        long now = harness.clock;
        harness.status.pipeInput("now", status(now), now);
        io.skewguard.schemas.SkewAlert longConfirmed = alert(now);
        longConfirmed.setSince(java.time.Instant.ofEpochMilli(then));
        harness.alerts.pipeInput(CLUSTER, longConfirmed, now);
        io.skewguard.schemas.SkewAlert late = alert(then);
        harness.alerts.pipeInput(CLUSTER, late, now);

        List<String> reasons = reasons();
        assertThat(reasons).hasSize(1);
        assertThat(reasons.get(0)).startsWith("late: eventTime ");
    }

    /** The migrations started in b000001 were all aborted, in {@code abortedBatches} batches. */
    private void assertAbortedFirstBatch(double abortedBatches) {
        List<MigrationCommand> batch1 = batches(harness.allCommands).get("b000001");
        List<MigrationCommand> aborts = batch1.stream().filter(c -> c.getPhase() == MigrationPhase.ABORT).toList();
        long migrations = batch1.stream().filter(c -> c.getPhase() == MigrationPhase.COPY).count();
        assertThat(migrations).isEqualTo(2);
        assertThat(aborts).hasSize(4); // both participants of both migrations
        assertThat(batch1).noneMatch(c -> c.getPhase() == MigrationPhase.COMMIT || c.getPhase() == MigrationPhase.CLEANUP);
        // every slot of the batch went back to its row before the batch: same candidates, same epoch, no in-flight target
        for (MigrationCommand copy : batch1.stream().filter(c -> c.getPhase() == MigrationPhase.COPY).toList()) {
            List<SlotAssignment> rows = harness.allRows.stream().filter(r -> r.getSlot() == copy.getSlot()).toList();
            SlotAssignment original = rows.get(0);
            int marked = indexOfRow(rows, r -> copy.getMigrationId().equals(r.getMigrationId()));
            SlotAssignment afterAbort = rows.get(marked + 1);
            assertThat(afterAbort.getInFlightTarget()).isNull();
            assertThat(afterAbort.getMigrationId()).isNull();
            assertThat(afterAbort.getCandidates()).isEqualTo(original.getCandidates());
            assertThat(afterAbort.getRoutingEpoch()).isEqualTo(original.getRoutingEpoch());
        }
        assertThat(metric("batches-aborted-total")).isEqualTo(abortedBatches);
        assertThat(batches(harness.allCommands)).containsKey("b000002"); // the repair goes on
    }

    private static int indexOfRow(List<SlotAssignment> rows, java.util.function.Predicate<SlotAssignment> p) {
        for (int i = 0; i < rows.size(); i++) {
            if (p.test(rows.get(i))) {
                return i;
            }
        }
        throw new AssertionError("no such row in " + rows);
    }

    private static MigrationCommand firstCopy(MigratorHarness h) {
        return h.allCommands.stream().filter(c -> c.getPhase() == MigrationPhase.COPY).findFirst().orElseThrow();
    }

    private static int indexOf(List<MigrationCommand> all, String migrationId, MigrationPhase phase) {
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i).getMigrationId().equals(migrationId) && all.get(i).getPhase() == phase) {
                return i;
            }
        }
        return -1;
    }

    /** Commands grouped by batch id ({@code c1/b000001/0003/n1} → {@code b000001}), in order. */
    private static Map<String, List<MigrationCommand>> batches(List<MigrationCommand> commands) {
        return commands.stream().collect(Collectors.groupingBy(c -> batchOf(c.getMigrationId()), LinkedHashMap::new, Collectors.toList()));
    }

    private static String batchOf(String migrationId) {
        return migrationId.split("/")[1];
    }

    /** The metric summed over the tasks that have it (the decoder's and the coordinator's both dead-letter). */
    private double metric(String name) {
        double sum = 0;
        boolean found = false;
        for (Map.Entry<MetricName, ? extends Metric> e : harness.driver.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals(MigratorMetrics.GROUP)) {
                sum += ((Number) e.getValue().metricValue()).doubleValue();
                found = true;
            }
        }
        if (!found) {
            throw new AssertionError("no metric " + name);
        }
        return sum;
    }

    @SuppressWarnings("unused")
    private static List<String> ids(List<MigrationCommand> cs) {
        return new ArrayList<>(cs.stream().map(MigrationCommand::getCommandId).toList());
    }
}
