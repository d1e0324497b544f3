package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.SkewReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class ReportReaderTest {

    private static final FutureSkew SKEW = new FutureSkew(3_600_000);
    /** This process's clock: a minute after the report's window end. */
    private static final long NOW = 180_000;

    private final ReportReader reader = new ReportReader(Set.of(), SKEW);

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
                .isInstanceOf(RejectedInput.class).hasMessageContaining("lists node b twice");
        assertThatThrownBy(() -> reader.snapshot("c1", SkewReport.newBuilder(report()).setHeatGini(1.5).build(), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("not in [0, 1]");
        assertThatThrownBy(() -> reader.snapshot("other", report(), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("key 'other' is not its cluster 'c1'");
    }

    @Test
    void withAClusterListOnlyThoseClustersAreKnown() {
        ReportReader only = new ReportReader(Set.of("c2"), SKEW);

        assertThatThrownBy(() -> only.snapshot("c1", report(), NOW))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("unknown cluster 'c1'");
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
}
