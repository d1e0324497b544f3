package io.skewguard.trials;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.trials.Trial.BrokerOutage;
import io.skewguard.trials.Trial.BrokerRestart;
import io.skewguard.trials.Trial.Outcome;
import io.skewguard.trials.TrialStack.App;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker goes away under the whole loop — the detector, balancer, migrator and an agent service
 * each as its own JVM, a repair with migrations in flight —, first for a restart (same ports, same
 * data), then for longer than every client timeout of the processes, beginning while an agent has
 * applied a command and not committed its offset (found by freezing the agent service, as the kill
 * trials do, so that its commit meets the outage): none of them exits, each
 * reconnects by itself, the loop goes on, and once it is at rest the topics and the stores show
 * nothing lost and nothing done twice ({@link TrialChecks}). Every producer of every process runs
 * with idempotence and {@code acks=all}, as its start-up configuration dump shows.
 *
 * <p>The outage lasts {@value #OUTAGE_SECONDS} s against client timeouts of 5 s (requests, API
 * calls, blocking sends, Kafka Streams tasks), 6 s (consumer sessions) and 10 s (deliveries,
 * transactions), so that every timeout expires during it while the test stays short; with Kafka's
 * default timeouts the same holds for an outage longer than five minutes.
 */
class BrokerRestartIT {

    private static final Logger LOG = LoggerFactory.getLogger(BrokerRestartIT.class);
    static final int OUTAGE_SECONDS = 30;

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    /** The client timeouts every process runs with here; each expires during the outage. */
    static void shortClientTimeouts(TrialStack stack) {
        for (App app : App.values()) {
            stack.set(app, "request.timeout.ms", "5000");
            stack.set(app, "default.api.timeout.ms", "5000");
            stack.set(app, "max.block.ms", "5000");
            stack.set(app, "delivery.timeout.ms", "10000");
            if (app != App.AGENT) {
                stack.set(app, "task.timeout.ms", "5000"); // Kafka Streams
            }
        }
    }

    @Test
    void everyProcessRidesOutABrokerRestartAndAnOutageLongerThanItsClientTimeoutsAndNothingIsLostOrDoneTwice() throws Exception {
        Path root = Path.of("target", "broker-trials");
        Files.createDirectories(root);
        String name = "broker-restart";
        Outcome o = Trial.run(KAFKA.broker(), root.resolve(name), name, 16,
                List.of(new BrokerRestart(), new BrokerOutage(Duration.ofSeconds(OUTAGE_SECONDS), true)), BrokerRestartIT::shortClientTimeouts);
        LOG.info("TRIAL {}: {} in {} s (start {} s); steps {}; {}; violations {}", o.name(), o.passed() ? "PASSED" : "FAILED",
                o.totalMillis() / 1000, o.startMillis() / 1000, o.steps(), o.figures(), o.violations());
        TrialReport.write(root.resolve("report.md"), 16, List.of(o));
        assertThat(o.violations()).as("%s, steps %s, files in %s", o.name(), o.steps(), o.dir()).isEmpty();
        assertThat(o.steps()).hasSize(2);

        List<String> producers = producerConfigs(o.dir());
        assertThat(producers).as("producer configurations in the processes' output").hasSizeGreaterThanOrEqualTo(App.values().length);
        assertThat(producers).allSatisfy(p -> assertThat(p).contains("acks = -1").contains("enable.idempotence = true"));
    }

    private static final Pattern PRODUCER_CONFIG = Pattern.compile("ProducerConfig values: \\n((?:\\t.*\\n)+)");

    /** Every Kafka producer configuration dump in the outputs of every start of every process. */
    static List<String> producerConfigs(Path dir) throws Exception {
        List<String> configs = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.getFileName().toString().endsWith(".log")).sorted().toList()) {
                Matcher m = PRODUCER_CONFIG.matcher(Files.readString(f));
                while (m.find()) {
                    String clientId = m.group(1).lines().filter(l -> l.contains("client.id = ")).findFirst().orElse("?").trim();
                    configs.add(f.getFileName() + " " + clientId + "\n" + m.group(1));
                }
            }
        }
        return configs;
    }

}
