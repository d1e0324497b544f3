package io.skewguard.migrator.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class MembershipRulesTest {

    private static final long TB = 1_000_000_000_000L;
    private static final Instant NOW = Instant.parse("2025-03-01T12:00:00Z");
    private final MembershipRules rules = new MembershipRules(0.10);

    /** A cluster as the topics describe it, built node by node. */
    private static final class Cluster {
        final TreeMap<String, NodeMembership> entries = new TreeMap<>();
        final List<NodeFigures> figures = new ArrayList<>();
        final TreeMap<Integer, SlotAssignment> rows = new TreeMap<>();

        Cluster node(String id, String rack, long used, long total) {
            figures.add(NodeFigures.newBuilder().setNode(id).setRack(rack).setHeatBytes(0).setUsedBytes(used).setTotalBytes(total)
                    .setUtilisation(total == 0 ? 0 : (double) used / total).build());
            return this;
        }

        Cluster entry(String id, MembershipState state) {
            entries.put(id, NodeMembership.newBuilder().setCluster("c").setNode(id).setState(state).setSource("operator")
                    .setReason("test").setUpdatedAt(NOW.minusSeconds(60)).build());
            return this;
        }

        Cluster row(int slot, String... candidates) {
            rows.put(slot, SlotAssignment.newBuilder().setCluster("c").setSlot(slot).setRoutingEpoch(7)
                    .setCandidates(List.of(candidates)).setUpdatedAt(NOW).build());
            return this;
        }

        KnownCluster known() {
            SkewReport report = figures.isEmpty() ? null : SkewReport.newBuilder().setCluster("c").setWindowStart(NOW.minusSeconds(60))
                    .setWindowEnd(NOW).setHeatGini(0).setCapacityCv(0).setShardCapacityCv(0).setNodeCount(figures.size())
                    .setTotalWriteBytes(0).setNodes(figures).setHottestSlots(List.of()).setHeatState(AlertState.NORMAL)
                    .setCapacityState(AlertState.NORMAL).build();
            return new KnownCluster("c", entries, report, rows);
        }
    }

    /** Three racks, two nodes each, 10 TB each at 40%, candidate sets of 3. */
    private static Cluster sixNodesOnThreeRacks() {
        Cluster c = new Cluster();
        for (int i = 1; i <= 6; i++) {
            c.node("n" + i, "r" + ((i + 1) / 2), 4 * TB, 10 * TB);
        }
        return c.row(0, "n1", "n3", "n5").row(1, "n2", "n4", "n6").row(2, "n1", "n4", "n5");
    }

    private Verdict<NodeMembership> decide(Cluster c, NodeChange change) {
        return rules.decide(c.known(), change, "alice", null, NOW);
    }

    @Test
    void aDrainOfAnActiveNodeWritesDrainingAndSaysWhatItHoldsAndWhatTheMigratorDoesNext() {
        Verdict<NodeMembership> v = decide(sixNodesOnThreeRacks(), new NodeChange.Drain("n1"));

        assertThat(v).isInstanceOf(Verdict.Write.class);
        NodeMembership r = ((Verdict.Write<NodeMembership>) v).record();
        assertThat(r.getState()).isEqualTo(MembershipState.DRAINING);
        assertThat(r.getCluster()).isEqualTo("c");
        assertThat(r.getNode()).isEqualTo("n1");
        assertThat(r.getSource()).isEqualTo("operator");
        assertThat(r.getReason()).isEqualTo("drain by alice");
        assertThat(r.getRack()).isEqualTo("r1");
        assertThat(r.getRoutingEpoch()).isNull();
        assertThat(r.getUpdatedAt()).isEqualTo(NOW);
        assertThat(String.join("\n", v.lines()))
                .contains("n1 now: a member without a membership record; rack r1; 4.0 TB used of 10.0 TB (40.0%); candidate in 2 sets")
                .contains("It holds 4.0 TB in 2 candidate sets; the other 5 live nodes have 25.0 TB free below the drain-headroom of 10.0%.")
                .contains("The cluster is at 40.0% now and at 48.0% once the drain is done.")
                .contains("moves its shards away at the normal rate limits, then takes it out of every candidate set");
    }

    @Test
    void aDrainOrRemoveOfANodeTheClusterDoesNotKnowIsRefused() {
        for (NodeChange change : List.of(new NodeChange.Drain("n9"), new NodeChange.Remove("n9"), new NodeChange.CancelDrain("n9"))) {
            Verdict<NodeMembership> v = decide(sixNodesOnThreeRacks(), change);
            assertThat(v).isInstanceOf(Verdict.Refused.class);
            assertThat(v.lines().get(0)).contains("refused: cluster c has no node n9 (no membership record, not in the latest report, "
                    + "not in the slot table); nothing written");
        }
    }

    @Test
    void aNodeKnownOnlyFromTheSlotTableCanBeRemoved() {
        Cluster c = sixNodesOnThreeRacks().row(3, "n1", "n3", "x7");
        assertThat(decide(c, new NodeChange.Remove("x7"))).isInstanceOf(Verdict.Write.class);
    }

    @Test
    void theLastLiveNodeOfARackCannotGoWhenTheOtherRacksAreFewerThanTheSetSize() {
        Cluster c = sixNodesOnThreeRacks().entry("n2", MembershipState.DRAINING);

        Verdict<NodeMembership> drain = decide(c, new NodeChange.Drain("n1"));
        Verdict<NodeMembership> remove = decide(c, new NodeChange.Remove("n1"));

        assertThat(drain).isEqualTo(new Verdict.Refused<>("drain of n1 refused: it is the last live node of rack r1, and the other 4 live "
                + "nodes span 2 racks, fewer than the candidate-set size 3, so candidate sets could no longer put every candidate on "
                + "its own rack; add a node on another rack first (node add NODE --cluster c --rack RACK); nothing written"));
        assertThat(remove.lines().get(0)).startsWith("remove of n1 refused: it is the last live node of rack r1");
        assertThat(decide(c, new NodeChange.Drain("n3"))).as("r2 keeps n4").isInstanceOf(Verdict.Write.class);
    }

    @Test
    void nodesOnNoKnownRackEachCountAsTheirOwnRack() {
        Cluster c = new Cluster().node("a", null, TB, 10 * TB).node("b", null, TB, 10 * TB).node("d", null, TB, 10 * TB)
                .row(0, "a", "b", "d");
        assertThat(decide(c, new NodeChange.Remove("a")).lines().get(0))
                .startsWith("remove of a refused: it is on no known rack, and the other 2 live nodes span 2 racks, fewer than the candidate-set size 3");
        assertThat(decide(c.node("e", null, TB, 10 * TB), new NodeChange.Remove("a"))).isInstanceOf(Verdict.Write.class);
    }

    @Test
    void aDrainWhoseBytesDoNotFitOnTheOtherLiveNodesBelowTheHeadroomIsRefused() {
        Cluster c = new Cluster().node("n1", "r1", 9 * TB, 10 * TB).node("n2", "r2", 8 * TB, 10 * TB).node("n3", "r3", 8 * TB, 10 * TB)
                .node("n4", "r1", 3 * TB, 10 * TB).row(0, "n1", "n2", "n3");

        Verdict<NodeMembership> v = decide(c, new NodeChange.Drain("n1"));

        assertThat(v).isEqualTo(new Verdict.Refused<>("drain of n1 refused: it holds 9.0 TB but the other 3 live nodes have only 8.0 TB "
                + "free below the drain-headroom of 10.0%, so the cluster would be over capacity; add a node first (node add) or "
                + "remove the node instead; nothing written"));
    }

    @Test
    void aDrainThatFitsExactlyBelowTheHeadroomIsAllowed() {
        Cluster c = new Cluster().node("n1", "r1", 8 * TB, 10 * TB).node("n2", "r2", 5 * TB, 10 * TB).node("n3", "r3", 5 * TB, 10 * TB)
                .row(0, "n1", "n2");
        assertThat(decide(c, new NodeChange.Drain("n1"))).isInstanceOf(Verdict.Write.class);
        assertThat(new MembershipRules(0.2).decide(c.known(), new NodeChange.Drain("n1"), "alice", null, NOW))
                .isInstanceOf(Verdict.Refused.class);
    }

    @Test
    void anAddOfAnActiveNodeWritesNothingAndSaysSo() {
        Cluster c = sixNodesOnThreeRacks().entry("n1", MembershipState.ACTIVE);
        Verdict<NodeMembership> v = decide(c, new NodeChange.Add("n1", "r9", null));
        assertThat(v).isInstanceOf(Verdict.Unchanged.class);
        assertThat(v.lines()).last().asString().startsWith("n1 is already ACTIVE in cluster c: nothing written (its record keeps rack unknown");
    }

    @Test
    void anAddOfANewNodeWritesActiveWithItsRackAndCapacity() {
        Verdict<NodeMembership> v = rules.decide(sixNodesOnThreeRacks().known(), new NodeChange.Add("n7", "r4", 100 * TB), "alice", "new chassis", NOW);
        NodeMembership r = ((Verdict.Write<NodeMembership>) v).record();
        assertThat(r.getState()).isEqualTo(MembershipState.ACTIVE);
        assertThat(r.getRack()).isEqualTo("r4");
        assertThat(r.getCapacityBytes()).isEqualTo(100 * TB);
        assertThat(r.getReason()).isEqualTo("add by alice: new chassis");
        assertThat(String.join("\n", v.lines())).contains("n7 now: not known in cluster c")
                .contains("n7 becomes ACTIVE in cluster c (rack r4, capacity 100.0 TB).")
                .contains("Now the other live nodes are at 40.0% (24.0 TB of 60.0 TB); with n7 the cluster is at 15.0%.");
    }

    @Test
    void anAddOfADrainingNodeIsRefusedInFavourOfCancel() {
        Verdict<NodeMembership> v = decide(sixNodesOnThreeRacks().entry("n1", MembershipState.DRAINING), new NodeChange.Add("n1", null, null));
        assertThat(v.lines().get(0)).isEqualTo("n1 is DRAINING in cluster c; to keep it, cancel the drain: node drain n1 --cluster c --cancel; nothing written");
    }

    @Test
    void aRemovedNodeCanBeAddedAgain() {
        Verdict<NodeMembership> v = decide(sixNodesOnThreeRacks().entry("n1", MembershipState.REMOVED), new NodeChange.Add("n1", null, null));
        assertThat(((Verdict.Write<NodeMembership>) v).record().getRack()).isEqualTo("r1");
        assertThat(v.lines()).contains("n1 was REMOVED: it joins cluster c again as a new member.");
    }

    @Test
    void cancelTurnsADrainingNodeActiveAndIsNothingForAnActiveOne() {
        Verdict<NodeMembership> cancel = decide(sixNodesOnThreeRacks().entry("n1", MembershipState.DRAINING), new NodeChange.CancelDrain("n1"));
        assertThat(((Verdict.Write<NodeMembership>) cancel).record().getState()).isEqualTo(MembershipState.ACTIVE);
        assertThat(((Verdict.Write<NodeMembership>) cancel).record().getReason()).isEqualTo("drain cancelled by alice");
        assertThat(decide(sixNodesOnThreeRacks(), new NodeChange.CancelDrain("n1"))).isInstanceOf(Verdict.Unchanged.class);
        assertThat(decide(sixNodesOnThreeRacks().entry("n1", MembershipState.DRAINED), new NodeChange.CancelDrain("n1")))
                .isInstanceOf(Verdict.Refused.class);
    }

    @Test
    void drainingAgainIsNothingAndDrainingAGoneNodeIsRefused() {
        assertThat(decide(sixNodesOnThreeRacks().entry("n1", MembershipState.DRAINING), new NodeChange.Drain("n1")))
                .isInstanceOf(Verdict.Unchanged.class);
        assertThat(decide(sixNodesOnThreeRacks().entry("n1", MembershipState.LOST), new NodeChange.Drain("n1")).lines().get(0))
                .isEqualTo("drain of n1 refused: it is LOST in cluster c, in no candidate set, so there is nothing to drain; nothing written");
    }

    @Test
    void aRemoveSaysWhatIsRebuiltAndARemovedOrLostNodeIsLeftAsItIs() {
        Verdict<NodeMembership> v = decide(sixNodesOnThreeRacks(), new NodeChange.Remove("n5"));
        assertThat(((Verdict.Write<NodeMembership>) v).record().getState()).isEqualTo(MembershipState.REMOVED);
        assertThat(String.join("\n", v.lines())).contains("replaces it in its 2 candidate sets")
                .contains("the storage layer rebuilds its 4.0 TB from replicas")
                .contains("Once rebuilt, the other 5 live nodes are at 48.0%.");
        assertThat(decide(sixNodesOnThreeRacks().entry("n5", MembershipState.REMOVED), new NodeChange.Remove("n5")))
                .isInstanceOf(Verdict.Unchanged.class);
        assertThat(decide(sixNodesOnThreeRacks().entry("n5", MembershipState.LOST), new NodeChange.Remove("n5")).lines())
                .last().asString().contains("LOST in cluster c (handled as removed): nothing written");
    }

    @Test
    void aDrainedNodeIsRemovedWithoutTheRackRule() {
        Cluster c = new Cluster().node("a", "r1", 0, 10 * TB).node("b", "r2", TB, 10 * TB).entry("a", MembershipState.DRAINED).row(0, "b");
        assertThat(decide(c, new NodeChange.Remove("a"))).isInstanceOf(Verdict.Write.class);
    }
}
