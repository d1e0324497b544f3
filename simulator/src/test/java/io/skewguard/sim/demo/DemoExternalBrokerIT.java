package io.skewguard.sim.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.runtime.acls.AclsCommand;
import io.skewguard.schemas.Topics;
import io.skewguard.sim.scenario.NodeSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code skewguard demo --bootstrap-servers …}: the same loop on a broker the demo did not start; the
 * demo must not start one of its own, must not stop that one, and writes to topics of its own prefix.
 *
 * <p>The broker is a secured one (docs/security.md, "Secured cluster"): SASL/SCRAM, the standard
 * authorizer with {@code allow.everyone.if.no.acl.found=false}, one principal per role (detector,
 * balancer, migrator, one per node for its agent and reporter) with exactly the ACLs
 * {@code skewguard acls --apply} creates, and every secret only in properties files
 * ({@code --client-config-dir}). The whole loop (detector → balancer → migrator → agents) must run
 * under them; only the demo's own harness (topic creation, writers, observer) is an administrator.
 */
class DemoExternalBrokerIT {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theDemoRunsUnderPerRoleAclsOnAnExistingSecuredBrokerAndLeavesItRunning(@TempDir Path dir) throws Exception {
        List<String> nodes = DemoCommand.resolve("demo-quick").nodes().stream().map(NodeSpec::id).toList();
        EmbeddedKafka.Builder secured = EmbeddedKafka.builder().authorizer()
                .saslUser("detector", "detector-secret")
                .saslUser("balancer", "balancer-secret")
                .saslUser("migrator", "migrator-secret");
        nodes.forEach(n -> secured.saslUser("node-" + n, n + "-secret"));
        // the broker starts some of its threads only when clients first use it, so the threads are
        // compared with the JVM before the broker, after the broker is closed by this test
        Set<String> threadsBefore = DemoAssertions.nonDaemonThreads();
        try (EmbeddedKafka broker = secured.build().start()) {
            String prefix = "ext-" + UUID.randomUUID().toString().substring(0, 8) + ".";
            String runId = "acl-" + UUID.randomUUID().toString().substring(0, 8);
            Path config = Files.createDirectories(dir.resolve("client-config"));
            for (String role : List.of("detector", "balancer", "migrator")) {
                broker.writeClientProperties(config.resolve(role + ".properties"), role);
            }
            nodes.forEach(n -> broker.writeClientProperties(config.resolve(DemoSettings.agentRole(n) + ".properties"), "node-" + n));
            broker.writeClientProperties(config.resolve("demo.properties"));
            applyAcls(broker, config.resolve("demo.properties"), prefix, runId, nodes);

            ByteArrayOutputStream err = new ByteArrayOutputStream();
            DemoCommand demo = new DemoCommand(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            int exit = new CommandLine(demo).execute("--scenario", "demo-quick", "--speed", "160", "--no-report", "--writes-per-step", "300",
                    "--bootstrap-servers", broker.bootstrapServers(),
                    "--schema-registry-url", "mock://demo-external-" + UUID.randomUUID(),
                    "--topic-prefix", prefix, "--run-id", runId, "--client-config-dir", config.toString());

            assertThat(exit).as("exit code; stderr:%n%s", err.toString(StandardCharsets.UTF_8)).isZero();
            DemoOutcome outcome = demo.lastOutcome();
            DemoAssertions.assertLoopRan(outcome);
            EmbeddedStack stack = demo.current().stack();
            assertThat(stack.bootstrapServers()).isEqualTo(broker.bootstrapServers());
            assertThat(stack.brokerDataDir()).as("no broker of its own").isNull();
            DemoAssertions.assertGone(stack.workDir());

            // the broker is still up and holds the loop's records under the demo's prefix
            assertThat(broker.isRunning()).isTrue();
            Topics topics = new Topics(prefix);
            assertThat(broker.adminClient().listTopics().names().get(30, TimeUnit.SECONDS)).containsAll(topics.all());
            var commands = broker.consumeUntil(topics.weightCommands(), new ByteArrayDeserializer(), new ByteArrayDeserializer(),
                    records -> records.size() >= outcome.weightCommands(), Duration.ofSeconds(30));
            assertThat(commands).hasSizeGreaterThanOrEqualTo((int) outcome.weightCommands());
            var rows = broker.consumeUntil(topics.slotTable(), new ByteArrayDeserializer(), new ByteArrayDeserializer(),
                    records -> !records.isEmpty(), Duration.ofSeconds(30));
            assertThat(rows).isNotEmpty();
        }
        assertThat(DemoAssertions.leftoverThreads(threadsBefore)).as("non-daemon threads left after demo and broker").isEmpty();
    }

    /** {@code skewguard acls --apply} for the demo's principals and application ids, as an administrator. */
    private static void applyAcls(EmbeddedKafka broker, Path adminConfig, String prefix, String runId, List<String> nodes) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine acls = new CommandLine(new AclsCommand(Map.of()));
        acls.setOut(new PrintWriter(out, true));
        acls.setErr(new PrintWriter(err, true));
        int exit = acls.execute("--apply", "--config", adminConfig.toString(), "--topic-prefix", prefix,
                "--principal-detector", "User:detector", "--principal-balancer", "User:balancer", "--principal-migrator", "User:migrator",
                "--principal-agents", nodes.stream().map(n -> n + "=User:node-" + n).collect(Collectors.joining(",")),
                "--detector-application-id", "skewguard-demo-" + runId + "-detector",
                "--balancer-application-id", "skewguard-demo-" + runId + "-balancer",
                "--migrator-application-id", "skewguard-demo-" + runId + "-migrator");
        assertThat(exit).as("acls --apply; stderr: %s", err).isZero();
        assertThat(out.toString()).contains("ACLs created");
    }
}
