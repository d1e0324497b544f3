package io.skewguard.detector;

import io.skewguard.detector.ingest.IngestLoop;
import io.skewguard.detector.replay.ReplayCommand;
import io.skewguard.runtime.lifecycle.ProcessLifecycle;
import io.skewguard.runtime.lifecycle.Service;
import io.skewguard.runtime.lifecycle.StreamsService;
import io.skewguard.runtime.settings.SettingsOptions;
import io.skewguard.runtime.registry.RegistryProbe;
import io.skewguard.runtime.topics.RequiredTopics;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.kafka.streams.KafkaStreams;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code detector}: runs the detector as a {@link ProcessLifecycle} of five services, started in
 * this order and closed in the reverse one: the check that every SkewGuard topic exists
 * ({@link RequiredTopics}: a missing one stops the start with exit code 1 and the command that
 * creates it, unless {@code create-topics=true}), the partials topic ({@link PartialsTopic}), stage two
 * (the Kafka Streams application of {@link DetectorTopology}, a {@link StreamsService}), stage one
 * ({@link IngestStage}: the ingest loops on the plain Kafka clients) and, unless
 * {@code purge-interval} is 0, the {@link PartialsPurging}. SIGTERM / Ctrl-C close them in order
 * (ingest buffers handed on and committed with their offsets, then Streams' last commit, groups
 * left) and the process exits 0; a failure exits 1, a bad setting 2. Configuration is
 * {@link DetectorSettings}.
 */
@Command(name = "detector", mixinStandardHelpOptions = true, version = "skewguard detector 0.1.0",
        subcommands = ReplayCommand.class, modelTransformer = DetectorApp.Flags.class,
        description = {
            "Detects write-heat and capacity skew per cluster (docs/design.md §6): reads <prefix>node-writes and "
                    + "<prefix>node-capacity, writes <prefix>reports every tick, <prefix>alerts on every alert "
                    + "transition and bad input to <prefix>dlq. Runs until SIGTERM or Ctrl-C, then stops in order "
                    + "and exits 0; exits 1 if it cannot start (e.g. a SkewGuard topic is missing and create-topics is "
                    + "false) or a stage fails, 2 on a bad setting."
        })
public final class DetectorApp implements Callable<Integer> {

