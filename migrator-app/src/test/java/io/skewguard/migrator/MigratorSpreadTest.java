package io.skewguard.migrator;

import static io.skewguard.migrator.MigratorHarness.CLUSTER;
import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.SlotAssignment;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The migrator spreads a hot slot over more nodes and narrows it back (docs/design.md §3.5): on its
 * reports, through its slot-table topic, one routing epoch per change.
 */
class MigratorSpreadTest {

    private static final long GB = 1L << 30;
    private static final int SLOTS = 16;
    private static final int HOT = 5;

    @TempDir
    Path stateDir;

    private MigratorHarness harness;
    private SimulatedAgents agents;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    /**
     * Twelve 1000 GB nodes on four racks, 16 slots of 3 candidates; the table built by the migrator,
     * every shard 20 GB; spread at a load ratio of 0.75 for 2 minutes down to 0.5, narrow under 0.4.
     */
    private void cluster(Map<String, String> overrides) {
        agents = new SimulatedAgents(CLUSTER);
        for (int i = 1; i <= 12; i++) {
            agents.node("n" + i, 1000 * GB, "r" + (i % 4), Map.of());
        }
        Map<String, String> values = new HashMap<>(Map.of("candidates", "3", "slot-count", Integer.toString(SLOTS), "spread-hold", "2m",
                "spread-at", "0.75", "spread-target", "0.5", "spread-max-nodes", "24", "narrow-at", "0.4"));
        values.putAll(overrides);
        harness = new MigratorHarness(stateDir, values);
        harness.sendCapacity(agents);
        harness.sendReport(agents, 1_000_000, heat(0));
        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, 0.3);
        harness.latestRows().forEach((slot, row) -> row.getCandidates().forEach(n -> agents.nodes.get(n).shards().put(slot, 20 * GB)));
        harness.sendCapacity(agents);
        harness.runAgents(agents, 10_000);
    }

    /** Slot heat with {@code hotShare} of it on slot {@link #HOT} and the rest even over the others. */
    private static long[] heat(double hotShare) {
        long[] heat = new long[SLOTS];
        long total = 1_600_000;
        for (int s = 0; s < SLOTS; s++) {
            heat[s] = Math.round(total * (1 - hotShare) / (SLOTS - 1));
        }
        heat[HOT] = Math.round(total * hotShare);
        return heat;
    }

    /** One report a minute of {@code minutes} minutes. */
    private void reports(int minutes, double hotShare) {
        for (int m = 0; m < minutes; m++) {
            harness.advance(Duration.ofMinutes(1));
            harness.sendReport(agents, 1_600_000, heat(hotShare));
        }
    }

    private long epoch() {
        return harness.latestRows().values().stream().mapToLong(SlotAssignment::getRoutingEpoch).max().orElseThrow();
    }

    private List<SlotAssignment> rowsAt(long epoch) {
        return harness.allRows.stream().filter(r -> r.getRoutingEpoch() == epoch).toList();
    }

    @Test
    void aSlotHotterThanItsCandidatesCanTakeSpreadsAfterTheHoldInOneRoutingEpochWithItsReason() {
        cluster(Map.of());
        long before = epoch();
        List<String> candidates = harness.latestRows().get(HOT).getCandidates();

        // 35 % of the writes on 3 of 12 nodes: load ratio 1.4; held for one minute only, nothing yet
        reports(2, 0.35);
        assertThat(epoch()).isEqualTo(before);
        reports(1, 0.35);

        assertThat(epoch()).isEqualTo(before + 1);
        SlotAssignment row = harness.latestRows().get(HOT);
        assertThat(rowsAt(before + 1)).containsExactly(row);
        // ρ 0.5 needs a capacity share of 0.7: 8.4 nodes, so 9 writers, 6 of them spread nodes
        assertThat(row.getSpread()).hasSize(6).doesNotHaveDuplicates().doesNotContainAnyElementsOf(candidates);
        assertThat(row.getCandidates()).isEqualTo(candidates);
        assertThat(row.getSpreadHeld()).isEmpty();
        assertThat(row.getSpreadReason()).startsWith("spread over 6 more nodes: slot 5 takes 35.0 % of the writes, 1.40 × the "
                + "capacity share of the nodes writing it (at or above 0.75 for 2m); ρ 0.47 with them");
        // racks as even as they can be: 9 writers on 4 racks, so 2 or 3 each
        Map<String, Integer> racks = new HashMap<>();
        for (String n : concat(candidates, row.getSpread())) {
            racks.merge(agents.nodes.get(n).rack(), 1, Integer::sum);
        }
        assertThat(racks.values()).allMatch(c -> c == 2 || c == 3);
        // no data moved
        assertThat(harness.allCommands).noneMatch(c -> c.getSlot() == HOT);

        // still hot but spread enough: nothing more
        reports(20, 0.35);
        assertThat(epoch()).isEqualTo(before + 1);
    }

    @Test
    void aSpreadSlotThatCoolsForTheNarrowHoldNarrowsBackItsSpreadNodesKeepingWhatTheyReceived() {
        cluster(Map.of());
        reports(3, 0.35);
        long spreadAt = epoch();
        List<String> spread = harness.latestRows().get(HOT).getSpread();
        assertThat(spread).isNotEmpty();

        // 5 % on its own 3 nodes: ρ 0.2, under 0.4; 29 minutes of reports are not long enough
        reports(30, 0.05);
        assertThat(epoch()).isEqualTo(spreadAt);
        reports(1, 0.05);

        assertThat(epoch()).isEqualTo(spreadAt + 1);
        SlotAssignment row = harness.latestRows().get(HOT);
        assertThat(row.getSpread()).isEmpty();
        assertThat(row.getSpreadHeld()).containsExactlyElementsOf(spread);
        assertThat(row.getSpreadReason()).startsWith("narrowed: slot 5 takes 5.0 % of the writes, 0.20 × its own writers' capacity share");

        // hot again: it spreads again, the held nodes first in line as the ring gives them
        reports(3, 0.35);
        SlotAssignment again = harness.latestRows().get(HOT);
        assertThat(again.getRoutingEpoch()).isEqualTo(spreadAt + 2);
        assertThat(again.getSpread()).containsExactlyElementsOf(spread);
        assertThat(again.getSpreadHeld()).isEmpty();
    }

    @Test
    void routingEpochsStayConsecutiveAcrossSpreadNarrowAndMigrationsAndNoMigrationTargetsASpreadNode() {
        cluster(Map.of("max-parallel", "2"));
        reports(3, 0.35);
        Set<String> holders = new HashSet<>(harness.latestRows().get(HOT).getSpread());
        // an empty node joins: a repair fills it while the slot is spread
        agents.node("n13", 1000 * GB, "r1", Map.of());
        harness.sendCapacity(agents);
        for (int round = 0; round < 40; round++) {
            harness.runAgents(agents, 10_000);
            harness.advance(Duration.ofMinutes(1));
            harness.sendReport(agents, 1_600_000, heat(round < 5 ? 0.35 : 0.05));
            harness.sendCapacity(agents);
        }
        harness.runAgents(agents, 10_000);

        assertThat(agents.nodes.get("n13").shards()).as("the join was filled").isNotEmpty();
        assertThat(harness.latestRows().get(HOT).getSpread()).as("narrowed again").isEmpty();
        TreeSet<Long> epochs = new TreeSet<>();
        harness.allRows.forEach(r -> epochs.add(r.getRoutingEpoch()));
        assertThat(epochs.last() - epochs.first() + 1).as("epochs %s", epochs).isEqualTo(epochs.size());
        // every update raises the newest epoch by exactly one (a row that changes nothing but its in-flight
        // mark keeps the epoch of its last change)
        long newest = harness.allRows.get(0).getRoutingEpoch();
        for (SlotAssignment r : harness.allRows) {
            if (r.getRoutingEpoch() > newest) {
                assertThat(r.getRoutingEpoch()).as("slot %d", r.getSlot()).isEqualTo(newest + 1);
                newest = r.getRoutingEpoch();
            }
        }
        assertThat(harness.allRows).anyMatch(r -> r.getSpreadReason() != null && r.getSpreadReason().startsWith("narrowed"));
        assertThat(harness.allCommands).filteredOn(c -> c.getSlot() == HOT && c.getPhase() == MigrationPhase.COPY)
                .noneMatch(c -> holders.contains(c.getTargetNode()) || holders.contains(c.getSourceNode()));
    }

    @Test
    void withSpreadingOffAHotSlotIsLeftToWeightsAndMigrations() {
        cluster(Map.of("spread", "false"));
        long before = epoch();
        reports(30, 0.35);
        assertThat(epoch()).isEqualTo(before);
        assertThat(harness.latestRows().get(HOT).getSpread()).isEmpty();
    }

    @Test
    void theHoldGoesOnAcrossARestart() {
        cluster(Map.of());
        long before = epoch();
        reports(2, 0.35);
        harness.restart();
        reports(1, 0.35);
        assertThat(epoch()).isEqualTo(before + 1);
        assertThat(harness.latestRows().get(HOT).getSpread()).isNotEmpty();
    }

    @Test
    void aDrainedSpreadNodeStopsTakingWritesAndKeepsServingAndALostOneIsReplacedForItsRebuild() {
        cluster(Map.of("node-expiry", "10m"));
        reports(3, 0.35);
        SlotAssignment spread = harness.latestRows().get(HOT);
        String drained = spread.getSpread().get(0);
        String lost = spread.getSpread().get(1);

        harness.sendOperator(drained, MembershipState.DRAINING);
        SlotAssignment afterDrain = harness.latestRows().get(HOT);
        assertThat(afterDrain.getSpread()).doesNotContain(drained).contains(lost);
        assertThat(afterDrain.getSpreadHeld()).containsExactly(drained);

        // the lost node's shard of the hot slot is named for the rebuild, and a replacement takes its place
        agents.nodes.get(lost).shards().put(HOT, 5 * GB);
        harness.sendCapacity(agents);
        agents.nodes.remove(lost);
        for (int m = 0; m < 12; m++) {
            harness.advance(Duration.ofMinutes(1));
            harness.sendCapacity(agents);
            harness.runAgents(agents, 10_000);
        }
        SlotAssignment afterLoss = harness.latestRows().get(HOT);
        assertThat(concat(afterLoss.getCandidates(), concat(afterLoss.getSpread(), afterLoss.getSpreadHeld()))).doesNotContain(lost)
                .doesNotHaveDuplicates();
        assertThat(afterLoss.getSpread()).hasSize(spread.getSpread().size() - 1);
        assertThat(harness.allMembership).filteredOn(m -> m.getNode().equals(lost) && m.getState() == MembershipState.LOST)
                .singleElement().satisfies(m -> assertThat(m.getReason()).contains(" " + HOT + " (5.4 GB)"));
    }

    @Test
    void aSpreadNodeDrainedToTheEndHasItsSpreadShardMovedLikeTheOthersAndLeavesTheSlot() {
        cluster(Map.of("max-parallel", "4"));
        reports(3, 0.35);
        String node = harness.latestRows().get(HOT).getSpread().get(0);
        agents.nodes.get(node).shards().put(HOT, 3 * GB); // what the spread wrote there
        harness.sendCapacity(agents);

        harness.sendOperator(node, MembershipState.DRAINING);
        for (int round = 0; round < 40 && !drained(node); round++) {
            harness.runAgents(agents, 10_000);
            harness.advance(Duration.ofMinutes(1));
            harness.sendCapacity(agents);
        }

        assertThat(drained(node)).as("DRAINED written").isTrue();
        assertThat(agents.nodes.get(node).shards()).as("everything moved away").isEmpty();
        assertThat(harness.latestRows().values()).noneMatch(r -> r.getCandidates().contains(node) || r.getSpread().contains(node)
                || r.getSpreadHeld().contains(node));
        // the spread shard went to a node that holds it in the drained node's place, through a migration of its own
        io.skewguard.schemas.MigrationCommand copy = harness.allCommands.stream()
                .filter(c -> c.getSlot() == HOT && c.getSourceNode().equals(node) && c.getPhase() == MigrationPhase.COPY)
                .findFirst().orElseThrow();
        SlotAssignment hot = harness.latestRows().get(HOT);
        assertThat(hot.getSpreadHeld()).contains(copy.getTargetNode());
        assertThat(agents.nodes.get(copy.getTargetNode()).shards()).containsKey(HOT);
        assertThat(hot.getCandidates()).doesNotContain(copy.getTargetNode());
    }

    private boolean drained(String node) {
        return harness.allMembership.stream().anyMatch(m -> m.getNode().equals(node) && m.getState() == MembershipState.DRAINED);
    }

    @Test
    void everySpreadAndNarrowGoesToTheDecisionLogWithItsReason() {
        cluster(Map.of());
        reports(3, 0.35);
        reports(31, 0.05);
        List<io.skewguard.schemas.Decision> spreadDecisions = harness.allDecisions.stream()
                .filter(d -> d.getReason().equals("SPREAD") || d.getReason().equals("NARROWED")).toList();
        assertThat(spreadDecisions).extracting(io.skewguard.schemas.Decision::getReason).containsExactly("SPREAD", "NARROWED");
        assertThat(spreadDecisions).allSatisfy(d -> {
            assertThat(d.getActed()).isTrue();
            assertThat(d.getApp()).isEqualTo("migrator");
            assertThat(d.getFigures()).containsEntry("slot", (double) HOT);
        });
        assertThat(spreadDecisions.get(0).getMessage()).isEqualTo(harness.allRows.stream()
                .filter(r -> r.getSlot() == HOT && r.getSpreadReason() != null).findFirst().orElseThrow().getSpreadReason());
        assertThat(spreadDecisions.get(1).getMessage()).startsWith("narrowed: slot 5");
        assertThat(spreadDecisions.get(1).getFigures()).containsEntry("spreadNodes", 0.0).containsEntry("heldNodes", 6.0);
    }

    @Test
    void pausedTheSlotTableDoesNotChangeAndTheSpreadComesOnceResumedAndAnExcludedNodeIsNeverASpreadNode() {
        cluster(Map.of());
        long before = epoch();
        harness.sendControl(io.skewguard.schemas.ControlKind.EXCLUDE, true, null, "n4", "alice", null);
        harness.sendControl(io.skewguard.schemas.ControlKind.PAUSE, true);
        reports(6, 0.35);
        assertThat(epoch()).isEqualTo(before);
        assertThat(harness.allDecisions).anySatisfy(d -> {
            assertThat(d.getReason()).isEqualTo("PAUSED");
            assertThat(d.getMessage()).startsWith("paused, not carried out: spread over");
        });
        harness.sendControl(io.skewguard.schemas.ControlKind.PAUSE, false);
        reports(1, 0.35);
        assertThat(epoch()).isEqualTo(before + 1);
        assertThat(harness.latestRows().get(HOT).getSpread()).isNotEmpty().doesNotContain("n4");
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }
}
