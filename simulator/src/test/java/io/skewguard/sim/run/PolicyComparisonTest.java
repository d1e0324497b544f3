package io.skewguard.sim.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.scenario.Scenario;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every policy on the small scenario (a join, a loss and a hot spot), in seconds. */
class PolicyComparisonTest {

    private static Scenario scenario;
    private static PolicySummary none;
    private static PolicySummary ceph;
    private static PolicySummary skewguard;

    @BeforeAll
    static void runAll() {
        scenario = SmallScenarioRuns.small();
        none = SmallScenarioRuns.run(scenario, "none").summary();
        ceph = SmallScenarioRuns.run(scenario, "ceph").summary();
        skewguard = SmallScenarioRuns.run(scenario, "skewguard").summary();
    }

    @Test
    void slotTablePoliciesStartRepairFromTheSameCluster() {
        assertThat(skewguard.baselineCv()).isEqualTo(none.baselineCv());
        assertThat(skewguard.minimumBytes()).isEqualTo(none.minimumBytes());
        assertThat(none.baselineCv()).isGreaterThan(scenario.skewguard().capacityThreshold());
    }

    @Test
    void cephRemapsTheJoinedNodeAtOnceAndPaysForItBeforeRepair() {
        // CRUSH-like placement: the join on day 0.25 moves data before repair.from (day 0.5)
        assertThat(ceph.baselineCv()).isLessThan(none.baselineCv());
        assertThat(ceph.totalBytesMoved()).isGreaterThan(ceph.bytesMoved() + ceph.hotspotBytesMoved());
    }

    @Test
    void noRepairMovesNothingAndChangesNoWeight() {
        assertThat(none.totalBytesMoved()).isZero();
        assertThat(none.weightChanges()).isZero();
        assertThat(none.finalCv()).isGreaterThan(0.3);
    }

    @Test
    void cephReweightCutsWeightsAndPaysForRelocation() {
        assertThat(ceph.weightChanges()).isPositive();
        assertThat(ceph.bytesMoved()).isPositive();
        assertThat(ceph.finalCv()).isLessThan(none.finalCv());
    }

    @Test
    void skewGuardMigratesToBelowTheBaselinesWithinTheMinimumBudget() {
        assertThat(skewguard.bytesMoved()).isPositive();
        assertThat(skewguard.endCv()).isLessThan(ceph.endCv()).isLessThan(none.endCv());
        assertThat(skewguard.bytesMoved()).isLessThanOrEqualTo(1.2 * skewguard.minimumBytes());
    }

    @Test
    void nodeLossIsRebuiltForEveryPolicyAndNoKeyIsLost() {
        for (PolicySummary p : new PolicySummary[] {none, ceph, skewguard}) {
            assertThat(p.recoveryBytes()).as(p.policy()).isPositive();
            assertThat(p.keysWritten()).as(p.policy()).isEqualTo(scenario.probeKeys());
            assertThat(p.keysUnreadable()).as(p.policy()).isZero();
        }
    }

    @Test
    void cephNamesItsLimitWhenItStops() {
        assertThat(ceph.notes()).anySatisfy(n -> assertThat(n).contains("never raises an under-used one"));
    }
}
