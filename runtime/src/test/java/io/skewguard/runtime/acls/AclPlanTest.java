package io.skewguard.runtime.acls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.Topics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class AclPlanTest {

    private static final Topics T = Topics.defaults();

    private static AclPlan plan(Topics topics) {
        return new AclPlan(topics, new AclPlan.StreamsRole("User:det", "skewguard-detector"),
                new AclPlan.StreamsRole("User:bal", "skewguard-balancer"),
                new AclPlan.StreamsRole("User:mig", "skewguard-migrator"),
                Map.of("n2", "User:node-n2", "n1", "User:node-n1"));
    }

    /** The principals allowed {@code operation} on the literal topic {@code topic}. */
    private static Set<String> allowed(AclPlan plan, AclOperation operation, String topic) {
        ResourcePattern literal = new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL);
        return plan.grants().stream().filter(g -> g.operation() == operation && g.resource().equals(literal))
                .map(AclGrant::principal).collect(Collectors.toSet());
    }

    @Test
    void onlyTheBalancerWritesWeightCommandsAndNodeWeights() {
        assertThat(allowed(plan(T), AclOperation.WRITE, T.weightCommands())).containsExactly("User:bal");
        assertThat(allowed(plan(T), AclOperation.WRITE, T.nodeWeights())).containsExactly("User:bal");
    }

    @Test
    void onlyTheMigratorWritesMigrationCommandsTheSlotTableAndMembership() {
        assertThat(allowed(plan(T), AclOperation.WRITE, T.migrationCommands())).containsExactly("User:mig");
        assertThat(allowed(plan(T), AclOperation.WRITE, T.slotTable())).containsExactly("User:mig");
        assertThat(allowed(plan(T), AclOperation.WRITE, T.membership())).containsExactly("User:mig");
    }

    @Test
    void agentsReadTheirCommandsAndWriteEventsAndStatusesOnly() {
        AclPlan plan = plan(T);
        List<AclGrant> n1 = plan.grants().stream().filter(g -> g.principal().equals("User:node-n1")).toList();

        assertThat(n1).filteredOn(g -> g.operation() == AclOperation.WRITE).extracting(g -> g.resource().name())
                .containsExactlyInAnyOrder(T.migrationStatus(), T.nodeWrites(), T.nodeCapacity(), T.dlq());
        assertThat(n1).filteredOn(g -> g.operation() == AclOperation.READ).extracting(AclGrant::resourceText)
                .containsExactlyInAnyOrder("topic " + T.weightCommands(), "topic " + T.migrationCommands(),
                        "group skewguard-agent-n1", "topic " + T.slotTable(), "topic " + T.nodeWeights());
        assertThat(n1).noneMatch(g -> g.resource().resourceType() == ResourceType.TRANSACTIONAL_ID
                || g.resource().resourceType() == ResourceType.CLUSTER || g.operation() == AclOperation.CREATE);
    }

    @Test
    void aStreamsAppOwnsWhatIsNamedAfterItsApplicationId() {
        List<String> detector = plan(T).grants().stream().filter(g -> g.role().equals("detector"))
                .map(g -> g.operationText() + " " + g.resourceText()).toList();

        assertThat(detector).contains("Create topic prefix skewguard-detector", "Delete topic prefix skewguard-detector",
                "Read group prefix skewguard-detector", "Write transactional-id prefix skewguard-detector");
        assertThat(plan(T).grants()).filteredOn(g -> g.role().equals("balancer")).extracting(AclGrant::resourceText)
                .contains("group skewguard-balancer", "transactional-id prefix skewguard-balancer");
    }

    @Test
    void everyRoleMayDescribeEverySkewGuardTopicAndWriteDeadLetters() {
        AclPlan plan = plan(T);
        for (String principal : plan.principals()) {
            assertThat(plan.grants()).filteredOn(g -> g.principal().equals(principal)).extracting(g -> g.operationText() + " " + g.resourceText())
                    .contains("Describe topic prefix skew.", "DescribeConfigs topic prefix skew.", "Write topic " + T.dlq());
        }
        assertThat(plan.principals()).containsExactly("User:det", "User:bal", "User:mig", "User:node-n1", "User:node-n2");
    }

    @Test
    void anEmptyTopicPrefixGivesLiteralLinesNotAPrefixCoveringTheWholeCluster() {
        AclPlan plan = plan(new Topics(""));

        assertThat(plan.grants()).noneMatch(g -> g.resource().resourceType() == ResourceType.TOPIC
                && g.resource().patternType() == PatternType.PREFIXED && g.resource().name().isEmpty());
        assertThat(allowed(plan, AclOperation.DESCRIBE, "slot-table")).contains("User:det", "User:node-n2");
    }

    @Test
    void everyLineHasAReasonAndTheTableShowsIt() {
        AclPlan plan = plan(T);

        assertThat(plan.grants()).allSatisfy(g -> assertThat(g.reason()).isNotBlank());
        assertThat(plan.table().lines().toList()).hasSize(plan.grants().size() + 1)
                .first().asString().startsWith("ROLE").contains("PRINCIPAL", "OPERATION", "RESOURCE", "WHY");
        assertThat(plan.table()).contains("migration commands to the agents (the migrator alone)");
    }

    @Test
    void aPrincipalThatIsNotTypeColonNameIsRefusedNamingIt() {
        assertThatThrownBy(() -> new AclPlan.StreamsRole("skewguard-detector", "skewguard-detector"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("TYPE:NAME").hasMessageContaining("'skewguard-detector'");
        assertThatThrownBy(() -> new AclPlan(T, new AclPlan.StreamsRole("User:d", "d"), new AclPlan.StreamsRole("User:b", "b"),
                new AclPlan.StreamsRole("User:m", "m"), Map.of("n1", "node-n1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("agent n1");
    }

    @Test
    void theCommandWithoutAPrincipalEndsWithOneLineNamingTheSetting() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new AclsCommand(Map.of()));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));

        int exit = cli.execute("--principal-detector", "User:d", "--principal-balancer", "User:b");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString().strip()).startsWith("acls: ").contains(AclsCommand.PRINCIPAL_MIGRATOR).doesNotContain("\n");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void theCommandWithoutApplyPrintsTheTableAndTouchesNoCluster() {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new AclsCommand(Map.of()));
        cli.setOut(new PrintWriter(out, true));

        // nothing listens on this address: printing must not need Kafka
        int exit = cli.execute("--bootstrap-servers", "127.0.0.1:1", "--principal-detector", "User:d", "--principal-balancer", "User:b",
                "--principal-migrator", "User:m", "--principal-agents", "n1=User:node-n1");

        assertThat(exit).isZero();
        assertThat(out.toString()).contains("agent n1", "User:node-n1", "group skewguard-agent-n1").doesNotContain("ACLs created");
    }
}
