package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.Topics;
import io.skewguard.testkit.EmbeddedKafka;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code balancer} as its own process: starts from flags, joins its group, and SIGTERM closes it cleanly. */
class BalancerAppIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    @Test
    void sigtermClosesTheStreamsAppCleanly(@TempDir Path dir) throws Exception {
        EmbeddedKafka broker = KAFKA.broker();
        Topics topics = new Topics("app-it.");
        broker.createTopics(1, topics.reports(), topics.alerts(), topics.weightCommands(), topics.dlq());
        broker.createCompactedTopics(1, topics.nodeWeights());
        String applicationId = "balancer-app-it-" + UUID.randomUUID();
        Path log = dir.resolve("balancer.log");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process process = new ProcessBuilder(
                Paths.get(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-Dorg.apache.logging.log4j.level=INFO", "-cp", classpath,
                BalancerApp.class.getName(),
                "--bootstrap-servers", broker.bootstrapServers(),
                "--schema-registry-url", "mock://app-it",
                "--application-id", applicationId,
                "--topic-prefix", topics.prefix(),
                "--state-dir", dir.resolve("state").toString(),
                "--replication-factor", "1")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        try (Admin admin = broker.adminClient()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            GroupState state = GroupState.UNKNOWN;
            while (state != GroupState.STABLE && System.nanoTime() < deadline && process.isAlive()) {
                Thread.sleep(250);
                try {
                    state = admin.describeConsumerGroups(List.of(applicationId)).all().get()
                            .get(applicationId).groupState();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof GroupIdNotFoundException)) {
                        throw e;
                    }
                }
            }
            assertThat(state).as("the balancer's consumer group; log:\n%s", Files.readString(log))
                    .isEqualTo(GroupState.STABLE);
        }

        process.destroy(); // SIGTERM

        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("exited after SIGTERM").isTrue();
        String output = Files.readString(log);
        assertThat(output).contains("SIGTERM: closing the balancer");
        assertThat(output).contains("balancer closed cleanly (state NOT_RUNNING)");
        assertThat(output).doesNotContain("ERROR");
    }
}
