package io.skewguard.runtime.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.Topics;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/** Against one real broker; every test uses its own topic prefix. */
class TopicProvisionerIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static TopicProvisioner provisioner() {
        return new TopicProvisioner(KAFKA.broker().adminClient(), KAFKA.bootstrapServers(), Duration.ofSeconds(30));
    }

    /** reports with 3 partitions (the plan says 1) and node-weights without compaction, everything else as planned. */
    private static void createWrongTopics(Topics t) throws Exception {
        KAFKA.broker().adminClient().createTopics(List.of(
                new NewTopic(t.reports(), 3, (short) 1).configs(Map.of("cleanup.policy", "delete", "retention.ms", "604800000")),
                new NewTopic(t.nodeWeights(), 1, (short) 1).configs(Map.of("cleanup.policy", "delete"))))
                .all().get(30, TimeUnit.SECONDS);
    }

    @Test
    void createsEveryTopicFromNothingAsPlannedAndThenCheckFindsNoDifference() throws Exception {
        TopicPlan plan = TopicPlan.defaults("fresh.");
        Provisioned p = provisioner().create(plan);

        assertThat(p.created()).extracting(TopicSpec::name).containsExactlyElementsOf(plan.names().all());
        assertThat(p.alreadyThere()).isEmpty();
        assertThat(p.differences()).isEmpty();
        assertThat(provisioner().check(plan)).isEmpty();

        Map<String, TopicDescription> d = KAFKA.broker().adminClient().describeTopics(plan.names().all()).allTopicNames()
                .get(30, TimeUnit.SECONDS);
        assertThat(d.get("fresh.node-writes").partitions()).hasSize(6);
        assertThat(d.get("fresh.reports").partitions()).hasSize(1);
        assertThat(d.get("fresh.alerts").partitions()).hasSize(1);
    }

    /** An admin whose first end-offset requests fail as a leader not yet taking requests answers them. */
    /** An admin whose first {@code refusals} end-offset requests fail with {@code error}. */
    private static final class LateLeaders extends org.apache.kafka.clients.admin.ForwardingAdmin {
        final java.util.concurrent.atomic.AtomicInteger asked = new java.util.concurrent.atomic.AtomicInteger();
        private final int refusals;
        private final java.util.function.Supplier<RuntimeException> error;

        LateLeaders() {
            this(2, () -> new org.apache.kafka.common.errors.NotLeaderOrFollowerException("not the leader yet"));
        }

        LateLeaders(int refusals, java.util.function.Supplier<RuntimeException> error) {
            super(Map.of("bootstrap.servers", KAFKA.bootstrapServers()));
            this.refusals = refusals;
            this.error = error;
        }

        @Override
        public org.apache.kafka.clients.admin.ListOffsetsResult listOffsets(
                Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> specs,
                org.apache.kafka.clients.admin.ListOffsetsOptions options) {
            if (asked.incrementAndGet() > refusals) {
                return super.listOffsets(specs, options);
            }
            Map<org.apache.kafka.common.TopicPartition,
                    org.apache.kafka.common.KafkaFuture<org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo>> failed =
                    new java.util.HashMap<>();
            for (var tp : specs.keySet()) {
                var f = new org.apache.kafka.common.internals.KafkaFutureImpl<org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo>();
                f.completeExceptionally(error.get());
                failed.put(tp, f);
            }
            return new org.apache.kafka.clients.admin.ListOffsetsResult(failed);
        }
    }

    @Test
    void createWaitsUntilTheNewPartitionsLeadersTakeRequests() {
        TopicPlan plan = TopicPlan.defaults("late-leaders.");
        try (LateLeaders admin = new LateLeaders()) {
            Provisioned p = new TopicProvisioner(admin, KAFKA.bootstrapServers(), Duration.ofSeconds(30)).create(plan);

            assertThat(p.created()).extracting(TopicSpec::name).containsExactlyElementsOf(plan.names().all());
            assertThat(admin.asked.get()).as("end-offset requests: two refused, then answered").isEqualTo(3);
        }
    }

    /** A refusal that asking again cannot cure (here: no right to read the topics' offsets) is said at once, as it is. */
    @Test
    void anEndOffsetRequestRefusedForGoodIsReportedAtOnceNotAsMissingLeaders() {
        TopicPlan plan = TopicPlan.defaults("refused-offsets.");
        try (LateLeaders admin = new LateLeaders(Integer.MAX_VALUE,
                () -> new org.apache.kafka.common.errors.TopicAuthorizationException("not authorized to describe"))) {
            TopicProvisioner provisioner = new TopicProvisioner(admin, KAFKA.bootstrapServers(), Duration.ofSeconds(30));
            assertThatThrownBy(() -> provisioner.create(plan))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot ask the leaders of the created topics [refused-offsets.node-writes")
                    .hasMessageContaining("for their end offsets on " + KAFKA.bootstrapServers())
                    .hasMessageContaining("TopicAuthorizationException: not authorized to describe")
                    .hasMessageNotContaining("no leader");
            assertThat(admin.asked.get()).as("not asked again").isEqualTo(1);
        }
    }

    @Test
    void createIsIdempotent() {
        TopicPlan plan = TopicPlan.defaults("twice.");
        provisioner().create(plan);

        Provisioned again = provisioner().create(plan);

        assertThat(again.created()).isEmpty();
        assertThat(again.alreadyThere()).containsExactlyElementsOf(plan.names().all());
        assertThat(again.matches()).isTrue();
    }

    @Test
    void checkListsExactlyTheWrongPartitionCountTheMissingCompactionAndTheBrokenCoPartitioning() throws Exception {
        TopicPlan plan = TopicPlan.defaults("wrong.");
        Topics t = plan.names();
        createWrongTopics(t);

        Provisioned p = provisioner().create(plan);

        assertThat(p.alreadyThere()).containsExactlyInAnyOrder(t.reports(), t.nodeWeights());
        assertThat(p.created()).hasSize(12);
        List<TopicDifference> expected = List.of(
                new TopicDifference.Partitions(t.reports(), 3, 1),
                new TopicDifference.Config(t.nodeWeights(), "cleanup.policy", "delete", "compact"),
                new TopicDifference.NotCoPartitioned(List.of(t.reports(), t.alerts()), List.of(3, 1)));
        assertThat(p.differences()).containsExactlyElementsOf(expected);
        assertThat(provisioner().check(plan)).containsExactlyElementsOf(expected);
        assertThat(KAFKA.broker().adminClient().describeTopics(List.of(t.reports())).allTopicNames().get(30, TimeUnit.SECONDS)
                .get(t.reports()).partitions()).as("an existing topic is left as it is").hasSize(3);
    }

    @Test
    void checkReportsEveryMissingTopic() {
        TopicPlan plan = TopicPlan.defaults("nothing.");
        List<TopicDifference> differences = provisioner().check(plan);
        assertThat(differences).hasSize(14).allSatisfy(d -> assertThat(d).isInstanceOf(TopicDifference.Missing.class));
        assertThat(differences.get(0).line()).isEqualTo(
                "nothing.node-writes: missing (planned: 6 partitions, replication factor 1, cleanup.policy=delete, retention.ms=604800000 (7d))");
    }

    @Test
    void requireTopicsRefusesMissingTopicsWithTheCommandThatCreatesThem() {
        TopicPlan plan = TopicPlan.defaults("required.");
        provisioner().create(TopicPlan.defaults("other."));

        assertThatThrownBy(() -> provisioner().requireTopics(plan, false))
                .isInstanceOf(MissingTopicsException.class)
                .hasMessageContaining("missing SkewGuard topics required.node-writes, required.node-capacity, required.reports")
                .hasMessageContaining("./skewguard topics create --bootstrap-servers " + KAFKA.bootstrapServers() + " --topic-prefix required.")
                .hasMessageContaining("create-topics=true")
                .satisfies(e -> assertThat(((MissingTopicsException) e).missing()).containsExactlyElementsOf(plan.names().all()));
    }

    @Test
    void requireTopicsCreatesMissingTopicsWhenAskedTo() {
        TopicPlan plan = TopicPlan.defaults("created-at-start.");

        Provisioned p = provisioner().requireTopics(plan, true);

        assertThat(p.created()).extracting(TopicSpec::name).containsExactlyElementsOf(plan.names().all());
        assertThat(provisioner().requireTopics(plan, false).matches()).isTrue();
    }

    // ---- the command, run in-process

    private record Run(int exitCode, String out, String err) {
    }

    private static Run topics(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new TopicsCommand(Map.of()));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    @Test
    void theCreateCommandPrintsWhatItCreatedAndThenWhatWasAlreadyThere() {
        Run first = topics("create", "--bootstrap-servers", KAFKA.bootstrapServers(), "--topic-prefix", "cmd.");
        assertThat(first.exitCode()).as(first.err()).isZero();
        assertThat(first.out()).contains("created cmd.node-writes: 6 partitions, replication factor 1, cleanup.policy=delete, "
                + "retention.ms=604800000 (7d)")
                .contains("created cmd.slot-table: 1 partition, replication factor 1, cleanup.policy=compact")
                .contains("created cmd.dlq: 6 partitions, replication factor 1, cleanup.policy=delete, retention.ms=1209600000 (14d)")
                .contains("14 created, 0 already there; every topic matches the plan");

        Run second = topics("create", "--bootstrap-servers", KAFKA.bootstrapServers(), "--topic-prefix", "cmd.");
        assertThat(second.exitCode()).isZero();
        assertThat(second.out()).doesNotContain("created cmd.").contains("already there: cmd.node-writes")
                .contains("0 created, 14 already there");

        Run check = topics("check", "--bootstrap-servers", KAFKA.bootstrapServers(), "--topic-prefix", "cmd.");
        assertThat(check.exitCode()).isZero();
        assertThat(check.out()).isEqualToIgnoringNewLines("all 14 topics match the plan");
    }

    @Test
    void theCheckCommandPrintsEachDifferenceAndExitsWithOne() throws Exception {
        Topics t = new Topics("cmd-wrong.");
        createWrongTopics(t);
        topics("create", "--bootstrap-servers", KAFKA.bootstrapServers(), "--topic-prefix", "cmd-wrong.");

        Run check = topics("check", "--bootstrap-servers", KAFKA.bootstrapServers(), "--topic-prefix", "cmd-wrong.");

        assertThat(check.exitCode()).isEqualTo(TopicsCommand.DIFFERS);
        assertThat(check.out().lines().filter(l -> l.startsWith("differs: "))).containsExactly(
                "differs: cmd-wrong.reports: 3 partitions, the plan says 1",
                "differs: cmd-wrong.node-weights: cleanup.policy=delete, the plan says cleanup.policy=compact",
                "differs: cmd-wrong.reports has 3 partitions and cmd-wrong.alerts has 1 partition: they must have the same count, "
                        + "because the balancer handles both per cluster in one task");
        assertThat(check.out()).contains("3 differences; SkewGuard does not change existing topics");
    }

    @Test
    void theCheckCommandReadsItsSettingsFromTheEnvironmentToo() {
        topics("create", "--bootstrap-servers", KAFKA.bootstrapServers(), "--topic-prefix", "env.", "--node-partitions", "2");
        CommandLine cmd = new CommandLine(new TopicsCommand(Map.of(
                "SKEWGUARD_TOPICS_BOOTSTRAP_SERVERS", KAFKA.bootstrapServers(),
                "SKEWGUARD_TOPICS_TOPIC_PREFIX", "env.",
                "SKEWGUARD_TOPICS_NODE_PARTITIONS", "3")));
        StringWriter out = new StringWriter();
        cmd.setOut(new PrintWriter(out, true));

        assertThat(cmd.execute("check")).isEqualTo(TopicsCommand.DIFFERS);
        assertThat(out.toString()).contains("differs: env.node-writes: 2 partitions, the plan says 3");
    }

    @Test
    void aBadSettingEndsTheCommandWithTwoAndOneLineNamingIt() {
        Run run = topics("check", "--bootstrap-servers", KAFKA.bootstrapServers(), "--node-partitions", "0");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).isEqualToIgnoringNewLines(
                "topics: node-partitions: 0 is not allowed; it must be at least 1 (from flag --node-partitions)");
    }

    @Test
    void moreReplicasThanBrokersIsABadSetting() {
        Run run = topics("create", "--bootstrap-servers", KAFKA.bootstrapServers(), "--topic-prefix", "rf.", "--replication-factor", "3");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("topics: replication-factor: 3 replicas need at least 3 brokers, but the cluster has 1");
        assertThat(provisioner().check(TopicPlan.defaults("rf."))).as("nothing created")
                .allSatisfy(d -> assertThat(d).isInstanceOf(TopicDifference.Missing.class));
    }

    @Test
    void anUnreachableClusterEndsTheCommandWithThreeAndSaysWhere() {
        Run run = topics("check", "--bootstrap-servers", "127.0.0.1:1", "--timeout", "1s");
        assertThat(run.exitCode()).isEqualTo(TopicsCommand.KAFKA_FAILED);
        assertThat(run.err()).contains("topics: cannot describe the cluster on 127.0.0.1:1: no answer within 1s");
    }

    @Test
    void theHelpListsThePlansSettings() {
        Run run = topics("check", "--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("--node-partitions", "--cluster-partitions", "--replication-factor", "--event-retention",
                "--command-retention", "--dead-letter-retention", "--bootstrap-servers", "--topic-prefix", "--config", "--set",
                "SKEWGUARD_TOPICS_");
    }
}
