package io.skewguard.migrator;

import static io.skewguard.migrator.MigratorHarness.CLUSTER;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A migrator with fresh state (a new deployment, a lost state directory) keeps the slot table that
 * is on the topic: it adopts it, its routing epoch continues, and a migration in flight that no
 * state knows of is aborted. Only a cluster without rows on the topic gets a table built from the ring.
 */
class SlotTableAdoptionTest {

    private static final long GB = 1L << 30;
    private static final List<String> NODES = List.of("n1", "n2", "n3", "n4", "n5", "n6");
    private static final SlotTable RING_TABLE =
            SlotTable.fromRing(HashRing.of(NODES.stream().map(id -> new Node(id, null, 1.0)).toList(), 150), 2, 16);

    @TempDir
    Path stateDir;

    private MigratorHarness harness;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    @Test
    void aFreshMigratorAdoptsTheTableOnTheTopicContinuesItsEpochAndAbortsTheMigrationInFlightItKnowsNothingOf() {
        SimulatedAgents agents = skewedCluster();
        harness = new MigratorHarness(stateDir, Map.of("max-parallel", "2"));
        // the table a former deployment left: epochs up to 7, slot s marked with a migration of its batch 4
        int s = slotHolding("n1");
        String target = NODES.stream().filter(n -> !RING_TABLE.candidateIds(s).contains(n)).findFirst().orElseThrow();
        String orphan = CLUSTER + "/b000004/" + String.format("%04d", s) + "/n1";
        Map<Integer, SlotAssignment> onTopic = new HashMap<>();
        for (int slot = 0; slot < 16; slot++) {
            SlotAssignment row = row(CLUSTER, slot, slot == 5 ? 7 : 3, RING_TABLE.candidateIds(slot));
            if (slot == s) {
                row.setInFlightSource("n1");
                row.setInFlightTarget(target);
                row.setMigrationId(orphan);
            }
            onTopic.put(slot, row);
        }
        TestInputTopic<String, SlotAssignment> topic = slotTableTopic();
        onTopic.values().forEach(r -> topic.pipeInput(CLUSTER + "/" + r.getSlot(), r));

        startRepair(agents);

        // nothing rebuilt: the only rows published before the first switch are the cleared mark and the new batch's marks
        List<SlotAssignment> beforeSwitch = harness.allRows;
        assertThat(beforeSwitch).noneMatch(r -> r.getRoutingEpoch() == 0)
                .allMatch(r -> r.getCandidates().equals(onTopic.get(r.getSlot()).getCandidates())
                        && r.getRoutingEpoch() == onTopic.get(r.getSlot()).getRoutingEpoch());
        SlotAssignment cleared = beforeSwitch.stream().filter(r -> r.getSlot() == s).findFirst().orElseThrow();
        assertThat(cleared.getInFlightTarget()).isNull();
        assertThat(cleared.getInFlightSource()).isNull();
        assertThat(cleared.getMigrationId()).isNull();
        List<MigrationCommand> aborts = harness.allCommands.stream().filter(c -> c.getMigrationId().equals(orphan)).toList();
        assertThat(aborts).extracting(MigrationCommand::getCommandId)
                .containsExactlyInAnyOrder(orphan + "/ABORT/n1", orphan + "/ABORT/" + target);
        assertThat(aborts).allMatch(c -> c.getPhase() == MigrationPhase.ABORT && "b000004".equals(c.getBatchId())
                && c.getSlot() == s && c.getSourceNode().equals("n1") && c.getTargetNode().equals(target)
                && c.getRoutingEpoch() == 3);
        assertThat(harness.allCommands).anyMatch(c -> c.getPhase() == MigrationPhase.COPY); // the repair runs on the adopted table
        // its batches are numbered from the clock in seconds, never again from 1: an agent remembers the
        // former deployment's migrations by id
        long adoptedAtSeconds = 1_000_000 / 1000; // the harness's clock starts at 1 000 000 ms
        assertThat(harness.allCommands).filteredOn(c -> c.getPhase() == MigrationPhase.COPY)
                .allSatisfy(c -> assertThat(Long.parseLong(c.getMigrationId().split("/")[1].substring(1)))
                        .isGreaterThan(adoptedAtSeconds));

        harness.runAgents(agents, 10_000);

        List<Long> switchEpochs = harness.allRows.stream()
                .filter(r -> r.getInFlightTarget() == null && r.getRoutingEpoch() > 7)
                .map(SlotAssignment::getRoutingEpoch).toList();
        assertThat(switchEpochs).isNotEmpty();
        for (int i = 0; i < switchEpochs.size(); i++) {
            assertThat(switchEpochs.get(i)).isEqualTo(8L + i); // the first switch publishes the adopted epoch + 1
        }
        assertThat(agents.capacityCv()).isLessThanOrEqualTo(0.10);
        assertThat(agents.serialQueueViolations).isEmpty();
    }

