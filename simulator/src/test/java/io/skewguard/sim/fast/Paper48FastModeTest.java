package io.skewguard.sim.fast;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Simulation;
import io.skewguard.sim.run.SimulationMode;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioLibrary;
import java.time.Duration;
import io.skewguard.sim.scenario.ScenarioEvent;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The paper's figures (docs/design.md §10) on the shipped {@code paper-48} in fast mode: the real
 * detector, balancer and migrator topologies and the real node agents, the writers routing through
 * the migrator's slot-table rows (spread slots included, docs/design.md §3.5). Outcomes, not timings.
 *
 * <p>The whole test run takes the scenario up to day {@value #SHORT_DAYS}: the two weeks without
 * repair, then the weight phase (with the hottest slot spread) and the repair phase, which ends by
 * day 18, and the hot spot one day early, on day {@value #SHORT_HOTSPOT_DAY}, with the two days after
 * it. The six weeks as shipped (the hot spot of day 28 and the two weeks after it) are several minutes
 * of CPU and run with {@code -Dskewguard.sim.full=true}; docs/simulator.md gives that command, its
 * figures and those of SkewGuard without spreading beside it.
 */
class Paper48FastModeTest {

    /** Days of the scenario in the test run; the full run takes all 42. */
    static final int SHORT_DAYS = 21;
    /** The day of the hot spot in the test run (28 in the full run). */
    static final int SHORT_HOTSPOT_DAY = 19;

    private static PolicySummary skewguard;

    @BeforeAll
    static void run() {
        Scenario paper = ScenarioLibrary.load("paper-48");
        Scenario scenario = Boolean.getBoolean("skewguard.sim.full") ? paper : shortRun(paper);
        skewguard = Simulation.run(scenario, "skewguard", SimulationMode.FAST, p -> { }).summary();
    }

    /** {@code paper} up to day {@value #SHORT_DAYS}, its hot spot on day {@value #SHORT_HOTSPOT_DAY}. */
    static Scenario shortRun(Scenario paper) {
        long day = Duration.ofDays(1).toMillis();
        java.util.List<ScenarioEvent> events = paper.events().stream()
                .map(e -> e instanceof ScenarioEvent.HotSpot h
                        ? (ScenarioEvent) new ScenarioEvent.HotSpot(h.name(), SHORT_HOTSPOT_DAY * day, h.slot(), h.factor(), h.keys()) : e)
                .toList();
        return new Scenario(paper.name(), paper.description(), paper.source(), paper.seed(), paper.durationMillis(),
                paper.stepMillis(), paper.slots(), paper.candidates(), paper.vnodesPerUnit(), paper.nodes(), paper.fill(),
                paper.fillHeat(), paper.heat(), paper.writes(), paper.policies(), paper.repairFromMillis(), paper.ceph(),
                paper.skewguard(), events, paper.probeKeys()).withDuration(SHORT_DAYS * day);
    }

    @Test
    void baselineCapacityCvIsAtLeastPointThirtyBeforeRepair() {
        assertThat(skewguard.baselineCv()).isGreaterThanOrEqualTo(0.30);
    }

    @Test
    void theAppsEndTheRepairPhaseAtOrBelowThePapersCv() {
        assertThat(skewguard.finalCv()).isLessThanOrEqualTo(0.09);
    }

    @Test
    void bytesMovedStayWithinOnePointTwoTimesTheMinimum() {
        assertThat(skewguard.minimumBytes()).isPositive();
        assertThat(skewguard.bytesMoved()).isPositive().isLessThanOrEqualTo(1.2 * skewguard.minimumBytes());
    }

    @Test
    void everySampledKeyIsStillReadableFromTheNodeStores() {
        assertThat(skewguard.keysWritten()).isEqualTo(20_000);
        assertThat(skewguard.keysUnreadable()).isZero();
    }

    @Test
    void withTheHottestSlotSpreadTheWeightPhaseReachesThePapersHeatGini() {
        assertThat(skewguard.giniBeforeWeights()).isGreaterThan(0.40);
        assertThat(skewguard.giniAfterWeights()).isNotNull().isLessThanOrEqualTo(0.22);
        assertThat(skewguard.notes()).anySatisfy(n -> assertThat(n).contains("spread over"));
        assertThat(skewguard.spreadReadProbes()).isNotNull();
    }

    @Test
    void nothingWasAbortedRefusedOrDeadLettered() {
        assertThat(skewguard.notes()).anySatisfy(n -> assertThat(n).contains("fast mode").contains(" 0 aborted")
                .contains(" 0 dead letters").contains(" 0 commands refused").contains(" 0 sampled-key writes refused"));
    }

    @Test
    void theHotSpotIsBackUnderPointTwentyFiveWithinThirtyMinutesMovingNoMoreThanTwoHundredFiftyGigabytesForIt() {
        assertThat(skewguard.hotspotGiniPeak()).isNotNull();
        assertThat(skewguard.hotspotRecoveryMinutes()).isNotNull().isLessThanOrEqualTo(30.0);
        assertThat(skewguard.hotspotRecoveryBytes()).isNotNull().isLessThanOrEqualTo(250e9);
    }
}
