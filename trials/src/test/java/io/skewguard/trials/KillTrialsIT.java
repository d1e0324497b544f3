package io.skewguard.trials;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.trials.Trial.BrokerOutage;
import io.skewguard.trials.Trial.BrokerRestart;
import io.skewguard.trials.Trial.Kill;
import io.skewguard.trials.Trial.Outcome;
import io.skewguard.trials.Trial.Point;
import io.skewguard.trials.Trial.Step;
import io.skewguard.trials.TrialStack.App;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kill trials and the broker's: the detector, balancer, migrator and an agent service each as
 * its own JVM, a skewed cluster under repair with migrations in flight, processes killed with
 * SIGKILL at seeded points of the loop and started again, the broker restarted and stopped for
 * longer than the clients' timeouts; after each trial the topics and the stores must show nothing
 * lost and nothing done twice ({@link TrialChecks}), no process may have exited by itself, and
 * every producer of every process must run with idempotence and {@code acks=all} (its start-up
 * configuration dump says so).
 *
 * <p>The normal test run holds the short seeded subset, one trial: each process kind killed once,
 * at a point the seed picks from that kind's points, and after the balancer's kill a broker restart
 * and a {@value #SHORT_OUTAGE_SECONDS} s outage that begins while an agent has applied a command
 * and not committed its offset, against client timeouts of 5 s (requests, API calls, blocking
 * sends, Kafka Streams tasks), 3 s (consumer sessions, as in every trial) and 10 s (deliveries,
 * transactions), so that each of them expires during it. The long run, {@code
 * -Dskewguard.trials.full=true}, is 20 trials of one kill each, five per process kind, every point
 * of a kind taken in turn, and one broker trial: a restart, then a {@value
 * #LONG_OUTAGE_MINUTES}-minute outage against Kafka's default client timeouts (the longest, Kafka
 * Streams' {@code task.timeout.ms}, is 5 minutes). {@code -Dskewguard.trials.seed=N} picks another
 * seed (default 16). Each trial logs a line starting with {@code TRIAL}; the run writes {@code
 * target/kill-trials/report.md} (docs/reliability.md).
 */
class KillTrialsIT {

    private static final Logger LOG = LoggerFactory.getLogger(KillTrialsIT.class);

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension(TrialStack.trialBroker());

    static final long SEED = Long.getLong("skewguard.trials.seed", 16);
    static final boolean FULL = Boolean.getBoolean("skewguard.trials.full");
    static final int SHORT_OUTAGE_SECONDS = 15;
    static final int LONG_OUTAGE_MINUTES = 6;

    /** One trial of a run: its steps, and whether its processes run with short client timeouts. */
    record Planned(String name, List<Step> steps, boolean shortTimeouts) {}

    /** The points of each kind, in the order the long run takes them. */
    static List<Point> points(App app) {
        return switch (app) {
            case DETECTOR -> List.of(Point.RANDOM);
            case BALANCER -> List.of(Point.AFTER_WEIGHT_ROUND, Point.RANDOM);
            case MIGRATOR -> List.of(Point.MID_COPY, Point.AFTER_PREPARED, Point.BETWEEN_COMMIT_AND_CLEANUP, Point.RANDOM);
            case AGENT -> List.of(Point.BETWEEN_APPLY_AND_COMMIT, Point.MID_COPY, Point.AFTER_PREPARED,
                    Point.BETWEEN_COMMIT_AND_CLEANUP, Point.RANDOM);
        };
    }

    /** The trials of a run. */
    static List<Planned> plan(long seed, boolean full) {
        List<Planned> trials = new ArrayList<>();
        // the balancer first: its rounds run in the first half minute of the repair
        List<App> order = List.of(App.BALANCER, App.MIGRATOR, App.AGENT, App.DETECTOR);
        if (full) {
            for (int i = 0; i < 5; i++) {
                for (App app : order) {
                    List<Point> ps = points(app);
                    trials.add(new Planned("kill-" + (trials.size() + 1), List.of(new Kill(app, ps.get(i % ps.size()))), false));
                }
            }
            trials.add(new Planned("broker", List.of(new BrokerRestart(),
                    new BrokerOutage(Duration.ofMinutes(LONG_OUTAGE_MINUTES), true)), false));
        } else {
            Random random = new Random(seed);
            List<Step> steps = new ArrayList<>();
            for (App app : order) {
                List<Point> ps = points(app);
                steps.add(new Kill(app, ps.get(random.nextInt(ps.size()))));
                if (app == App.BALANCER) {
                    // the broker's steps while the repairs are busiest: the outage waits for an agent's commit
                    steps.add(new BrokerRestart());
                    steps.add(new BrokerOutage(Duration.ofSeconds(SHORT_OUTAGE_SECONDS), true));
                }
            }
            trials.add(new Planned("subset", steps, true));
        }
        return trials;
    }

    /** The client timeouts of the short subset; each expires during its outage. */
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
    void processesKilledAtPointsOfTheLoopAndABrokerRestartedAndAwayLongerThanTheClientTimeoutsLoseNothingAndRunNothingTwice()
            throws Exception {
        Path root = Path.of("target", "kill-trials");
        Files.createDirectories(root);
        List<Outcome> outcomes = new ArrayList<>();
        for (Planned p : plan(SEED, FULL)) {
            String name = p.name() + "-" + SEED;
            Outcome o = Trial.run(KAFKA.broker(), root.resolve(name), name, SEED * 1000 + outcomes.size(), p.steps(),
                    p.shortTimeouts() ? KillTrialsIT::shortClientTimeouts : stack -> { });
            List<String> producers = producerConfigs(o.dir());
            List<String> weak = producers.stream()
                    .filter(c -> !(c.contains("acks = -1") && c.contains("enable.idempotence = true"))).toList();
            if (producers.size() < App.values().length) {
                o = o.with("the processes' output shows " + producers.size() + " producer configurations, fewer than one per process");
            }
            if (!weak.isEmpty()) {
                o = o.with("producers without idempotence and acks=all: " + weak);
            }
            outcomes.add(o);
            LOG.info("TRIAL {} seed {}: {} in {} s (start {} s); steps {}; {}; violations {}", o.name(), o.seed(),
                    o.passed() ? "PASSED" : "FAILED", o.totalMillis() / 1000, o.startMillis() / 1000,
                    o.steps(), o.figures(), o.violations());
        }
        TrialReport.write(root.resolve("report.md"), SEED, outcomes);
        assertThat(outcomes).allSatisfy(o -> assertThat(o.violations()).as("%s (seed %s, steps %s, files in %s)",
                o.name(), o.seed(), o.steps(), o.dir()).isEmpty());
    }

    private static final Pattern PRODUCER_CONFIG = Pattern.compile("ProducerConfig values: \\n((?:\\t.*\\n)+)");

    /** Every Kafka producer configuration dump in the outputs of every start of every process of a trial. */
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
