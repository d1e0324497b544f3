package io.skewguard.sim.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.skewguard.core.ring.CandidateSet;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioParser;
import org.junit.jupiter.api.Test;

class ClusterTest {

    private static Scenario scenario(String extra) {
        return ScenarioParser.parse("t", String.join("\n",
                "name = t", "duration = 1d", "slots = 32", "candidates = 3", "vnodesPerUnit = 20",
                "nodes.a.count = 6", "nodes.a.capacity = 1TB", "fill = 0.4", "heat = zipf",
                "writes.perDay = 100GB", "probeKeys = 400", extra, ""));
    }

    private static double sumShards(Cluster c, int node) {
        double sum = 0;
        for (int s = 0; s < c.slotCount(); s++) {
            sum += c.shardBytes(s, node);
        }
        return sum;
    }

    @Test
    void initialFillLaysDownTheRequestedUtilisation() {
        Cluster c = new Cluster(scenario(""));
        assertThat(c.figures().targetUtilisation()).isCloseTo(0.4, within(1e-9));
        for (int i = 0; i < c.maxNodes(); i++) {
            assertThat(c.used(i)).isCloseTo(sumShards(c, i), within(1.0));
        }
    }

    @Test
    void writesGoOnlyToTheSlotsCandidatesAndAddUp() {
        Cluster c = new Cluster(scenario(""));
        double before = c.figures().usedBytes();
        double written = c.write(1e10, true);
        assertThat(c.figures().usedBytes() - before).isCloseTo(written, within(1.0));
        for (int s = 0; s < c.slotCount(); s++) {
            CandidateSet set = c.slotTable().candidates(s);
            for (int n = 0; n < c.maxNodes(); n++) {
                if (!set.contains(n)) {
                    assertThat(c.shardBytes(s, n)).isZero();
                }
            }
        }
    }

    @Test
    void aMigrationMovesTheShardAndItsKeysAndCountsTheBytes() {
        Cluster c = new Cluster(scenario(""));
        int slot = 0;
        CandidateSet set = c.slotTable().candidates(slot);
        int source = set.node(0);
        int target = -1;
        for (int n = 0; n < c.maxNodes(); n++) {
            if (!set.contains(n)) {
                target = n;
                break;
            }
        }
        double bytes = c.shardBytes(slot, source);
        double total = c.figures().usedBytes();
        c.markInFlight(slot, source, target);
        c.copyShard(slot, source, target);
        c.switchSlot(slot, source, target);
        c.cleanup(slot, source);
        assertThat(c.slotTable().candidates(slot).contains(target)).isTrue();
        assertThat(c.slotTable().candidates(slot).contains(source)).isFalse();
        assertThat(c.shardBytes(slot, source)).isZero();
        assertThat(c.bytesMoved()).isEqualTo(bytes);
        assertThat(c.figures().usedBytes()).isCloseTo(total, within(1.0));
        assertThat(c.keys().unreadable(c)).isZero();
    }

    @Test
    void aSwitchWithoutTheCopyLosesKeysAndTheLedgerSeesIt() {
        Cluster c = new Cluster(scenario(""));
        for (int slot = 0; slot < c.slotCount(); slot++) {
            CandidateSet set = c.slotTable().candidates(slot);
            for (int n = 0; n < c.maxNodes(); n++) {
                if (!set.contains(n)) {
                    int source = set.node(0);
                    c.switchSlot(slot, source, n);
                    c.cleanup(slot, source);
                    break;
                }
            }
        }
        assertThat(c.keys().unreadable(c)).isPositive();
    }

    @Test
    void aLostNodesShardsAreRebuiltOnItsReplacementsAndStayReadable() {
        Cluster c = new Cluster(scenario(""));
        int lost = c.nodes().require("a-2");
        double held = c.used(lost);
        c.lose("a-2");
        assertThat(c.alive(lost)).isFalse();
        assertThat(c.recoveryBytes()).isCloseTo(held, within(1.0));
        for (int s = 0; s < c.slotCount(); s++) {
            assertThat(c.slotTable().candidates(s).contains(lost)).isFalse();
        }
        assertThat(c.keys().unreadable(c)).isZero();
    }

    @Test
    void aJoiningNodeIsEmptyAndInNoCandidateSet() {
        Cluster c = new Cluster(scenario("event.j.at = 1h\nevent.j.type = join\nevent.j.node = b-1\nevent.j.capacity = 1TB"));
        c.apply(c.scenario().events().get(0));
        int joined = c.nodes().require("b-1");
        assertThat(c.alive(joined)).isTrue();
        assertThat(c.used(joined)).isZero();
        c.write(1e10, false);
        assertThat(c.heat(joined)).isZero();
        assertThat(c.figures().gap()).isGreaterThan(0.3);
    }

    @Test
    void cephRelocationConservesBytesAndKeepsKeysReadable() {
        Cluster c = new Cluster(scenario(""));
        double total = c.figures().usedBytes();
        int node = c.nodes().require("a-1");
        double before = c.used(node);
        double moved = c.relocateAfterWeightChange(node, 1.0, 0.8);
        c.setWeight(node, 0.8);
        assertThat(moved).isPositive();
        assertThat(c.used(node)).isCloseTo(before - moved, within(1.0));
        assertThat(c.figures().usedBytes()).isCloseTo(total, within(1.0));
        assertThat(c.keys().unreadable(c)).isZero();
    }

    @Test
    void minimumBytesIsTheSumOfPositiveExcessAboveTheTarget() {
        Cluster c = new Cluster(scenario(""));
        ClusterFigures f = c.figures();
        double excess = 0;
        for (int i = 0; i < c.maxNodes(); i++) {
            excess += Math.max(0, c.used(i) - f.targetUtilisation() * c.capacity(i));
        }
        assertThat(f.minimumBytes()).isCloseTo(excess, within(1.0)).isPositive();
    }

    @Test
    void aHotShardTriplesItsNodesWritesInTheSlotUntilWeightsMoveItsKeys() {
        Cluster c = new Cluster(scenario("event.h.at = 1h\nevent.h.type = hotspot\nevent.h.slot = 3\nevent.h.factor = 3"));
        c.apply(c.scenario().events().get(0));
        HotShard hot = c.hotShards().get(0);
        int node = hot.node();
        c.write(1e10, false);
        double hotHeat = c.heat(node);
        c.setWeight(node, 0.01); // the hot keys' rendezvous winners change
        c.write(1e10, false);
        assertThat(c.heat(node)).isLessThan(hotHeat / 2);
    }

    @Test
    void aKeyRefusedByAFullSlotDoesNotTakeTheNextKeysWithIt() {
        Cluster c = new Cluster(scenario(""));
        int full = c.slotTable().candidates(0).node(0);
        // fill every node of slot 0's candidate set, so keys of slot 0 are refused
        for (int n : c.slotTable().candidates(0).nodes()) {
            c.addWrite(0, n, c.capacity(n) - c.used(n));
        }
        int before = c.keys().written();
        long refusedBefore = c.keys().rejected();
        c.writeKeys(3200);
        long refused = c.keys().rejected() - refusedBefore;
        int stored = c.keys().written() - before;
        assertThat(refused).isPositive().isLessThan(3200 / 8);
        assertThat(stored + refused).isEqualTo(3200);
        assertThat(c.used(full)).isEqualTo(c.capacity(full));
    }
}