    @Test
    void aNodeTheAdoptedTableNamesThatNeverReportsIsLostAfterNodeExpiryAndReplacedInOneUpdate() {
        SimulatedAgents agents = skewedCluster();
        harness = new MigratorHarness(stateDir, Map.of("node-expiry", "1h"));
        // the former deployment's table names n7, which failed before this one started: it never reports
        List<String> withN7 = new ArrayList<>(NODES);
        withN7.add("n7");
        SlotTable table = SlotTable.fromRing(HashRing.of(withN7.stream().map(id -> new Node(id, null, 1.0)).toList(), 150), 2, 16);
        TestInputTopic<String, SlotAssignment> topic = slotTableTopic();
        for (int slot = 0; slot < 16; slot++) {
            topic.pipeInput(CLUSTER + "/" + slot, row(CLUSTER, slot, 3, table.candidateIds(slot)));
        }
        long named = java.util.stream.IntStream.range(0, 16).filter(slot -> table.candidateIds(slot).contains("n7")).count();
        assertThat(named).isPositive();

        harness.sendCapacity(agents); // the six live nodes: members of the adopted table, not joins
        assertThat(harness.allMembership).noneMatch(m -> m.getReason() != null && m.getReason().startsWith("joined"));
        for (int i = 0; i < 8; i++) { // two hours, the live nodes keep reporting
            harness.advance(java.time.Duration.ofMinutes(15));
            harness.sendCapacity(agents);
        }

        assertThat(harness.allMembership).filteredOn(m -> m.getNode().equals("n7")).last().satisfies(m -> {
            assertThat(m.getState()).isEqualTo(io.skewguard.schemas.MembershipState.LOST);
            assertThat(m.getReason()).contains("no capacity report").contains("replaced in " + named + " candidate sets");
            assertThat(m.getRoutingEpoch()).isEqualTo(4L);
        });
        Map<Integer, SlotAssignment> latest = new HashMap<>();
        harness.allRows.forEach(r -> latest.put(r.getSlot(), r));
        assertThat(latest.values()).noneMatch(r -> r.getCandidates().contains("n7"));
        assertThat(latest.values()).filteredOn(r -> table.candidateIds(r.getSlot()).contains("n7"))
                .hasSize((int) named).allMatch(r -> r.getRoutingEpoch() == 4);
    }

