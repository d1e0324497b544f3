package io.skewguard.sim.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.Topics;
import io.skewguard.embedded.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * {@code skewguard demo --bootstrap-servers …}: the same loop on a broker the demo did not start; the
 * demo must not start one of its own, must not stop that one, and writes to topics of its own prefix.
 */
class DemoExternalBrokerIT {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theDemoRunsAgainstAnExistingBrokerAndLeavesItRunning() throws Exception {
        // the broker starts some of its threads only when clients first use it, so the threads are
        // compared with the JVM before the broker, after the broker is closed by this test
        Set<String> threadsBefore = DemoAssertions.nonDaemonThreads();
        try (EmbeddedKafka broker = EmbeddedKafka.builder().build().start()) {
            String prefix = "ext-" + UUID.randomUUID().toString().substring(0, 8) + ".";
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            DemoCommand demo = new DemoCommand(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));

            int exit = new CommandLine(demo).execute("--scenario", "demo-quick", "--speed", "160", "--no-report",
                    "--bootstrap-servers", broker.bootstrapServers(),
                    "--schema-registry-url", "mock://demo-external-" + UUID.randomUUID(),
                    "--topic-prefix", prefix);

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
}
