package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.SkewAlert;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class ReportReaderTest {

    private static final FutureSkew SKEW = new FutureSkew(3_600_000);
    /** This process's clock: a minute after the report's window end. */
    private static final long NOW = 180_000;
    private static final Duration AGE = Duration.ofDays(7);

    private final ReportReader reader = new ReportReader(Set.of(), SKEW, AGE);

    private static SkewReport report() {
        return BalancerHarness.report(new LoadSnapshot("c1", 120_000, 0.3, List.of(
                new NodeLoad("a", 600, 1000), new NodeLoad("b", 400, 2000))));
    }

    private static SkewReport withNode(UnaryOperator<NodeFigures.Builder> change) {
        SkewReport report = report();
        List<NodeFigures> nodes = new ArrayList<>(report.getNodes());
        nodes.set(0, change.apply(NodeFigures.newBuilder(nodes.get(0))).build());
        return SkewReport.newBuilder(report).setNodes(nodes).build();
    }

    @Test
    void aReportBecomesASnapshotOfHeatAndTotalBytesAtItsWindowEnd() throws Exception {
        LoadSnapshot snapshot = reader.snapshot("c1", report(), NOW);

        assertThat(snapshot.time()).isEqualTo(120_000);
        assertThat(snapshot.heatGini()).isEqualTo(0.3);
        assertThat(snapshot.nodes()).containsExactly(new NodeLoad("a", 600, 1000), new NodeLoad("b", 400, 2000));
    }

    @Test
    void everyMalformedFigureIsRejectedWithAReason() {
        assertThatThrownBy(() -> reader.snapshot("c1", withNode(b -> b.setHeatBytes(-1)), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("negative bytes");
        assertThatThrownBy(() -> reader.snapshot("c1", withNode(b -> b.setUsedBytes(5000)), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("used > total");
        assertThatThrownBy(() -> reader.snapshot("c1", withNode(b -> b.setUtilisation(Double.NaN)), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("utilisation NaN");
        assertThatThrownBy(() -> reader.snapshot("c1", withNode(b -> b.setNode("b")), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("lists node 'b' twice");
        assertThatThrownBy(() -> reader.snapshot("c1", SkewReport.newBuilder(report()).setHeatGini(1.5).build(), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("not in [0, 1]");
        assertThatThrownBy(() -> reader.snapshot("other", report(), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("key 'other' is not its cluster 'c1'");
    }

    @Test
    void withAClusterListOnlyThoseClustersAreKnown() {
        ReportReader only = new ReportReader(Set.of("c2"), SKEW, AGE);

        assertThatThrownBy(() -> only.snapshot("c1", report(), NOW))
                .isInstanceOf(RejectedInput.class).hasMessage("unknown-cluster: cluster 'c1' is not one of the clusters served");
    }

    @Test
    void aReportOrAlertFurtherAheadOfTheClockThanTheSkewIsRefusedAsFuture() throws Exception {
        long tenYears = 3652L * 86_400_000;
        SkewReport ahead = SkewReport.newBuilder(report()).setWindowEnd(java.time.Instant.ofEpochMilli(NOW + tenYears)).build();
        assertThatThrownBy(() -> reader.snapshot("c1", ahead, NOW))
                .isInstanceOf(RejectedInput.class).hasMessageStartingWith("future: windowEnd")
                .hasMessageContaining("3652d ahead of this process's clock");
        SkewReport withinSkew = SkewReport.newBuilder(report()).setWindowEnd(java.time.Instant.ofEpochMilli(NOW + 3_600_000)).build();
        assertThat(reader.snapshot("c1", withinSkew, NOW).time()).isEqualTo(NOW + 3_600_000);
    }

    private static SkewAlert alert(UnaryOperator<SkewAlert.Builder> change) {
        SkewAlert.Builder b = SkewAlert.newBuilder().setAlertId("c1/HEAT/CONFIRMED/60000").setCluster("c1")
                .setKind(AlertKind.HEAT).setPreviousState(AlertState.OBSERVING).setState(AlertState.CONFIRMED)
                .setValue(0.6).setThreshold(0.4).setSince(Instant.ofEpochMilli(60_000)).setEventTime(Instant.ofEpochMilli(120_000));
        return change.apply(b).build();
    }

    @Test
    void everyImpossibleFigureOfAReportIsRefusedAsInvalidEvenWhereTheControllerDoesNotReadIt() {
        for (double cv : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.5}) {
            assertThatThrownBy(() -> reader.snapshot("c1", SkewReport.newBuilder(report()).setCapacityCv(cv).build(), NOW))
                    .isInstanceOf(RejectedInput.class).hasMessageStartingWith("invalid: ").hasMessageContaining("capacity CV " + cv);
        }
        assertThatThrownBy(() -> reader.snapshot("c1", withNode(b -> b.setUtilisation(-0.5)), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageStartingWith("invalid: ").hasMessageContaining("utilisation -0.5");
        assertThatThrownBy(() -> reader.snapshot("c1", SkewReport.newBuilder(report()).setTotalWriteBytes(-1).build(), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageStartingWith("invalid: ").hasMessageContaining("negative totalWriteBytes");
        assertThatThrownBy(() -> reader.snapshot("c1", SkewReport.newBuilder(report()).setSlotHeat(List.of(3L, -1L)).build(), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("negative heat -1 for slot 1");
        SkewReport backwards = SkewReport.newBuilder(report()).setWindowEnd(report().getWindowStart().minusSeconds(1)).build();
        assertThatThrownBy(() -> reader.snapshot("c1", backwards, NOW))
                .isInstanceOf(RejectedInput.class).hasMessageStartingWith("invalid: ").hasMessageContaining("before windowStart");
    }

    @Test
    void aReportOrConfirmationMoreThanMaxEventAgeBehindTheClockIsRefusedAsStale() throws Exception {
        long tenYears = 3652L * 86_400_000;
        long now = tenYears + 180_000;
        assertThatThrownBy(() -> reader.snapshot("c1", report(), now))
                .isInstanceOf(RejectedInput.class).hasMessageStartingWith("stale: windowEnd").hasMessageContaining("max-event-age 7d");
        assertThatThrownBy(() -> reader.checkAlert("c1", alert(b -> b), now))
                .isInstanceOf(RejectedInput.class).hasMessageStartingWith("stale: eventTime");
        long aWeekAgo = now - Duration.ofDays(7).toMillis();
        assertThatThrownBy(() -> reader.checkAlert("c1",
                alert(b -> b.setSince(Instant.ofEpochMilli(aWeekAgo - 1)).setEventTime(Instant.ofEpochMilli(now))), now))
                .isInstanceOf(RejectedInput.class).hasMessageStartingWith("stale: since");
        // an episode may end long after it started: only its confirmation must be recent
        reader.checkAlert("c1", alert(b -> b.setState(AlertState.CLEARED).setPreviousState(AlertState.CONFIRMED)
                .setSince(Instant.ofEpochMilli(aWeekAgo - 1)).setEventTime(Instant.ofEpochMilli(now))), now);
        assertThat(reader.snapshot("c1", report(), 120_000 + Duration.ofDays(7).toMillis()).time()).isEqualTo(120_000);
    }

    @Test
    void anAlertWithImpossibleFiguresOrTimesIsRefusedAsInvalid() throws Exception {
        reader.checkAlert("c1", alert(b -> b), NOW);
        for (double d : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.5}) {
            assertThatThrownBy(() -> reader.checkAlert("c1", alert(b -> b.setValue(d)), NOW))
                    .isInstanceOf(RejectedInput.class).hasMessageStartingWith("invalid: alert 'c1/HEAT/CONFIRMED/60000' has value " + d);
            assertThatThrownBy(() -> reader.checkAlert("c1", alert(b -> b.setThreshold(d)), NOW))
                    .isInstanceOf(RejectedInput.class).hasMessageStartingWith("invalid: ").hasMessageContaining("threshold " + d);
        }
        assertThatThrownBy(() -> reader.checkAlert("c1", alert(b -> b.setEventTime(Instant.ofEpochMilli(59_999))), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageStartingWith("invalid: ").hasMessageContaining("after its eventTime");
        assertThatThrownBy(() -> reader.checkAlert("c1", alert(b -> b.setEventTime(Instant.ofEpochMilli(NOW + 3_600_001))), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageStartingWith("future: eventTime");
    }

    @Test
    void aReasonQuotesAnIdCutToAHundredCharactersAndLongIdsAreInvalid() {
        String longNode = "n".repeat(10_000);
        assertThatThrownBy(() -> reader.snapshot("c1", withNode(b -> b.setNode(longNode)), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageStartingWith("invalid: node id of 10000 bytes")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(200));
        String longCluster = "c".repeat(200);
        ReportReader only = new ReportReader(Set.of("c2"), SKEW, AGE);
        SkewReport of = SkewReport.newBuilder(report()).setCluster(longCluster).build();
        assertThatThrownBy(() -> only.snapshot(longCluster, of, NOW))
                .isInstanceOf(RejectedInput.class).hasMessageStartingWith("unknown-cluster: cluster '" + "c".repeat(100) + "…'")
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(200));
    }
}
