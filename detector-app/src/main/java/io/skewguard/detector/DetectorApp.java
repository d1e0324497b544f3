package io.skewguard.detector;

import io.skewguard.detector.replay.ReplayCommand;
import io.skewguard.detector.ingest.IngestLoop;
import io.skewguard.detector.stream.PartialsPurger;
import io.skewguard.schemas.Topics;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import io.skewguard.runtime.settings.SettingsOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sun.misc.Signal;

/**
 * {@code detector}: runs the detector (stage one: {@link IngestLoop}s on the plain Kafka clients;
 * stage two: the Kafka Streams application of {@link DetectorTopology}) until SIGTERM / Ctrl-C,
 * then shuts it down in order ({@link Running#close()}: ingest buffers handed on and committed with
 * their offsets, then Streams' last commit, group left). Lifecycle only: configuration is
 * {@link DetectorSettings}.
 */
@Command(name = "detector", mixinStandardHelpOptions = true, version = "skewguard detector 0.1.0",
        subcommands = ReplayCommand.class, modelTransformer = DetectorApp.Flags.class,
        description = {
            "Detects write-heat and capacity skew per cluster (docs/design.md section 3): reads <prefix>node-writes and "
                    + "<prefix>node-capacity, writes <prefix>reports every tick, <prefix>alerts on every alert "
                    + "transition and bad input to <prefix>dlq. Runs until SIGTERM or Ctrl-C, then stops in order "
                    + "and exits 0; exits 1 if it cannot start or a stage fails, 2 on a bad setting."
        })
