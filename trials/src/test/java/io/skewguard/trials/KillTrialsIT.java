package io.skewguard.trials;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.trials.Trial.Kill;
import io.skewguard.trials.Trial.Outcome;
import io.skewguard.trials.Trial.Point;
import io.skewguard.trials.TrialStack.App;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kill trials: the detector, balancer, migrator and an agent service each as its own JVM, a
 * skewed cluster under repair with migrations in flight, processes killed with SIGKILL at seeded
 * points of the loop and started again; after each trial the topics and the stores must show
 * nothing lost and nothing done twice ({@link TrialChecks}).
 *
 * <p>The normal test run holds the short seeded subset: one trial in which each process kind is
 * killed once, at a point the seed picks from that kind's points. The long run,
 * {@code -Dskewguard.trials.full=true}, is 20 trials of one kill each, five per process kind, every
 * point of a kind taken in turn (docs/reliability.md). {@code -Dskewguard.trials.seed=N} picks
 * another seed (default 16). Each trial prints a line starting with {@code TRIAL}.
 */
class KillTrialsIT {

    private static final Logger LOG = LoggerFactory.getLogger(KillTrialsIT.class);

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    static final long SEED = Long.getLong("skewguard.trials.seed", 16);
    static final boolean FULL = Boolean.getBoolean("skewguard.trials.full");

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

    /** The trials: each a list of kills. */
    static List<List<Kill>> trials(long seed, boolean full) {
        Random random = new Random(seed);
        List<List<Kill>> trials = new ArrayList<>();
        if (full) {
            for (int i = 0; i < 5; i++) {
                for (App app : List.of(App.BALANCER, App.MIGRATOR, App.AGENT, App.DETECTOR)) {
                    List<Point> ps = points(app);
                    trials.add(List.of(new Kill(app, ps.get(i % ps.size()))));
                }
            }
        } else {
            // the balancer first: its rounds run in the first half minute of the repair
            List<Kill> one = new ArrayList<>();
            for (App app : List.of(App.BALANCER, App.MIGRATOR, App.AGENT, App.DETECTOR)) {
                List<Point> ps = points(app);
                one.add(new Kill(app, ps.get(random.nextInt(ps.size()))));
            }
            trials.add(one);
        }
        return trials;
    }

    @Test
    void processesKilledWithSigkillAtPointsOfTheLoopLoseNothingAndRunNothingTwice() throws Exception {
        List<List<Kill>> trials = trials(SEED, FULL);
        Path root = Path.of("target", "kill-trials");
        Files.createDirectories(root);
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < trials.size(); i++) {
            String name = "trial-" + SEED + "-" + (i + 1);
            Outcome o = Trial.run(KAFKA.broker(), root.resolve(name), name, SEED * 1000 + i, trials.get(i));
            outcomes.add(o);
            LOG.info("TRIAL {} seed {}: {} in {} s (start {} s); steps {}; {}; violations {}", o.name(), o.seed(),
                    o.passed() ? "PASSED" : "FAILED", o.totalMillis() / 1000, o.startMillis() / 1000,
                    o.steps(), o.figures(), o.violations());
        }
        TrialReport.write(root.resolve("report.md"), SEED, outcomes);
        assertThat(outcomes).allSatisfy(o -> assertThat(o.violations()).as("%s (seed %s, kills %s, files in %s)",
                o.name(), o.seed(), o.steps(), o.dir()).isEmpty());
    }
}