    static {
        // Log4j's own shutdown hook would stop logging while the lifecycle's still closes the
        // stages, losing every line of the shutdown. Must run before the first logger is created
        // (class initialisation runs in textual order).
        if (System.getProperty("log4j2.shutdownHookEnabled") == null) {
            System.setProperty("log4j2.shutdownHookEnabled", "false");
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(DetectorApp.class);

    /** How long the close of a started detector may take in all. */
    static final Duration CLOSE_TIMEOUT = ProcessLifecycle.DEFAULT_CLOSE_TIMEOUT;

    /** The detector's settings as flags, {@code --config}, {@code --set} and {@code --print-config}. */
    public static final class Flags extends SettingsOptions {
        public Flags() {
            super(DetectorSettings.MODEL);
        }
    }

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() {
        return SettingsOptions.run(spec, DetectorSettings.MODEL, System.getenv(), s -> run(DetectorSettings.from(s)));
    }

    /** Runs the detector until SIGTERM / SIGINT or a stage fails; the exit code. */
    private int run(DetectorSettings settings) {
        LOG.info("starting: {}", settings);
        ProcessLifecycle.Builder lifecycle = ProcessLifecycle.builder("detector")
                .closeTimeout(CLOSE_TIMEOUT)
                .healthEndpoint(settings.healthHost(), settings.healthPort())
                .service(RequiredTopics.of(settings.settings()))
                .service(RegistryProbe.of(settings.settings()));
        Stages.of(settings).inOrder().forEach(lifecycle::service);
        PrintWriter out = spec.commandLine().getOut();
        out.printf("detector: %s starting against %s; topics %snode-writes, %snode-capacity -> %sreports, %salerts, %sdlq%n",
                settings.applicationId(), settings.bootstrapServers(), settings.topicPrefix(), settings.topicPrefix(),
                settings.topicPrefix(), settings.topicPrefix(), settings.topicPrefix());
        out.flush();
        return lifecycle.build().run();
    }

    /** The detector's services, by what they are. */
    record Stages(PartialsTopic partialsTopic, StreamsService stageTwo, IngestStage stageOne, PartialsPurging purging) {

        static Stages of(DetectorSettings settings) {
            return new Stages(new PartialsTopic(settings),
                    new StreamsService("stage-two", DetectorTopology.build(settings), settings.streamsProperties()),
                    new IngestStage(settings),
                    settings.purgeInterval().isZero() ? null : new PartialsPurging(settings));
        }

        /** In start order: the topic between the stages, stage two before stage one (its reader first), the purger. */
        List<Service> inOrder() {
            List<Service> all = new ArrayList<>(List.of(partialsTopic, stageTwo, stageOne));
            if (purging != null) {
                all.add(purging);
            }
            return all;
        }
    }

    /**
     * The detector's services for {@code settings}, in start order (partials topic, stage two,
     * stage one, purger): what the command runs, for embedders that run them in a lifecycle of
     * their own (the simulator's embedded stack).
     */
    public static List<Service> services(DetectorSettings settings) {
        return Stages.of(settings).inOrder();
    }

    /**
     * Starts the detector for {@code settings} inside this JVM, for embedders (the simulator's
     * embedded stack, tests): the services of the command, started in the same order, without a
     * shutdown hook or health endpoint; returns once they have started (not yet RUNNING, see
     * {@link Running#awaitRunning}).
     *
     * @throws IllegalStateException if a service cannot start (what started is closed again)
     */
    public static Running start(DetectorSettings settings) {
        Stages stages = Stages.of(settings);
        List<Service> started = new ArrayList<>();
        try {
            for (Service service : stages.inOrder()) {
                started.add(service);
                service.start();
            }
        } catch (Exception e) {
            Collections.reverse(started);
            started.forEach(s -> s.close(CLOSE_TIMEOUT));
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e.getMessage(), e);
        }
        return new Running(stages);
    }

    /**
     * A detector started by {@link #start}. {@link #close()} is the orderly shutdown: the partials
     * purger stops, every ingest loop hands on what it buffers and commits it with its input
     * offsets, then Kafka Streams closes (last commit) and leaves the group so that a replacement
     * instance need not wait for this one's session timeout. Idempotent.
     */
    public static final class Running implements AutoCloseable {
        private final Stages stages;

        Running(Stages stages) {
            this.stages = stages;
        }

        public KafkaStreams streams() {
            return stages.stageTwo().streams();
        }

        /** The ingest loops (stage one). */
        public List<IngestLoop> ingestLoops() {
            return stages.stageOne().loops();
        }

        /** The sum of an ingest metric over the loops, e.g. {@code records-ingested-total}. */
        public double ingestMetric(String name) {
            return ingestLoops().stream().mapToDouble(l -> l.metrics().value(name)).sum();
        }

        /** Whether Kafka Streams or an ingest loop has failed for good. */
        public boolean hasFailed() {
            return stages.inOrder().stream().anyMatch(s -> s.failure().isPresent());
        }

        /**
         * Waits until Kafka Streams is RUNNING and every ingest loop has its first assignment, at
         * most {@code timeout}; false if it did not get there.
         */
        public boolean awaitRunning(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (streams().state() != KafkaStreams.State.RUNNING || !stages.stageOne().ready()) {
                if (System.nanoTime() > deadline || hasFailed()) {
                    return false;
                }
                Thread.sleep(20);
            }
            return true;
        }

        @Override
        public synchronized void close() {
            List<Service> order = stages.inOrder();
            Collections.reverse(order);
            long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
            for (Service service : order) {
                if (!service.close(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))) {
                    LOG.warn("{} did not close in time", service.name());
                }
            }
        }

        /**
         * Stops as a crash of stage one would: the ingest loops drop their buffers and abandon their
         * clients without any flush or commit ({@link IngestLoop#halt}); then Kafka Streams is closed
         * as usual. For tests of the recovery path.
         */
        public synchronized void halt() {
            if (stages.purging() != null) {
                stages.purging().close(CLOSE_TIMEOUT);
            }
            stages.stageOne().halt(CLOSE_TIMEOUT);
            stages.stageTwo().close(CLOSE_TIMEOUT);
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new DetectorApp()).execute(args));
    }
}
