package io.skewguard.migrator.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.migrator.membership.KnownCluster;
import io.skewguard.migrator.membership.Verdict;
import io.skewguard.runtime.control.ControlRecords;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.SlotAssignment;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ControlRulesTest {

    private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");

    private static ControlView view(List<OperatorControl> controls, List<Decision> decisions) {
        TreeMap<String, NodeMembership> entries = new TreeMap<>();
        entries.put("n3", NodeMembership.newBuilder().setCluster("c1").setNode("n3").setState(MembershipState.DRAINING)
                .setSource("operator").setUpdatedAt(NOW).build());
        TreeMap<Integer, SlotAssignment> rows = new TreeMap<>();
        rows.put(0, SlotAssignment.newBuilder().setCluster("c1").setSlot(0).setRoutingEpoch(3).setCandidates(List.of("n1", "n2", "n3"))
                .setUpdatedAt(NOW).build());
        TreeMap<String, OperatorControl> byKey = new TreeMap<>();
        controls.forEach(c -> byKey.put(ControlRecords.key(c.getCluster(), c.getControl(), c.getNode()), c));
        return new ControlView(new KnownCluster("c1", entries, null, rows), byKey, decisions, Map.of());
    }

    private static ControlView view() {
        return view(List.of(), List.of());
    }

    private static Verdict<OperatorControl> decide(ControlView v, ControlChange change) {
        return ControlRules.decide(v, change, "alice", "why", NOW);
    }

    @Test
    void aChangeIsOneRecordWithTheOperatorItsReasonAndTheControlsItLeads() {
        Verdict<OperatorControl> v = decide(view(), new ControlChange.Throttle(50L << 20));

        assertThat(v).isInstanceOf(Verdict.Write.class);
        OperatorControl r = ((Verdict.Write<OperatorControl>) v).record();
        assertThat(r.getControl()).isEqualTo(ControlKind.THROTTLE);
        assertThat(r.getEnabled()).isTrue();
        assertThat(r.getBytesPerSec()).isEqualTo(50L << 20);
        assertThat(r.getOperator()).isEqualTo("alice");
        assertThat(r.getReason()).isEqualTo("why");
        assertThat(r.getUpdatedAt()).isEqualTo(NOW);
        assertThat(v.lines()).containsExactly("cluster c1: controls now none",
                "note: no decision of the migrator states its budget's floor yet; the migrator refuses a throttle below it",
                "next: the migration budget is 50.0 MiB/s, shared by the running copies, which get their new rate at once");
    }

    @Test
    void whatIsAlreadySoWritesNothing() {
        ControlView paused = view(List.of(ControlRules.record("c1", new ControlChange.Pause(true), "bob", null, NOW)), List.of());

        assertThat(decide(paused, new ControlChange.Pause(true))).isInstanceOf(Verdict.Unchanged.class)
                .extracting(Verdict::lines).asList().contains("nothing to write: already paused");
        assertThat(decide(view(), new ControlChange.Pause(false))).isInstanceOf(Verdict.Unchanged.class);
        assertThat(decide(view(), new ControlChange.Exclude("n1", false))).isInstanceOf(Verdict.Unchanged.class);
        assertThat(decide(view(), new ControlChange.Throttle(0))).isInstanceOf(Verdict.Unchanged.class);
        assertThat(decide(paused, new ControlChange.Pause(false))).isInstanceOf(Verdict.Write.class);
    }

    @Test
    void anUnknownClusterOrNodeOrADrainingNodeIsRefused() {
        ControlView nothing = new ControlView(KnownCluster.empty("c9"), new TreeMap<>(), List.of(), Map.of());
        assertThat(decide(nothing, new ControlChange.Pause(true))).isEqualTo(new Verdict.Refused<>("cluster c9 is unknown: no report, "
                + "slot table, membership record, control or decision names it (check --cluster and --topic-prefix)"));
        assertThat(decide(view(), new ControlChange.Exclude("n9", true))).isEqualTo(
                new Verdict.Refused<>("exclude of n9 refused: cluster c1 has no node n9 (its nodes: n1, n2, n3)"));
        assertThat(decide(view(), new ControlChange.Exclude("n3", true)).lines().get(0)).contains("it is DRAINING");
        assertThat(decide(view(), new ControlChange.Exclude("n3", false))).as("including a draining node is harmless")
                .isInstanceOf(Verdict.Unchanged.class);
    }

    @Test
    void aThrottleBelowTheFloorTheMigratorStatedIsRefused() {
        Decision migrator = Decision.newBuilder().setCluster("c1").setApp("migrator").setActed(false).setReason("BELOW_THRESHOLD")
                .setMessage("m").setFigures(Map.of("budgetFloorBytesPerSec", 10_000_000.0)).setDecidedAt(NOW).build();
        ControlView v = view(List.of(), List.of(migrator));

        assertThat(decide(v, new ControlChange.Throttle(9_999_999))).isInstanceOf(Verdict.Refused.class);
        assertThat(decide(v, new ControlChange.Throttle(10_000_000))).isInstanceOf(Verdict.Write.class)
                .extracting(Verdict::lines).asList().noneMatch(l -> l.toString().startsWith("note:"));
    }
}