    @Test
    void aTableAdoptedInTheMiddleOfADrainLeavesTheOperatorsDrainingRecordStandingAndTheDrainFinishesOnIt() {
        SimulatedAgents agents = skewedCluster();
        harness = new MigratorHarness(stateDir, Map.of("max-parallel", "2"));
        // the former deployment had marked n2 read-only (its drain under way) when it stopped
        TestInputTopic<String, SlotAssignment> topic = slotTableTopic();
        for (int slot = 0; slot < 16; slot++) {
            SlotAssignment row = row(CLUSTER, slot, 3, RING_TABLE.candidateIds(slot));
            if (row.getCandidates().contains("n2")) {
                row.setReadOnly(List.of("n2"));
            }
            topic.pipeInput(CLUSTER + "/" + slot, row);
        }

        // a new application id reads its inputs from their start: first the capacity reports, then the operator's DRAINING
        harness.sendCapacity(agents);
        // an ACTIVE of the migrator would be n2's latest record on the compacted topic, in place of the operator's DRAINING
        assertThat(harness.allMembership).filteredOn(m -> m.getNode().equals("n2")).isEmpty();
        assertThat(harness.allMembership).filteredOn(m -> m.getNode().equals("n1")).extracting(m -> m.getState())
                .containsExactly(io.skewguard.schemas.MembershipState.ACTIVE);
        harness.sendOperator("n2", io.skewguard.schemas.MembershipState.DRAINING);
        assertThat(harness.repairStatus.get(0).getMessage()).startsWith("repair started: node n2 draining");
        harness.runAgents(agents, 10_000);
        harness.sendCapacity(agents);

        assertThat(agents.nodes.get("n2").shards()).isEmpty();
        assertThat(harness.latestRows().values()).noneMatch(r -> r.getCandidates().contains("n2") || r.getReadOnly().contains("n2"));
        assertThat(harness.allMembership).filteredOn(m -> m.getNode().equals("n2")).singleElement()
                .satisfies(m -> assertThat(m.getState()).isEqualTo(io.skewguard.schemas.MembershipState.DRAINED));
        assertThat(agents.serialQueueViolations).isEmpty();
    }

    @Test
    void anOperatorsDrainingReadBeforeTheDrainingNodesFirstReportDrainsItOnceTheReportComes() {
        SimulatedAgents agents = skewedCluster();
        // a target CV so high that only a drain moves anything
        harness = new MigratorHarness(stateDir, Map.of("max-parallel", "2", "target-cv", "1.0"));
        TestInputTopic<String, SlotAssignment> topic = slotTableTopic();
        for (int slot = 0; slot < 16; slot++) {
            SlotAssignment row = row(CLUSTER, slot, 3, RING_TABLE.candidateIds(slot));
            if (row.getCandidates().contains("n2")) {
                row.setReadOnly(List.of("n2"));
            }
            topic.pipeInput(CLUSTER + "/" + slot, row);
        }

        // inputs read from their start come in no fixed order across topics: here the other nodes' reports,
        // then the DRAINING, then n2's first report; the repair the DRAINING starts has nothing of n2 to move
        long now = harness.tick();
        agents.capacityReports(now).stream().filter(e -> !e.getNode().equals("n2")).forEach(e -> harness.capacity.pipeInput(e.getNode(), e, now));
        harness.drainOutputs();
        harness.sendOperator("n2", io.skewguard.schemas.MembershipState.DRAINING);
        assertThat(harness.repairStatus).extracting(s -> s.getMessage()).hasSize(2)
                .satisfies(m -> assertThat(m.get(0)).isEqualTo("repair started: node n2 draining (0 shards, 0 B to move)"))
                .satisfies(m -> assertThat(m.get(1)).startsWith("repair done"));
        harness.sendCapacity(agents);
        harness.runAgents(agents, 10_000);
        harness.sendCapacity(agents);

        long held = java.util.stream.IntStream.range(0, 16).filter(slot -> RING_TABLE.candidateIds(slot).contains("n2")).count();
        assertThat(harness.repairStatus).as("a repair for the drain once n2 reported").extracting(s -> s.getMessage())
                .anyMatch(m -> m.startsWith("repair started: node n2 draining (" + held + " shards"));
        assertThat(agents.nodes.get("n2").shards()).isEmpty();
        assertThat(harness.latestRows().values()).noneMatch(r -> r.getCandidates().contains("n2") || r.getReadOnly().contains("n2"));
        assertThat(harness.allMembership).filteredOn(m -> m.getNode().equals("n2")).singleElement().satisfies(m -> {
            assertThat(m.getState()).isEqualTo(io.skewguard.schemas.MembershipState.DRAINED);
            assertThat(m.getReason()).startsWith("drained: " + held + " shards");
        });
        assertThat(agents.serialQueueViolations).isEmpty();
    }

