package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SlotAssignment;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The migrator keeps state only for as many clusters and nodes as allowed, and only while they report. */
class MigratorStateBoundsTest {

    private static final long GB = 1L << 30;

    @TempDir
    Path stateDir;

    private MigratorHarness harness;

    @AfterEach
    void close() {
        if (harness != null) {
            harness.close();
        }
    }

    private void capacity(String cluster, String node, long now) {
        harness.capacity.pipeInput(node, CapacityEvent.newBuilder()
                .setCluster(cluster)
                .setNode(node)
                .setUsedBytes(100 * GB)
                .setTotalBytes(1000 * GB)
                .setRack(null)
                .setShards(List.of(new ShardUsage(0, 100 * GB)))
                .setEventTime(Instant.ofEpochMilli(now))
                .build(), now);
    }

    private void confirmCapacityAlert(String cluster) {
        long now = harness.tick();
        harness.alerts.pipeInput(cluster, SkewAlert.newBuilder()
                .setAlertId(cluster + "/CAPACITY/CONFIRMED/" + now)
                .setCluster(cluster)
                .setKind(AlertKind.CAPACITY)
                .setPreviousState(AlertState.OBSERVING)
                .setState(AlertState.CONFIRMED)
                .setValue(0.5)
                .setThreshold(0.25)
                .setSince(Instant.ofEpochMilli(now))
                .setEventTime(Instant.ofEpochMilli(now))
                .build(), now);
    }

    private <V> int size(String store) {
        KeyValueStore<String, V> kv = harness.driver.getKeyValueStore(store);
        int n = 0;
        try (var it = kv.all()) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    private List<String> reasons() {
        List<String> reasons = new ArrayList<>();
        for (TestRecord<byte[], byte[]> r : harness.dlq.readRecordsToList()) {
            reasons.add(DeadLetter.fromHeaders(r.headers()).reason());
        }
        return reasons;
    }

    @Test
    void theSlotTableOfClusterAIsBuiltFromItsOwnNodesEvenWhenClusterABExists() {
        harness = new MigratorHarness(stateDir, Map.of());
        long now = harness.tick();
        for (String node : List.of("n1", "n2", "n3")) {
            capacity("a", node, now);
        }
        capacity("a/b", "x1", now);
        capacity("a/b", "x2", now);
        confirmCapacityAlert("a");
        harness.drainOutputs();

        Set<String> named = new HashSet<>();
        for (SlotAssignment row : harness.allRows) {
            assertThat(row.getCluster()).isEqualTo("a");
            named.addAll(row.getCandidates());
        }
        assertThat(harness.allRows).isNotEmpty();
        assertThat(named).containsExactlyInAnyOrder("n1", "n2", "n3");
    }

    @Test
    void aNodeOfClusterANamedLikeANodeOfClusterABIsItsOwnRow() {
        harness = new MigratorHarness(stateDir, Map.of());
        long now = harness.tick();
        capacity("a", "b/x1", now);
        capacity("a/b", "x1", now);
        assertThat(size(CoordinatorProcessor.CAPACITY_STORE)).isEqualTo(2);
    }

    @Test
    void aCapacityReportOfAClusterPastMaxClustersIsDeadLetteredAndAddsNoState() {
        harness = new MigratorHarness(stateDir, Map.of("max-clusters", "2"));
        long now = harness.tick();
        capacity("c1", "n1", now);
        capacity("c2", "n1", now);
        capacity("c3", "n1", now);
        confirmCapacityAlert("c4");

        List<String> reasons = reasons();
        assertThat(reasons).hasSize(2).allSatisfy(r -> assertThat(r).startsWith("over-capacity: cluster c"));
        assertThat(reasons.get(0)).contains("max-clusters 2");
        assertThat(size(CoordinatorProcessor.REPAIR_STORE)).isEqualTo(2);
        assertThat(size(CoordinatorProcessor.CAPACITY_STORE)).isEqualTo(2);
        capacity("c1", "n2", now); // a known cluster still takes new nodes
        assertThat(size(CoordinatorProcessor.CAPACITY_STORE)).isEqualTo(3);
    }

    @Test
    void aCapacityReportOfANodePastMaxNodesPerClusterIsDeadLetteredWithItsOrigin() {
        harness = new MigratorHarness(stateDir, Map.of("max-nodes-per-cluster", "3"));
        long now = harness.tick();
        for (int i = 1; i <= 5; i++) {
            capacity("c1", "n" + i, now);
        }
        capacity("c1", "n1", now + 1); // a known node is always updated

        List<TestRecord<byte[], byte[]>> dead = harness.dlq.readRecordsToList();
        assertThat(dead).hasSize(2);
        DeadLetter letter = DeadLetter.fromHeaders(dead.get(0).headers());
        assertThat(letter.reason()).isEqualTo("over-capacity: node n4 would be node 4 of cluster c1, more than max-nodes-per-cluster 3");
        assertThat(letter.sourceTopic()).isEqualTo(harness.topics.nodeCapacity());
        assertThat(letter.sourceOffset()).isEqualTo(3);
        assertThat(size(CoordinatorProcessor.CAPACITY_STORE)).isEqualTo(3);
    }

    @Test
    void overLongAndControlCharacterIdsAreInvalid() {
        harness = new MigratorHarness(stateDir, Map.of());
        long now = harness.tick();
        capacity("c1", "n".repeat(256), now);
        capacity("c\u0000x", "n1", now);
        assertThat(reasons()).satisfiesExactly(
                r -> assertThat(r).startsWith("invalid: node id of 256 bytes"),
                r -> assertThat(r).startsWith("invalid: cluster id holds control character"));
        assertThat(size(CoordinatorProcessor.CAPACITY_STORE)).isZero();
    }

    @Test
    void aNodeSilentForNodeExpiryLeavesTheStoresAndAClusterWithoutNodesLeavesWithItsSlotTable() {
        harness = new MigratorHarness(stateDir, Map.of("node-expiry", "1h"));
        long start = harness.tick();
        for (String node : List.of("n1", "n2", "n3")) {
            capacity("c1", node, start);
        }
        confirmCapacityAlert("c1"); // builds and publishes the slot table
        harness.drainOutputs();
        assertThat(harness.allRows).hasSize(16);

        harness.advance(Duration.ofMinutes(40));
        capacity("c1", "n1", harness.clock);
        capacity("c1", "n2", harness.clock);
        harness.advance(Duration.ofMinutes(40)); // n3 silent 80 min
        assertThat(size(CoordinatorProcessor.CAPACITY_STORE)).isEqualTo(2);
        assertThat(size(CoordinatorProcessor.REPAIR_STORE)).isEqualTo(1);

        harness.advance(Duration.ofMinutes(90)); // every node silent
        assertThat(size(CoordinatorProcessor.CAPACITY_STORE)).isZero();
        assertThat(size(CoordinatorProcessor.REPAIR_STORE)).isZero();
        assertThat(size(CoordinatorProcessor.REPORT_STORE)).isZero();
        assertThat(size(CoordinatorProcessor.SLOT_STORE)).isZero();
        assertThat(harness.allRows.stream().filter(row -> row == null)).hasSize(16); // tombstones of the 16 rows
    }
}
