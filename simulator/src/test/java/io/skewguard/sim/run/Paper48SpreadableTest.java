package io.skewguard.sim.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.model.Cluster;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioLibrary;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code paper-48-spreadable}: the paper's cluster with heat of the kind weights can spread (asserted:
 * no slot hotter than m/N). The migration figures hold on the scenario's seed and on seeds 1–5: final
 * capacity CV, bytes moved against the minimum, every sampled key readable. The heat Gini stays under
 * the 0.40 alert here, so neither a weight phase nor a hot-spot repair starts (docs/simulator.md).
 */
class Paper48SpreadableTest {

    private static Scenario paper;
    private static PolicySummary skewguard;

    @BeforeAll
    static void run() {
        paper = ScenarioLibrary.load("paper-48-spreadable");
        skewguard = Simulation.run(paper, "skewguard", progress -> { }).summary();
    }

    @Test
    void theHeatIsOfTheKindWeightsCanFixNoSlotTakesMoreThanMOverNOfTheWrites() {
        Cluster cluster = new Cluster(paper);
        double fairShareOfACandidateSet = (double) paper.candidates() / paper.nodes().size();
        assertThat(cluster.share(cluster.hottestSlot())).isLessThan(fairShareOfACandidateSet);
    }

    @Test
    void baselineCapacityCvIsAtLeastPointThirtyBeforeRepair() {
        assertThat(skewguard.baselineCv()).isGreaterThanOrEqualTo(0.30);
    }

    @Test
    void skewGuardEndsTheRepairPhaseAtOrBelowThePapersCv() {
        assertThat(skewguard.finalCv()).isLessThanOrEqualTo(0.09);
    }

    @Test
    void bytesMovedStayWithinOnePointTwoTimesTheMinimum() {
        assertThat(skewguard.minimumBytes()).isPositive();
        assertThat(skewguard.bytesMoved()).isPositive().isLessThanOrEqualTo(1.2 * skewguard.minimumBytes());
    }

    @Test
    void everySampledKeyIsStillReadableAtTheEnd() {
        assertThat(skewguard.keysWritten()).isEqualTo(20_000);
        assertThat(skewguard.keysUnreadable()).isZero();
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void finalCvAndBytesMovedHoldOnOtherSeedsToo(long seed) {
        PolicySummary other = Simulation.run(paper.withSeed(seed), "skewguard", progress -> { }).summary();
        assertThat(other.finalCv()).isLessThanOrEqualTo(0.09);
        assertThat(other.bytesMoved()).isPositive().isLessThanOrEqualTo(1.2 * other.minimumBytes());
        assertThat(other.keysUnreadable()).isZero();
    }
}
