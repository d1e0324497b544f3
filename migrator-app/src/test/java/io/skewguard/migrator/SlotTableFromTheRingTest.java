package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The first slot table, built from the ring, names every node the writers started from: when the
 * coordinator has not read the capacity reports of nodes the detector already counts (its input
 * lags, as at a start on a backlog), it waits for them instead of building a table without them,
 * under which the keys writers placed on those nodes could not be found.
 */
class SlotTableFromTheRingTest {

    private static final long GB = 1L << 30;
    private static final List<String> NODES = List.of("n1", "n2", "n3", "n4");

    @TempDir
    Path stateDir;

    private MigratorHarness harness;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    /** Four 1000 GB nodes, 16 slots, 2 candidates from the ring; n1 and n3 hold 700 GB, n2 and n4 100 GB. */
    private static SimulatedAgents cluster() {
        SlotTable table = ring(NODES);
        SimulatedAgents agents = new SimulatedAgents(MigratorHarness.CLUSTER);
        for (String id : NODES) {
            List<Integer> held = new ArrayList<>();
            for (int slot = 0; slot < 16; slot++) {
                if (table.candidateIds(slot).contains(id)) {
                    held.add(slot);
                }
            }
            long used = id.equals("n1") || id.equals("n3") ? 700 * GB : 100 * GB;
            Map<Integer, Long> shards = new HashMap<>();
            held.forEach(slot -> shards.put(slot, used / held.size()));
            agents.node(id, 1000 * GB, shards);
        }
        return agents;
    }

    private static SlotTable ring(List<String> nodes) {
        return SlotTable.fromRing(HashRing.of(nodes.stream().sorted().map(id -> new Node(id, null, 1.0)).toList(), 150), 2, 16);
    }

    /** The capacity reports of {@code nodes} only. */
    private void sendCapacity(SimulatedAgents agents, List<String> nodes) {
        long now = harness.tick();
        for (CapacityEvent e : agents.capacityReports(now)) {
            if (nodes.contains(e.getNode())) {
                harness.capacity.pipeInput(e.getNode(), e, now);
            }
        }
        harness.drainOutputs();
    }

    /** A report as the detector writes it: figures of every node, capacity known for {@code withCapacity}. */
    private void sendReport(SimulatedAgents agents, List<String> withCapacity) {
        long now = harness.tick();
        List<NodeFigures> nodes = new ArrayList<>();
        for (CapacityEvent e : agents.capacityReports(now)) {
            boolean known = withCapacity.contains(e.getNode());
            nodes.add(NodeFigures.newBuilder().setNode(e.getNode()).setHeatBytes(1000)
                    .setUsedBytes(known ? e.getUsedBytes() : 0).setTotalBytes(known ? e.getTotalBytes() : 0)
                    .setUtilisation(known ? (double) e.getUsedBytes() / e.getTotalBytes() : 0).build());
        }
        harness.reports.pipeInput(MigratorHarness.CLUSTER, SkewReport.newBuilder().setCluster(MigratorHarness.CLUSTER)
                .setWindowStart(Instant.ofEpochMilli(now - 60_000)).setWindowEnd(Instant.ofEpochMilli(now))
                .setHeatGini(0.1).setCapacityCv(agents.capacityCv()).setShardCapacityCv(0).setNodeCount(nodes.size())
                .setTotalWriteBytes(600_000_000L).setNodes(nodes).setHottestSlots(List.of()).setSlotHeat(new ArrayList<>(
                        java.util.Collections.nCopies(16, 0L)))
                .setHeatState(AlertState.NORMAL).setCapacityState(AlertState.CONFIRMED).build(), now);
        harness.drainOutputs();
    }

    private Map<Integer, List<String>> table() {
        Map<Integer, List<String>> t = new TreeMap<>();
        for (SlotAssignment row : harness.allRows) {
            t.put(row.getSlot(), List.copyOf(row.getCandidates()));
        }
        return t;
    }

    @Test
    void aRepairWaitsForTheCapacityOfEveryNodeTheDetectorCountsBeforeItBuildsTheSlotTable() {
        SimulatedAgents agents = cluster();
        harness = new MigratorHarness(stateDir, Map.of("max-parallel", "2"));
        // the detector has read all four nodes' capacity; the coordinator only n1's and n3's so far
        sendCapacity(agents, List.of("n1", "n3"));
        sendReport(agents, NODES);
        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        sendReport(agents, NODES);

        assertThat(harness.allRows).as("no table from the ring of n1 and n3 alone").isEmpty();
        assertThat(harness.allCommands).as("no migration planned without a table").isEmpty();

        sendCapacity(agents, List.of("n2", "n4"));
        sendReport(agents, NODES);

        Map<Integer, List<String>> expected = new TreeMap<>();
        SlotTable all = ring(NODES);
        for (int slot = 0; slot < 16; slot++) {
            expected.put(slot, all.candidateIds(slot));
        }
        assertThat(table()).as("the table the writers start from").isEqualTo(expected);
        assertThat(harness.allCommands).extracting(c -> c.getPhase()).contains(MigrationPhase.COPY);
    }

    @Test
    void aNodeTheDetectorKnowsOnlyByItsHeatDoesNotHoldTheTableBack() {
        SimulatedAgents agents = cluster();
        harness = new MigratorHarness(stateDir, Map.of("max-parallel", "2"));
        sendCapacity(agents, List.of("n1", "n2", "n3"));
        // n4 wrote, but no capacity report of it reached the detector either
        sendReport(agents, List.of("n1", "n2", "n3"));
        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());

        assertThat(table()).as("the table of the nodes that reported").hasSize(16);
        SlotTable three = ring(List.of("n1", "n2", "n3"));
        assertThat(table().get(0)).isEqualTo(three.candidateIds(0));
    }
}
