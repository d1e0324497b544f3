package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.detector.replay.DetectorHarness;
import io.skewguard.detector.stream.ClusterProcessor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The detector keeps state only for as many clusters and nodes as allowed, and only while they report. */
class DetectorStateBoundsTest {

    private static List<String> reasons(DetectorHarness h) {
        return h.deadLetters().stream().map(d -> d.letter().reason()).toList();
    }

    @Test
    void anEventOfAClusterPastMaxClustersIsDeadLettered() {
        try (DetectorHarness h = new DetectorHarness(DetectorSettings.of(Map.of("max-clusters", "2")))) {
            h.write("c1", "n1", 0, 10, 1, 1_000).write("c2", "n1", 0, 10, 1, 1_000).write("c3", "n1", 0, 10, 1, 1_000);
            assertThat(reasons(h)).containsExactly("over-capacity: cluster c3 would be cluster 3, more than max-clusters 2");
        }
    }

    @Test
    void anEventOfANodePastMaxNodesPerClusterIsDeadLetteredUntilASilentNodeIsForgotten() {
        try (DetectorHarness h = new DetectorHarness(DetectorSettings.of(Map.of("max-nodes-per-cluster", "2", "node-expiry", "1m")))) {
            h.write("c1", "n1", 0, 10, 1, 1_000).write("c1", "n2", 0, 10, 1, 1_000).write("c1", "n3", 0, 10, 1, 2_000);
            assertThat(reasons(h)).containsExactly(
                    "over-capacity: node n3 would be node 3 of cluster c1, more than max-nodes-per-cluster 2");
            // n2 falls silent for more than node-expiry: its place is free again
            h.write("c1", "n1", 0, 10, 1, 90_000).write("c1", "n3", 0, 10, 1, 91_000);
            assertThat(reasons(h)).hasSize(1);
        }
    }

    @Test
    void overLongAndControlCharacterIdsAreInvalid() {
        try (DetectorHarness h = new DetectorHarness(DetectorSettings.defaultSettings())) {
            h.write("c1", "n".repeat(256), 0, 10, 1, 1_000).write("c\u0001", "n1", 0, 10, 1, 1_000);
            assertThat(reasons(h)).satisfiesExactly(
                    r -> assertThat(r).startsWith("invalid: node id of 256 bytes"),
                    r -> assertThat(r).startsWith("invalid: cluster id holds control character U+0001"));
        }
    }

    @Test
    void aNodeWithoutHeatOrCapacityForNodeExpiryLeavesTheCapacityStore() {
        try (DetectorHarness h = new DetectorHarness(DetectorSettings.of(Map.of("node-expiry", "2m")))) {
            h.capacity("c1", "n1", 10, 100, null, 1_000).capacity("c1", "gone", 10, 100, null, 1_000);
            assertThat(h.storeSize(ClusterProcessor.CAPACITY_STORE)).isEqualTo(2);
            for (long t = 10_000; t <= 400_000; t += 10_000) {
                h.capacity("c1", "n1", 10, 100, null, t);
            }
            assertThat(h.storeSize(ClusterProcessor.CAPACITY_STORE)).isEqualTo(1);
            assertThat(h.reports("c1").get(h.reports("c1").size() - 1).getNodeCount()).isEqualTo(1);
        }
    }
}
