package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.auth.NodeSignature;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The operators' controls (dry run, pause, throttle, exclude) and the decision log, against the migrator's topology. */
class MigratorControlTest {

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

    /** Six 1000 GB nodes, 16 slots, 2 candidates; n1 and n2 hold 800 GB each, the others 30 GB per shard. */
    private static SimulatedAgents skewedCluster() {
        List<Node> ring = NODES.stream().map(id -> new Node(id, null, 1.0)).toList();
        SlotTable table = SlotTable.fromRing(HashRing.of(ring, 150), 2, 16);
        SimulatedAgents agents = new SimulatedAgents(MigratorHarness.CLUSTER);
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
        Map<String, String> values = new HashMap<>(Map.of("max-parallel", "2"));
        values.putAll(overrides);
        harness = new MigratorHarness(stateDir, values);
        harness.sendCapacity(agents);
        harness.sendReport(agents, 6_000_000_000L, COLD); // the first report is the peak
        harness.sendReport(agents, 600_000_000L, COLD); // a trough: full budget
        return harness;
    }

    private static List<MigrationCommand> phase(List<MigrationCommand> commands, MigrationPhase phase) {
        return commands.stream().filter(c -> c.getPhase() == phase).toList();
    }

    private List<String> reasons() {
        return harness.allDecisions.stream().map(Decision::getReason).toList();
    }

