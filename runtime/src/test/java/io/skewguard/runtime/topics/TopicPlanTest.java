package io.skewguard.runtime.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.runtime.settings.SettingsException;
import io.skewguard.runtime.topics.TopicSpec.Kind;
import io.skewguard.schemas.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TopicPlanTest {

    private static final TopicPlan DEFAULTS = TopicPlan.defaults("skew.");

    private static Map<String, TopicSpec> byName(List<TopicSpec> specs) {
        return specs.stream().collect(Collectors.toMap(TopicSpec::name, Function.identity()));
    }

    @Test
    void plansEveryTopicOfTopicsInItsOrder() {
        assertThat(DEFAULTS.topics(1)).extracting(TopicSpec::name).containsExactlyElementsOf(Topics.defaults().all());
    }

    @Test
    void defaultsAreSixNodePartitionsOneClusterPartitionSevenDaysAndFourteenForTheDeadLetters() {
        assertThat(DEFAULTS).isEqualTo(new TopicPlan("skew.", 6, 1, 0, Duration.ofDays(7), Duration.ofDays(7), Duration.ofDays(14)));
    }

    @Test
    void nodeKeyedTopicsGetNodePartitionsAndClusterKeyedTopicsGetClusterPartitions() {
        TopicPlan plan = new TopicPlan("p.", 12, 2, 0, Duration.ofDays(1), Duration.ofDays(2), Duration.ofDays(3));
        Map<String, TopicSpec> t = byName(plan.topics(1));
        for (String name : List.of("p.node-writes", "p.node-capacity", "p.weight-commands", "p.migration-commands",
                "p.migration-status", "p.dlq")) {
            assertThat(t.get(name).partitions()).as(name).isEqualTo(12);
        }
        for (String name : List.of("p.reports", "p.alerts", "p.node-weights", "p.slot-table")) {
            assertThat(t.get(name).partitions()).as(name).isEqualTo(2);
        }
    }

    @Test
    void reportsAndAlertsAreCoPartitionedWhateverTheParameters() {
        TopicPlan plan = new TopicPlan("", 7, 5, 0, Duration.ofDays(1), Duration.ofDays(1), Duration.ofDays(1));
        Map<String, TopicSpec> t = byName(plan.topics(1));
        assertThat(plan.coPartitioned()).containsExactly(List.of("reports", "alerts"));
        assertThat(t.get("reports").partitions()).isEqualTo(t.get("alerts").partitions()).isEqualTo(5);
        assertThat(t.get("reports").kind()).isEqualTo(t.get("alerts").kind()).isEqualTo(Kind.CLUSTER_EVENTS);
    }

    @Test
    void exactlyTheTopicsTopicsCallsCompactedAreCompactedAndHaveNoRetention() {
        List<TopicSpec> specs = DEFAULTS.topics(1);
        assertThat(specs.stream().filter(TopicSpec::compacted).map(TopicSpec::name))
                .containsExactlyInAnyOrderElementsOf(Topics.defaults().compacted());
        for (TopicSpec s : specs) {
            if (s.compacted()) {
                assertThat(s.configs()).as(s.name()).containsExactlyEntriesOf(Map.of("cleanup.policy", "compact"));
                assertThat(s.retention()).as(s.name()).isEmpty();
                assertThat(s.kind()).isEqualTo(Kind.TABLE);
            } else {
                assertThat(s.cleanupPolicy()).as(s.name()).isEqualTo("delete");
                assertThat(s.retention()).as(s.name()).isPresent();
            }
        }
    }

    @Test
    void eventCommandAndDeadLetterTopicsEachGetTheirOwnRetention() {
        TopicPlan plan = new TopicPlan("skew.", 6, 1, 0, Duration.ofHours(1), Duration.ofDays(2), Duration.ofDays(30));
        Map<String, TopicSpec> t = byName(plan.topics(1));
        for (String name : List.of("skew.node-writes", "skew.node-capacity", "skew.reports", "skew.alerts")) {
            assertThat(t.get(name).configs()).as(name).containsEntry("retention.ms", "3600000");
        }
        for (String name : List.of("skew.weight-commands", "skew.migration-commands", "skew.migration-status")) {
            assertThat(t.get(name).configs()).as(name).containsEntry("retention.ms", Long.toString(Duration.ofDays(2).toMillis()));
        }
        assertThat(t.get("skew.dlq").retention()).contains(Duration.ofDays(30));
    }

    @Test
    void aRetentionOfZeroKeepsRecordsForever() {
        TopicPlan plan = new TopicPlan("skew.", 6, 1, 0, Duration.ZERO, Duration.ofDays(7), Duration.ofDays(14));
        TopicSpec writes = byName(plan.topics(1)).get("skew.node-writes");
        assertThat(writes.configs()).containsEntry("retention.ms", "-1");
        assertThat(writes.summary()).contains("retention.ms=-1 (forever)");
    }

    @Test
    void replicationFactorZeroMeansThreeOrEveryBrokerOfASmallerCluster() {
        assertThat(DEFAULTS.replicationFactorOn(1)).isEqualTo((short) 1);
        assertThat(DEFAULTS.replicationFactorOn(2)).isEqualTo((short) 2);
        assertThat(DEFAULTS.replicationFactorOn(3)).isEqualTo((short) 3);
        assertThat(DEFAULTS.replicationFactorOn(9)).isEqualTo((short) 3);
        assertThat(DEFAULTS.topics(9)).allSatisfy(s -> assertThat(s.replicationFactor()).isEqualTo((short) 3));
    }

    @Test
    void threeReplicasOrMoreRequireTwoInSyncReplicasAndFewerSetNone() {
        assertThat(DEFAULTS.topics(3)).allSatisfy(s -> assertThat(s.configs()).containsEntry("min.insync.replicas", "2"));
        assertThat(DEFAULTS.topics(2)).allSatisfy(s -> assertThat(s.configs()).doesNotContainKey("min.insync.replicas"));
        TopicPlan two = new TopicPlan("skew.", 6, 1, 2, Duration.ofDays(7), Duration.ofDays(7), Duration.ofDays(14));
        assertThat(two.topics(5)).allSatisfy(s -> {
            assertThat(s.replicationFactor()).isEqualTo((short) 2);
            assertThat(s.configs()).doesNotContainKey("min.insync.replicas");
        });
    }

    @Test
    void moreReplicasThanBrokersIsASettingErrorThatSaysHowManyBrokersThereAre() {
        TopicPlan three = new TopicPlan("skew.", 6, 1, 3, Duration.ofDays(7), Duration.ofDays(7), Duration.ofDays(14));
        assertThatThrownBy(() -> three.topics(1)).isInstanceOf(SettingsException.class)
                .hasMessageContaining("replication-factor: 3 replicas need at least 3 brokers, but the cluster has 1");
    }

    @Test
    void refusesParametersNoTopicCouldHave() {
        assertThatThrownBy(() -> new TopicPlan("skew.", 0, 1, 0, Duration.ofDays(7), Duration.ofDays(7), Duration.ofDays(14)))
                .hasMessageContaining("node-partitions must be at least 1");
        assertThatThrownBy(() -> new TopicPlan("skew.", 6, 0, 0, Duration.ofDays(7), Duration.ofDays(7), Duration.ofDays(14)))
                .hasMessageContaining("cluster-partitions must be at least 1");
        assertThatThrownBy(() -> new TopicPlan("skew.", 6, 1, -1, Duration.ofDays(7), Duration.ofDays(7), Duration.ofDays(14)))
                .hasMessageContaining("replication-factor");
        assertThatThrownBy(() -> new TopicPlan("skew.", 6, 1, 0, Duration.ofDays(-1), Duration.ofDays(7), Duration.ofDays(14)))
                .hasMessageContaining("event-retention must not be negative");
        assertThatThrownBy(() -> new TopicPlan("bad prefix", 6, 1, 0, Duration.ofDays(7), Duration.ofDays(7), Duration.ofDays(14)))
                .hasMessageContaining("topic prefix");
    }

    @Test
    void isReadFromTheSettingsModelWithDurationsInTheOneSyntax() {
        TopicPlan plan = TopicPlan.from(TopicPlan.MODEL.with(Map.of(
                "topic-prefix", "team-a.", "node-partitions", "12", "cluster-partitions", "3", "replication-factor", "2",
                "event-retention", "2d", "command-retention", "36h", "dead-letter-retention", "0")));
        assertThat(plan).isEqualTo(new TopicPlan("team-a.", 12, 3, 2, Duration.ofDays(2), Duration.ofHours(36), Duration.ZERO));
    }

    @Test
    void aBadSettingNamesTheKeyAndWhatIsAllowed() {
        assertThatThrownBy(() -> TopicPlan.MODEL.with(Map.of("node-partitions", "0")))
                .isInstanceOf(SettingsException.class).hasMessageStartingWith("node-partitions: 0 is not allowed; it must be at least 1");
        assertThatThrownBy(() -> TopicPlan.MODEL.with(Map.of("command-retention", "7")))
                .isInstanceOf(SettingsException.class).hasMessageStartingWith("command-retention: '7' has no unit");
    }

    @Test
    void theCreateCommandNamesServersAndPrefixAndOnlyTheParametersThatAreNotDefaults() {
        assertThat(DEFAULTS.createCommand("k1:9092,k2:9092"))
                .isEqualTo("./skewguard topics create --bootstrap-servers k1:9092,k2:9092 --topic-prefix skew.");
        TopicPlan plan = new TopicPlan("", 12, 1, 0, Duration.ofDays(7), Duration.ofDays(30), Duration.ofDays(14));
        assertThat(plan.createCommand("localhost:9092")).isEqualTo(
                "./skewguard topics create --bootstrap-servers localhost:9092 --topic-prefix '' --node-partitions 12 --command-retention 30d");
    }

    @Test
    void aTopicSpecSaysItselfInOneLine() {
        TopicSpec writes = byName(DEFAULTS.topics(3)).get("skew.node-writes");
        assertThat(writes.summary()).isEqualTo(
                "6 partitions, replication factor 3, cleanup.policy=delete, retention.ms=604800000 (7d), min.insync.replicas=2");
        assertThat(writes.newTopic().numPartitions()).isEqualTo(6);
        assertThat(writes.newTopic().replicationFactor()).isEqualTo((short) 3);
        assertThat(writes.newTopic().configs()).isEqualTo(writes.configs());
    }

    @Test
    void differencesSayWhatTheClusterHasAndWhatThePlanSays() {
        assertThat(new TopicDifference.Partitions("skew.reports", 3, 1).line()).isEqualTo("skew.reports: 3 partitions, the plan says 1");
        assertThat(new TopicDifference.Config("skew.node-weights", "cleanup.policy", "delete", "compact").line())
                .isEqualTo("skew.node-weights: cleanup.policy=delete, the plan says cleanup.policy=compact");
        assertThat(new TopicDifference.Config("skew.dlq", "retention.ms", "604800000", "1209600000").line())
                .isEqualTo("skew.dlq: retention.ms=604800000 (7d), the plan says retention.ms=1209600000 (14d)");
        assertThat(new TopicDifference.NotCoPartitioned(List.of("skew.reports", "skew.alerts"), List.of(3, 1)).line())
                .startsWith("skew.reports has 3 partitions and skew.alerts has 1 partition: they must have the same count");
    }
}
