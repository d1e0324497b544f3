package io.skewguard.sim.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ScenarioParserTest {

    private static final String MINIMAL = String.join("\n",
            "name = tiny",
            "duration = 1d",
            "nodes.a.count = 3",
            "nodes.a.capacity = 10TB",
            "writes.perDay = 1TB",
            "");

    private static ScenarioException failure(String text) {
        try {
            ScenarioParser.parse("bad.properties", text);
        } catch (ScenarioException e) {
            return e;
        }
        throw new AssertionError("expected a ScenarioException for:\n" + text);
    }

    @Test
    void minimalScenarioGetsDesignDefaults() {
        Scenario s = ScenarioParser.parse("tiny.properties", MINIMAL);
        assertThat(s.name()).isEqualTo("tiny");
        assertThat(s.slots()).isEqualTo(256);
        assertThat(s.candidates()).isEqualTo(8);
        assertThat(s.vnodesPerUnit()).isEqualTo(150);
        assertThat(s.stepMillis()).isEqualTo(120_000L);
        assertThat(s.nodes()).extracting(NodeSpec::id).containsExactly("a-1", "a-2", "a-3");
        assertThat(s.nodes()).allSatisfy(n -> assertThat(n.capacityBytes()).isEqualTo(10_000_000_000_000L));
        assertThat(s.policies()).containsExactly("none", "ceph", "skewguard");
        assertThat(s.skewguard()).isEqualTo(SkewGuardSettings.defaults());
        assertThat(s.ceph()).isEqualTo(CephSettings.defaults());
    }

    @Test
    void theMigratorsNodeExpiryInFastModeDefaultsToADayAndMustBePositive() {
        assertThat(ScenarioParser.parse("tiny.properties", MINIMAL).skewguard().nodeExpiryMillis()).isEqualTo(86_400_000L);
        assertThat(ScenarioParser.parse("tiny.properties", MINIMAL + "skewguard.nodeExpiry = 2h\n").skewguard().nodeExpiryMillis())
                .isEqualTo(7_200_000L);
        assertThat(failure(MINIMAL + "skewguard.nodeExpiry = 0s\n").reason()).contains("skewguard.nodeExpiry must be positive");
        assertThat(failure(MINIMAL + "skewguard.nodeExpiry = -5m\n").reason()).contains("negative duration");
    }

    @Test
    void theMigratorsMaintenanceFactorDefaultsToTheMigratorsOwnAndIsZeroOrAtLeastOne() {
        double migratorDefault = io.skewguard.migrator.MigratorSettings.from(
                io.skewguard.migrator.MigratorSettings.MODEL.defaults()).maintenanceFactor();
        assertThat(ScenarioParser.parse("tiny.properties", MINIMAL).skewguard().maintenanceFactor()).isEqualTo(migratorDefault);
        assertThat(ScenarioParser.parse("tiny.properties", MINIMAL + "skewguard.maintenanceFactor = 1.1\n").skewguard()
                .maintenanceFactor()).isEqualTo(1.1);
        assertThat(ScenarioParser.parse("tiny.properties", MINIMAL + "skewguard.maintenanceFactor = 0\n").skewguard()
                .maintenanceFactor()).isZero();
        ScenarioException belowOne = failure(MINIMAL + "skewguard.maintenanceFactor = 0.9\n");
        assertThat(belowOne.line()).isEqualTo(6);
        assertThat(belowOne.reason()).contains("skewguard.maintenanceFactor must be 0 (off) or at least 1, was 0.9");
        assertThat(failure(MINIMAL + "skewguard.maintenanceFactor = often\n").reason())
                .contains("skewguard.maintenanceFactor must be a number, was 'often'");
    }

    @Test
    void unknownKeyNamesFileLineAndKey() {
        ScenarioException e = failure(MINIMAL + "# comment\nslotz = 512\n");
        assertThat(e.file()).isEqualTo("bad.properties");
        assertThat(e.line()).isEqualTo(7);
        assertThat(e.reason()).contains("unknown key 'slotz'");
        assertThat(e.getMessage()).startsWith("bad.properties:7: ");
    }

    @Test
    void unknownFieldOfANodeGroupListsTheKnownOnes() {
        ScenarioException e = failure(MINIMAL + "nodes.a.capacitty = 5TB\n");
        assertThat(e.line()).isEqualTo(6);
        assertThat(e.reason()).contains("unknown key 'nodes.a.capacitty'").contains("capacity");
    }

    @Test
    void negativeCapacityIsRefusedOnItsLine() {
        ScenarioException e = failure(MINIMAL.replace("nodes.a.capacity = 10TB", "nodes.a.capacity = -5TB"));
        assertThat(e.line()).isEqualTo(4);
        assertThat(e.reason()).contains("negative size -5TB").contains("nodes.a.capacity");
    }

    @Test
    void negativeCapacityOfAJoiningNodeIsRefused() {
        ScenarioException e = failure(MINIMAL + "event.j.at = 1h\nevent.j.type = join\nevent.j.node = new-1\n"
                + "event.j.capacity = -1TB\n");
        assertThat(e.line()).isEqualTo(9);
        assertThat(e.reason()).contains("negative size");
    }

    @Test
    void lossOfAnUnknownNodeNamesTheEventLineAndNode() {
        ScenarioException e = failure(MINIMAL + "event.gone.at = 2h\nevent.gone.type = loss\nevent.gone.node = a-9\n");
        assertThat(e.file()).isEqualTo("bad.properties");
        assertThat(e.line()).isEqualTo(8);
        assertThat(e.reason()).contains("event 'gone'").contains("unknown node 'a-9'");
    }

    @Test
    void lossOfANodeAlreadyLostSaysSo() {
        ScenarioException e = failure(MINIMAL + "event.x.at = 2h\nevent.x.type = loss\nevent.x.node = a-1\n"
                + "event.y.at = 3h\nevent.y.type = loss\nevent.y.node = a-1\n");
        assertThat(e.line()).isEqualTo(11);
        assertThat(e.reason()).contains("unknown node 'a-1'").contains("already lost");
    }

    @Test
    void lossOfANodeThatJoinsLaterIsRefused() {
        ScenarioException e = failure(MINIMAL + "event.x.at = 2h\nevent.x.type = loss\nevent.x.node = b-1\n"
                + "event.y.at = 3h\nevent.y.type = join\nevent.y.node = b-1\nevent.y.capacity = 1TB\n");
        assertThat(e.line()).isEqualTo(8);
        assertThat(e.reason()).contains("unknown node 'b-1'");
    }

    @Test
    void joinOfAnExistingNodeIsRefused() {
        ScenarioException e = failure(MINIMAL + "event.x.at = 2h\nevent.x.type = join\nevent.x.node = a-2\nevent.x.capacity = 1TB\n");
        assertThat(e.line()).isEqualTo(8);
        assertThat(e.reason()).contains("already in the cluster");
    }

    @Test
    void keySetTwiceNamesBothLines() {
        ScenarioException e = failure(MINIMAL + "name = again\n");
        assertThat(e.line()).isEqualTo(6);
        assertThat(e.reason()).contains("set twice").contains("line 1");
    }

    @Test
    void badValuesSayWhatIsExpected() {
        assertThat(failure(MINIMAL + "slots = 300\n").reason()).contains("power of two");
        assertThat(failure(MINIMAL + "step = soon\n").reason()).contains("step: 'soon' is not a duration").contains("500ms");
        assertThat(failure(MINIMAL + "step = 120\n").reason()).contains("has no unit");
        assertThat(failure(MINIMAL + "policies = none, magic\n").reason()).contains("unknown policy 'magic'");
        assertThat(failure(MINIMAL + "heat = lumpy\n").reason()).contains("unknown heat 'lumpy'");
        assertThat(failure(MINIMAL + "this line has no equals\n").reason()).contains("expected 'key = value'");
        assertThat(failure(MINIMAL.replace("name = tiny\n", "")).reason()).contains("missing key 'name'");
    }

    @Test
    void eventsAreSortedByTimeAndHotSpotsResolveHottest() {
        Scenario s = ScenarioParser.parse("t", MINIMAL + "event.late.at = 20h\nevent.late.type = hotspot\n"
                + "event.early.at = 1h\nevent.early.type = hotspot\nevent.early.slot = 5\nevent.early.factor = 2\n");
        assertThat(s.events()).extracting(ScenarioEvent::name).containsExactly("early", "late");
        ScenarioEvent.HotSpot late = (ScenarioEvent.HotSpot) s.events().get(1);
        assertThat(late.slot().hottest()).isTrue();
        assertThat(late.factor()).isEqualTo(3.0);
        assertThat(late.keys()).isEqualTo(32);
        assertThat(s.firstHotSpot().name()).isEqualTo("early");
    }

    @Test
    void aHotSpotsKeysAreOneTo4096() {
        Scenario s = ScenarioParser.parse("t", MINIMAL + "event.h.at = 1h\nevent.h.type = hotspot\nevent.h.keys = 256\n");
        assertThat(s.firstHotSpot().keys()).isEqualTo(256);
        for (String bad : new String[] {"0", "-3", "4097"}) {
            ScenarioException e = failure(MINIMAL + "event.h.at = 1h\nevent.h.type = hotspot\nevent.h.keys = " + bad + "\n");
            assertThat(e.line()).isEqualTo(8);
            assertThat(e.reason()).contains("keys of hot spot 'h' is " + bad).contains("[1, 4096]");
        }
    }

    @Test
    void capacitySpreadAndRacksAreLaidOutInIdOrder() {
        Scenario s = ScenarioParser.parse("t", MINIMAL + "nodes.a.capacitySpread = 0.5\nnodes.a.racks = 2\n");
        assertThat(s.nodes()).extracting(NodeSpec::capacityBytes)
                .containsExactly(5_000_000_000_000L, 10_000_000_000_000L, 15_000_000_000_000L);
        assertThat(s.nodes()).extracting(NodeSpec::rack).containsExactly("rack-1", "rack-2", "rack-1");
    }

    @Test
    void everyShippedScenarioParses() {
        assertThat(ScenarioLibrary.shipped()).containsExactly("paper-48", "paper-48-spreadable", "paper-48-peak", "join-and-hotspot", "node-loss",
                "scale-512");
        for (String name : ScenarioLibrary.shipped()) {
            Scenario s = ScenarioLibrary.load(name);
            assertThat(s.name()).isEqualTo(name);
        }
        Scenario paper = ScenarioLibrary.load("paper-48");
        assertThat(paper.nodes()).hasSize(48);
        assertThat(paper.durationMillis()).isEqualTo(42L * 86_400_000L);
        assertThat(paper.repairFromMillis()).isEqualTo(14L * 86_400_000L);
        assertThat(paper.firstHotSpot().atMillis()).isEqualTo(28L * 86_400_000L);
        assertThat(paper.firstHotSpot().factor()).isEqualTo(3.0);
        assertThat(paper.firstHotSpot().keys()).isEqualTo(32);
        assertThat(ScenarioLibrary.load("scale-512").nodes().size()
                + ScenarioLibrary.load("scale-512").events().stream().filter(e -> e instanceof ScenarioEvent.Join).count())
                .isEqualTo(512);
    }

    @Test
    void aDrainNamesItsNodeAndMayBeCancelledLater() {
        Scenario s = ScenarioParser.parse("t", MINIMAL + "event.d.at = 2h\nevent.d.type = drain\nevent.d.node = a-2\n"
                + "event.e.at = 3h\nevent.e.type = drain\nevent.e.node = a-3\nevent.e.cancelAt = 5h\n");
        assertThat(s.events()).containsExactly(new ScenarioEvent.Drain("d", 7_200_000L, "a-2", -1),
                new ScenarioEvent.Drain("e", 10_800_000L, "a-3", 18_000_000L));
        assertThat(((ScenarioEvent.Drain) s.events().get(0)).cancelled()).isFalse();
        assertThat(((ScenarioEvent.Drain) s.events().get(1)).cancelled()).isTrue();
    }

    @Test
    void aDrainOfAnUnknownOrLostNodeIsRefused() {
        ScenarioException unknown = failure(MINIMAL + "event.d.at = 2h\nevent.d.type = drain\nevent.d.node = a-9\n");
        assertThat(unknown.line()).isEqualTo(8);
        assertThat(unknown.reason()).contains("event 'd'").contains("drains unknown node 'a-9'");
        ScenarioException lost = failure(MINIMAL + "event.x.at = 1h\nevent.x.type = loss\nevent.x.node = a-1\n"
                + "event.d.at = 2h\nevent.d.type = drain\nevent.d.node = a-1\n");
        assertThat(lost.reason()).contains("unknown node 'a-1'").contains("lost by then");
    }

    @Test
    void aNodeIsDrainedOnceUnlessTheDrainWasCancelledBefore() {
        ScenarioException twice = failure(MINIMAL + "event.d.at = 2h\nevent.d.type = drain\nevent.d.node = a-1\n"
                + "event.e.at = 3h\nevent.e.type = drain\nevent.e.node = a-1\n");
        assertThat(twice.line()).isEqualTo(11);
        assertThat(twice.reason()).contains("already being drained");
        Scenario again = ScenarioParser.parse("t", MINIMAL + "event.d.at = 2h\nevent.d.type = drain\nevent.d.node = a-1\n"
                + "event.d.cancelAt = 3h\nevent.e.at = 4h\nevent.e.type = drain\nevent.e.node = a-1\n");
        assertThat(again.events()).hasSize(2);
    }

    @Test
    void drainingEveryNodeIsRefused() {
        ScenarioException e = failure(MINIMAL + "event.a.at = 1h\nevent.a.type = drain\nevent.a.node = a-1\n"
                + "event.b.at = 2h\nevent.b.type = drain\nevent.b.node = a-2\n"
                + "event.c.at = 3h\nevent.c.type = drain\nevent.c.node = a-3\n");
        assertThat(e.line()).isEqualTo(14);
        assertThat(e.reason()).contains("would leave no node to take the data of 'a-3'");
    }

    @Test
    void cancelAtMustFollowTheDrainAndBelongsToDrainsOnly() {
        ScenarioException before = failure(MINIMAL + "event.d.at = 2h\nevent.d.type = drain\nevent.d.node = a-1\n"
                + "event.d.cancelAt = 1h\n");
        assertThat(before.line()).isEqualTo(9);
        assertThat(before.reason()).contains("cancelAt").contains("after its 'at'");
        ScenarioException onALoss = failure(MINIMAL + "event.x.at = 2h\nevent.x.type = loss\nevent.x.node = a-1\n"
                + "event.x.cancelAt = 3h\n");
        assertThat(onALoss.line()).isEqualTo(9);
        assertThat(onALoss.reason()).contains("cancelAt belongs to a drain event");
    }

    @Test
    void anUnknownEventTypeListsDrain() {
        ScenarioException e = failure(MINIMAL + "event.x.at = 2h\nevent.x.type = decommission\nevent.x.node = a-1\n");
        assertThat(e.reason()).contains("join, loss, drain or hotspot");
    }
}
