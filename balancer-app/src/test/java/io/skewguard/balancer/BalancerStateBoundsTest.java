package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.balancer.policy.ControllerState;
import io.skewguard.balancer.policy.LoadSnapshot;
import io.skewguard.balancer.policy.NodeLoad;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.DeadLetter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

/** The balancer keeps controller state only for as many clusters and nodes as allowed, and only while they report. */
class BalancerStateBoundsTest {

    private static final long HOUR = 3_600_000L;

    private static LoadSnapshot snapshot(String cluster, long time, String... nodes) {
        List<NodeLoad> loads = new ArrayList<>();
        for (int i = 0; i < nodes.length; i++) {
            loads.add(new NodeLoad(nodes[i], 1000 + 500 * i, 1000));
        }
        return new LoadSnapshot(cluster, time, 0.5, loads);
    }

    private static List<String> reasons(BalancerHarness harness) {
        return harness.deadLetters().stream().map(r -> DeadLetter.fromHeaders(r.headers()).reason()).toList();
    }

    @Test
    void aReportOfAClusterPastMaxClustersIsDeadLetteredAndAddsNoState() {
        try (BalancerHarness harness = new BalancerHarness(Map.of("max-clusters", "2"))) {
            harness.send(snapshot("c1", 1000, "n1"));
            harness.send(snapshot("c2", 1000, "n1"));
            harness.send(snapshot("c3", 1000, "n1"));
            harness.alert("c4", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 1000);

            assertThat(reasons(harness)).containsExactly(
                    "over-capacity: cluster c3 would be cluster 3, more than max-clusters 2",
                    "over-capacity: cluster c4 would be cluster 3, more than max-clusters 2");
            assertThat(harness.storeSize(BalancerTopology.STATE_STORE)).isZero(); // no repair yet: nothing stored
            assertThat(harness.storeSize(BalancerTopology.SEEN_STORE)).isEqualTo(4); // c1, c2 and one node each
        }
    }

    @Test
    void aReportThatWouldBringItsClusterPastMaxNodesPerClusterIsDeadLettered() {
        try (BalancerHarness harness = new BalancerHarness(Map.of("max-nodes-per-cluster", "3"))) {
            harness.send(snapshot("c1", 1000, "n1", "n2"));
            harness.send(snapshot("c1", 2000, "n1", "n2", "n3", "n4"));
            harness.send(snapshot("c1", 3000, "n1", "n2", "n3"));

            assertThat(reasons(harness)).singleElement().asString()
                    .startsWith("over-capacity: node n4 would be node 4 of cluster c1, more than max-nodes-per-cluster 3")
                    .contains("(the record names 2 new node(s))");
            assertThat(harness.storeSize(BalancerTopology.SEEN_STORE)).isEqualTo(4);
        }
    }

    @Test
    void overLongIdsAreInvalid() {
        try (BalancerHarness harness = new BalancerHarness(Map.of())) {
            harness.send(snapshot("c1", 1000, "n".repeat(300)));
            assertThat(reasons(harness)).singleElement().asString().startsWith("invalid: node id of 300 bytes");
        }
    }

    @Test
    void aNodeAbsentFromTheReportsForNodeExpiryLosesItsWeightAndASilentClusterIsForgotten() {
        try (BalancerHarness harness = new BalancerHarness(Map.of("node-expiry", "1h", "round-interval", "1s"))) {
            harness.alert("c1", AlertKind.HEAT, AlertState.OBSERVING, AlertState.CONFIRMED, 0, 0);
            harness.send(snapshot("c1", 1000, "n1", "n2", "n3"));
            ControllerState state = harness.stored(BalancerTopology.STATE_STORE, "c1");
            assertThat(state.nodes()).containsOnlyKeys("n1", "n2", "n3");

            // n3 leaves the reports; c2 keeps stream time moving after c1 falls silent
            for (long t = 10 * 60_000; t <= 2 * HOUR; t += 10 * 60_000) {
                harness.send(snapshot("c1", t, "n1", "n2"));
            }
            state = harness.stored(BalancerTopology.STATE_STORE, "c1");
            assertThat(state.nodes()).containsOnlyKeys("n1", "n2");

            for (long t = 2 * HOUR; t <= 4 * HOUR; t += 10 * 60_000) {
                harness.send(snapshot("c2", t, "m1"));
            }
            assertThat(harness.<ControllerState>stored(BalancerTopology.STATE_STORE, "c1")).isNull();
            assertThat(harness.storeSize(BalancerTopology.SEEN_STORE)).isEqualTo(2); // c2 and m1
        }
    }

    @Property(tries = 20)
    void storesStayWithinTheCapsWhateverIdsArrive(
            @ForAll @Size(max = 60) List<@IntRange(min = 0, max = 9) Integer> clusters,
            @ForAll @Size(max = 60) List<@AlphaChars @StringLength(min = 1, max = 3) String> nodes) {
        try (BalancerHarness harness = new BalancerHarness(Map.of("max-clusters", "3", "max-nodes-per-cluster", "4"))) {
            long t = 1000;
            for (int i = 0; i < Math.min(clusters.size(), nodes.size()); i++) {
                harness.send(snapshot("c" + clusters.get(i), t += 1000, nodes.get(i)));
            }
            // per cluster at most its own row and 4 nodes
            assertThat(harness.storeSize(BalancerTopology.SEEN_STORE)).isLessThanOrEqualTo(3 * (1 + 4));
            assertThat(harness.storeSize(BalancerTopology.STATE_STORE)).isLessThanOrEqualTo(3);
        }
    }
}