    @Test
    void dryRunProposesThePlanAndSendsNoCommandUntilItEnds() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of(), agents);
        harness.sendControl(ControlKind.DRY_RUN, true);

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        harness.sendReport(agents, 600_000_000L, COLD);

        assertThat(harness.allCommands).as("no command in dry run").isEmpty();
        assertThat(harness.allRows).as("the slot table is built, nothing is marked in flight")
                .allMatch(r -> r.getInFlightTarget() == null);
        assertThat(harness.allProposals).isNotEmpty();
        Proposal p = harness.allProposals.get(0);
        assertThat(p.getApp()).isEqualTo("migrator");
        assertThat(p.getMetric()).isEqualTo("capacity CV");
        assertThat(p.getCurrent()).isGreaterThan(0.25);
        assertThat(p.getExpected()).isLessThan(p.getCurrent() / 2);
        assertThat(p.getMoves()).isNotEmpty();
        assertThat(p.getBytesToMove()).isEqualTo(p.getMoves().stream().mapToLong(m -> m.getBytes()).sum());
        assertThat(p.getFirstBatch()).isEqualTo(2);
        assertThat(reasons()).contains("CONTROL", "DRY_RUN").doesNotContain("BATCH_STARTED");
        Decision dry = harness.allDecisions.stream().filter(d -> d.getReason().equals("DRY_RUN")).findFirst().orElseThrow();
        assertThat(dry.getActed()).isFalse();
        assertThat(dry.getMessage()).startsWith("dry run: a plan of ").contains("nothing is sent");
        assertThat(dry.getFigures()).containsKeys("projectedCv", "planBytes", "routingEpoch", "budgetBytesPerSec");

        harness.sendControl(ControlKind.DRY_RUN, false);
        List<MigrationCommand> copies = phase(harness.allCommands, MigrationPhase.COPY);
        assertThat(copies).as("the end of the dry run starts the batch at once").hasSize(2);
        assertThat(copies).extracting(MigrationCommand::getSourceNode).containsExactlyInAnyOrderElementsOf(
                p.getMoves().subList(0, 2).stream().map(m -> m.getSource()).toList());
        harness.runAgents(agents, 10_000);
        assertThat(agents.capacityCv()).as("the repair ran once the dry run ended").isLessThan(0.11);
        assertThat(phase(harness.allCommands, MigrationPhase.CLEANUP)).hasSizeGreaterThan(2);
    }

    @Test
    void pauseHoldsCompleteCopiesBeforeTheirSwitchAndResumeFinishesTheRepair() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of(), agents);
        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        assertThat(phase(harness.pending, MigrationPhase.COPY)).hasSize(2);

        harness.sendControl(ControlKind.PAUSE, true);
        harness.runAgents(agents, 10_000); // the agents finish their copies
        assertThat(phase(harness.allCommands, MigrationPhase.PREPARE)).as("no switch starts while paused").isEmpty();
        harness.sendReport(agents, 600_000_000L, COLD);
        Decision held = harness.allDecisions.get(harness.allDecisions.size() - 1);
        assertThat(held.getReason()).isEqualTo("PAUSED");
        assertThat(held.getMessage()).contains("0 copying, 2 complete").contains("hold before their switch");
        assertThat(held.getFigures()).containsEntry("migrations.copied", 2.0);

        harness.sendControl(ControlKind.PAUSE, false);
        assertThat(phase(harness.pending, MigrationPhase.PREPARE)).as("resume starts the held switch").hasSize(4);
        harness.runAgents(agents, 10_000);
        assertThat(agents.capacityCv()).isLessThanOrEqualTo(0.10);
        assertThat(agents.serialQueueViolations).isEmpty();
    }

    @Test
    void pauseBetweenBatchesStartsNoBatchAndSaysSo() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of(), agents);
        harness.sendControl(ControlKind.PAUSE, true);
        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        harness.sendReport(agents, 600_000_000L, COLD);

        assertThat(harness.allCommands).isEmpty();
        assertThat(reasons()).contains("PAUSED");
        harness.sendControl(ControlKind.PAUSE, false);
        assertThat(phase(harness.allCommands, MigrationPhase.COPY)).as("resume plans at once").hasSize(2);
    }

    @Test
    void aThrottleChangeIsInTheNextCopyRateAtOnceAndAutoGivesTheBudgetBack() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-bytes-per-sec", "100000000", "budget-floor", "0.1"), agents);
        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        List<MigrationCommand> first = phase(harness.pending, MigrationPhase.COPY);
        assertThat(first).hasSize(2).allSatisfy(c -> assertThat(c.getMaxBytesPerSec()).isEqualTo(50_000_000L));
        harness.pending.clear();

        harness.sendControl(ControlKind.THROTTLE, true, 20_000_000L, null, "alice", null);
        List<MigrationCommand> rerated = phase(harness.pending, MigrationPhase.COPY);
        assertThat(rerated).as("both running copies get the new share").hasSize(2)
                .allSatisfy(c -> assertThat(c.getMaxBytesPerSec()).isEqualTo(10_000_000L));
        assertThat(rerated).extracting(MigrationCommand::getMigrationId)
                .containsExactlyInAnyOrderElementsOf(first.stream().map(MigrationCommand::getMigrationId).toList());
        harness.pending.clear();

        harness.sendReport(agents, 6_000_000_000L, COLD); // peak load: the throttle holds whatever the load
        assertThat(harness.pending).isEmpty();
        // auto: the limiter's budget again, at once; at peak load that is its floor, 10 MB/s over two copies
        harness.sendControl(ControlKind.THROTTLE, false);
        assertThat(phase(harness.pending, MigrationPhase.COPY)).hasSize(2)
                .allSatisfy(c -> assertThat(c.getMaxBytesPerSec()).isEqualTo(5_000_000L));
        harness.pending.clear();
        harness.sendReport(agents, 600_000_000L, COLD); // a trough: the full budget
        assertThat(phase(harness.pending, MigrationPhase.COPY)).hasSize(2)
                .allSatisfy(c -> assertThat(c.getMaxBytesPerSec()).isEqualTo(50_000_000L));
    }

    @Test
    void aThrottleBelowTheBudgetsFloorIsRefusedAndChangesNothing() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of("max-bytes-per-sec", "100000000", "budget-floor", "0.1"), agents);
        harness.sendControl(ControlKind.THROTTLE, true, 9_999_999L, null, "alice", null);

        assertThat(harness.deadLetterReasons()).singleElement().asString()
                .startsWith("invalid: throttle 9999999 B/s (9.5 MiB/s) is below the budget's floor 10000000 B/s (9.5 MiB/s, ");
        Decision refused = harness.allDecisions.get(harness.allDecisions.size() - 1);
        assertThat(refused.getReason()).isEqualTo("CONTROL_REFUSED");
        assertThat(refused.getMessage()).contains("the budget stays auto");

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        assertThat(phase(harness.pending, MigrationPhase.COPY)).allSatisfy(c -> assertThat(c.getMaxBytesPerSec()).isEqualTo(50_000_000L));
    }

    @Test
    void anExcludedNodeIsNeverASourceOrATargetAndTheOthersStillBalance() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of(), agents);
        harness.sendControl(ControlKind.EXCLUDE, true, null, "n1", "alice", null);
        harness.sendControl(ControlKind.EXCLUDE, true, null, "n3", "alice", null);
        Map<Integer, Long> n1 = new HashMap<>(agents.nodes.get("n1").shards());
        Map<Integer, Long> n3 = new HashMap<>(agents.nodes.get("n3").shards());

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        harness.runAgents(agents, 10_000);

        assertThat(harness.allCommands).isNotEmpty().allSatisfy(c -> {
            assertThat(c.getSourceNode()).isNotIn("n1", "n3");
            assertThat(c.getTargetNode()).isNotIn("n1", "n3");
        });
        assertThat(phase(harness.allCommands, MigrationPhase.CLEANUP)).as("n2 gave shards away")
                .anySatisfy(c -> assertThat(c.getSourceNode()).isEqualTo("n2"));
        assertThat(agents.nodes.get("n1").shards()).isEqualTo(n1);
        assertThat(agents.nodes.get("n3").shards()).isEqualTo(n3);
        assertThat(reasons()).contains("EXCLUDED"); // n1 stays full: the target is out of reach without it
    }

    @Test
    void withOperatorKeysAControlFromAnUnknownOperatorIsDeadLetteredAndNothingChanges(@TempDir Path dir) throws Exception {
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) 5);
        Path keys = dir.resolve("operators");
        Files.writeString(keys, "alice=" + Base64.getEncoder().encodeToString(secret) + "\n");
        SimulatedAgents agents = skewedCluster();
        start(Map.of("operator-keys-file", keys.toString()), agents);

        harness.sendControl(ControlKind.PAUSE, true, null, null, "mallory", NodeSignature.of(new byte[32]));
        harness.sendControl(ControlKind.PAUSE, true, null, null, "alice", null);
        assertThat(harness.deadLetterReasons()).hasSize(2).allSatisfy(r -> assertThat(r).startsWith("unauthenticated: "))
                .anySatisfy(r -> assertThat(r).isEqualTo("unauthenticated: no key is configured for operator 'mallory'"));
        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        assertThat(phase(harness.pending, MigrationPhase.COPY)).as("not paused").hasSize(2);

        harness.sendControl(ControlKind.PAUSE, true, null, null, "alice", NodeSignature.of(secret));
        assertThat(harness.deadLetterReasons()).isEmpty();
        assertThat(reasons()).contains("CONTROL");
    }

    @Test
    void theDecisionLogSaysWhyNoRepairRunsAndWhatEachPlanningStepDid() {
        SimulatedAgents agents = skewedCluster();
        start(Map.of(), agents);
        assertThat(harness.allDecisions).isNotEmpty();
        Decision idle = harness.allDecisions.get(0);
        assertThat(idle.getApp()).isEqualTo("migrator");
        assertThat(idle.getReason()).isEqualTo("BELOW_THRESHOLD");
        assertThat(idle.getMessage()).startsWith("no repair: the CAPACITY alert is CONFIRMED");
        assertThat(idle.getFigures()).containsKeys("capacityCv", "targetCv", "routingEpoch", "budgetBytesPerSec", "migrations.copying");

        harness.sendAlert(AlertState.OBSERVING, AlertState.CONFIRMED, agents.capacityCv());
        harness.runAgents(agents, 10_000);
        List<String> reasons = reasons();
        assertThat(reasons).contains("BATCH_STARTED", "TARGET_REACHED");
        Decision started = harness.allDecisions.stream().filter(d -> d.getReason().equals("BATCH_STARTED")).findFirst().orElseThrow();
        assertThat(started.getActed()).isTrue();
        assertThat(started.getMessage()).startsWith("batch b000001 starts 2 of a plan of ");
    }
}