public final class DetectorApp implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(DetectorApp.class);

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
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        LOG.info("starting: {}", settings);
        CountDownLatch stop = new CountDownLatch(1);
        // SIGTERM is the ordinary way a container or a supervisor stops the detector: handled as a
        // request to stop, so the orderly close below runs and the exit code says how it went
        // (the JVM's own handling would run shutdown hooks and exit 143 whatever happened)
        for (String signal : List.of("TERM", "INT")) {
            Signal.handle(new Signal(signal), s -> {
                LOG.info("SIG{} received: stopping", signal);
                stop.countDown();
            });
        }
        Running running;
        try {
            running = start(settings);
        } catch (RuntimeException e) {
            LOG.error("cannot start", e);
            err.println("detector: cannot start: " + e.getMessage());
            err.flush();
            return 1;
        }
        running.onFailure(stop::countDown);
        out.printf("detector: %s running against %s; topics %snode-writes, %snode-capacity -> %sreports, %salerts, %sdlq%n",
                settings.applicationId(), settings.bootstrapServers(), settings.topicPrefix(), settings.topicPrefix(),
                settings.topicPrefix(), settings.topicPrefix(), settings.topicPrefix());
        out.flush();
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        running.close();
        if (running.hasFailed()) {
            err.println("detector: Kafka Streams or an ingest loop failed; see the log");
            err.flush();
            return 1;
        }
        LOG.info("stopped");
        return 0;
    }

    /**
     * The configuration {@code <application-id>-partials} is created with: that of a Kafka Streams
     * repartition topic. Records are deleted by {@link PartialsPurger} once stage two has committed
     * them, never by time: their timestamps are event times, which may be old.
     */
    public static final Map<String, String> PARTIALS_TOPIC_CONFIG = Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
            TopicConfig.RETENTION_MS_CONFIG, "-1",
            TopicConfig.SEGMENT_BYTES_CONFIG, "52428800");

    /**
     * Starts the detector for {@code settings}: creates {@code <application-id>-partials} if it is
     * missing (as many partitions as the larger input topic, {@link #PARTIALS_TOPIC_CONFIG}), starts
     * stage two (Kafka Streams), {@code ingest-threads} ingest loops (stage one) and, unless
     * {@code purge-interval} is 0, the {@link PartialsPurger}.
     */
    public static Running start(DetectorSettings settings) {
        ensurePartialsTopic(settings);
        Properties properties = settings.streamsProperties();
        // Kafka Streams' consumers do not leave their group on close (leaveGroup(true) below only
        // removes static members): without this a stopped instance holds its partitions until its
        // session times out
        properties.putIfAbsent(StreamsConfig.mainConsumerPrefix("internal.leave.group.on.close"), "true");
        KafkaStreams streams = new KafkaStreams(DetectorTopology.build(settings), properties);
        Running running = new Running(streams, settings);
        // both before start(): Kafka Streams refuses them afterwards
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.PENDING_ERROR) {
                running.failed();
            }
        });
        streams.setUncaughtExceptionHandler(e -> {
            LOG.error("detector stream thread failed; shutting the client down", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.start();
        String instance = settings.instanceId().isBlank() ? UUID.randomUUID().toString() : settings.instanceId();
        for (int i = 0; i < settings.ingestThreads(); i++) {
            IngestLoop loop = new IngestLoop(settings, settings.partialsTopic(), instance, i, e -> running.failed());
            running.loops.add(loop);
            loop.start();
        }
        if (!settings.purgeInterval().isZero()) {
            running.purger = PartialsPurger.start(Admin.create(settings.adminProperties()), settings.applicationId(),
                    settings.partialsTopic(), settings.purgeInterval());
        }
        return running;
    }

    private static void ensurePartialsTopic(DetectorSettings settings) {
        String partials = settings.partialsTopic();
        Topics topics = settings.topics();
        try (Admin admin = Admin.create(settings.adminProperties())) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            if (existing.contains(partials)) {
                warnOnTimeRetention(admin, partials);
                return;
            }
            int partitions = 1;
            for (String input : List.of(topics.nodeWrites(), topics.nodeCapacity())) {
                if (!existing.contains(input)) {
                    throw new IllegalStateException("input topic " + input + " does not exist");
                }
                TopicDescription d = admin.describeTopics(List.of(input)).allTopicNames().get(30, TimeUnit.SECONDS).get(input);
                partitions = Math.max(partitions, d.partitions().size());
            }
            try {
                admin.createTopics(List.of(new NewTopic(partials, Optional.of(partitions), Optional.empty())
                                .configs(PARTIALS_TOPIC_CONFIG)))
                        .all().get(30, TimeUnit.SECONDS);
                LOG.info("created topic {} with {} partition(s), {}", partials, partitions, PARTIALS_TOPIC_CONFIG);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking topic " + partials, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot check or create topic " + partials + ": " + e.getMessage(), e);
        }
    }

    /** An existing partials topic is left as it is; a time retention on it is worth a warning. */
    private static void warnOnTimeRetention(Admin admin, String partials)
            throws InterruptedException, ExecutionException, TimeoutException {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, partials);
        Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
        ConfigEntry retention = config == null ? null : config.get(TopicConfig.RETENTION_MS_CONFIG);
        if (retention != null && !"-1".equals(retention.value())) {
            LOG.warn("topic {} has retention.ms={}: partials carry event-time timestamps, so the broker may delete "
                    + "ones stage two has not read yet; set retention.ms=-1 (the detector purges what stage two "
                    + "has committed, see purge-interval)", partials, retention.value());
        }
    }

    /**
     * A started detector. {@link #close()} is the orderly shutdown: the partials purger stops,
     * every ingest loop hands on what it buffers and commits it with its input offsets, then Kafka
     * Streams closes (last commit) and leaves the group so that a replacement instance need not wait for this one's session timeout.
     * Idempotent.
     */
    public static final class Running implements AutoCloseable {
        private final KafkaStreams streams;
        private final DetectorSettings settings;
        private final List<IngestLoop> loops = new CopyOnWriteArrayList<>();
        private volatile PartialsPurger purger;
        private volatile Runnable failureListener = () -> {};
        private volatile boolean failed;

        Running(KafkaStreams streams, DetectorSettings settings) {
            this.streams = streams;
            this.settings = settings;
        }

        public KafkaStreams streams() {
            return streams;
        }

        /** The ingest loops (stage one). */
        public List<IngestLoop> ingestLoops() {
            return List.copyOf(loops);
        }

        /** The sum of an ingest metric over the loops, e.g. {@code records-ingested-total}. */
        public double ingestMetric(String name) {
            return loops.stream().mapToDouble(l -> l.metrics().value(name)).sum();
        }

        /** Called once an ingest loop stopped on an error it does not retry. */
        public void onFailure(Runnable listener) {
            this.failureListener = listener;
            if (failed) {
                listener.run();
            }
        }

        void failed() {
            failed = true;
            failureListener.run();
        }

        /** Whether Kafka Streams went to ERROR or an ingest loop stopped on an error. */
        public boolean hasFailed() {
            return failed;
        }

        /**
         * Waits until Kafka Streams is RUNNING and every ingest loop has its first assignment, at
         * most {@code timeout}; false if it did not get there.
         */
        public boolean awaitRunning(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (streams.state() != KafkaStreams.State.RUNNING || !loops.stream().allMatch(IngestLoop::joined)) {
                if (System.nanoTime() > deadline || !streams.state().isRunningOrRebalancing() || failed) {
                    return false;
                }
                Thread.sleep(20);
            }
            return true;
        }

        private void stopPurger() {
            PartialsPurger p = purger;
            if (p != null) {
                p.close();
            }
        }

        @Override
        public synchronized void close() {
            stopPurger();
            for (IngestLoop loop : loops) {
                try {
                    if (!loop.stop(Duration.ofSeconds(30))) {
                        LOG.warn("{} did not stop within 30 s", loop.name());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            streams.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30)));
        }

        /**
         * Stops as a crash of stage one would: the ingest loops drop their buffers and abandon their
         * clients without any flush or commit ({@link IngestLoop#halt}); then Kafka Streams is closed
         * as usual. For tests of the recovery path.
         */
        public synchronized void halt() throws InterruptedException {
            stopPurger();
            for (IngestLoop loop : loops) {
                loop.halt(Duration.ofSeconds(30));
            }
            streams.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30)));
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new DetectorApp()).execute(args));
    }
}