    @Test
    void rowsOfAnotherClusterWhoseIdStartsWithThisOnesAreNotAdoptedAndThisClusterGetsItsTableFromTheRing() {
        SimulatedAgents agents = skewedCluster();
        harness = new MigratorHarness(stateDir, Map.of("max-parallel", "2"));
        TestInputTopic<String, SlotAssignment> topic = slotTableTopic();
        for (int slot = 0; slot < 16; slot++) {
            topic.pipeInput(CLUSTER + "/b/" + slot, row(CLUSTER + "/b", slot, 9, List.of("x1", "x2")));
        }
        topic.pipeInput(CLUSTER + "/3", null); // a tombstone of a row long gone

        startRepair(agents);

        List<SlotAssignment> built = harness.allRows.subList(0, 16);
        for (SlotAssignment r : built) {
            assertThat(r.getCluster()).isEqualTo(CLUSTER);
            assertThat(r.getRoutingEpoch()).isZero();
            assertThat(r.getCandidates()).isEqualTo(RING_TABLE.candidateIds(r.getSlot()));
        }
        // what the migrator publishes reaches its global store too, under the test driver as on a broker
        KeyValueStore<String, byte[]> published = harness.driver.getKeyValueStore(CoordinatorProcessor.PUBLISHED_STORE);
        for (int slot = 0; slot < 16; slot++) {
            assertThat(published.get(CLUSTER + "/" + slot)).as("slot %d", slot).isNotNull();
        }
    }

    private void startRepair(SimulatedAgents agents) {
        harness.sendCapacity(agents);
        harness.sendReport(agents, 6_000_000_000L, new long[16]);
        harness.sendReport(agents, 600_000_000L, new long[16]);
        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
    }

    private TestInputTopic<String, SlotAssignment> slotTableTopic() {
        return harness.driver.createInputTopic(harness.topics.slotTable(), Serdes.String().serializer(),
                SchemaRegistrySerde.of(SlotAssignment.class, Map.of("schema.registry.url", harness.registry), false).serializer());
    }

    private static SlotAssignment row(String cluster, int slot, long epoch, List<String> candidates) {
        return SlotAssignment.newBuilder()
                .setCluster(cluster)
                .setSlot(slot)
                .setRoutingEpoch(epoch)
                .setCandidates(candidates)
                .setUpdatedAt(Instant.ofEpochMilli(1))
                .build();
    }

    private static int slotHolding(String node) {
        for (int slot = 0; slot < 16; slot++) {
            if (RING_TABLE.candidateIds(slot).contains(node)) {
                return slot;
            }
        }
        throw new AssertionError("no slot on " + node);
    }

    /** Six 1000 GB nodes laid out by the ring's table; n1 and n2 hold 800 GB each, the others 30 GB per shard. */
    private static SimulatedAgents skewedCluster() {
        SimulatedAgents agents = new SimulatedAgents(CLUSTER);
        for (String id : NODES) {
            List<Integer> held = new ArrayList<>();
            for (int slot = 0; slot < 16; slot++) {
                if (RING_TABLE.candidateIds(slot).contains(id)) {
                    held.add(slot);
                }
            }
            boolean heavy = id.equals("n1") || id.equals("n2");
            Map<Integer, Long> shards = new HashMap<>();
            held.forEach(slot -> shards.put(slot, heavy ? 800 * GB / held.size() : 30 * GB));
            agents.node(id, 1000 * GB, shards);
        }
        return agents;
    }
}
