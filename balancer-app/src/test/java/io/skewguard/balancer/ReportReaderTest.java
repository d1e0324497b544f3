package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.SkewReport;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class ReportReaderTest {

    private final ReportReader reader = new ReportReader(Set.of());

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
        LoadSnapshot snapshot = reader.snapshot("c1", report());

        assertThat(snapshot.time()).isEqualTo(120_000);
        assertThat(snapshot.heatGini()).isEqualTo(0.3);
        assertThat(snapshot.nodes()).containsExactly(new NodeLoad("a", 600, 1000), new NodeLoad("b", 400, 2000));
    }

    @Test
    void everyMalformedFigureIsRejectedWithAReason() {
        assertThatThrownBy(() -> reader.snapshot("c1", withNode(b -> b.setHeatBytes(-1))))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("negative bytes");
        assertThatThrownBy(() -> reader.snapshot("c1", withNode(b -> b.setUsedBytes(5000))))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("used > total");
        assertThatThrownBy(() -> reader.snapshot("c1", withNode(b -> b.setUtilisation(Double.NaN))))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("utilisation NaN");
        assertThatThrownBy(() -> reader.snapshot("c1", withNode(b -> b.setNode("b"))))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("lists node b twice");
        assertThatThrownBy(() -> reader.snapshot("c1", SkewReport.newBuilder(report()).setHeatGini(1.5).build()))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("not in [0, 1]");
        assertThatThrownBy(() -> reader.snapshot("other", report()))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("key 'other' is not its cluster 'c1'");
    }

    @Test
    void withAClusterListOnlyThoseClustersAreKnown() {
        ReportReader only = new ReportReader(Set.of("c2"));

        assertThatThrownBy(() -> only.snapshot("c1", report()))
                .isInstanceOf(RejectedInput.class).hasMessageContaining("unknown cluster 'c1'");
    }
}
