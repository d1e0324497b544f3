package io.skewguard.detector;

import io.skewguard.detector.replay.ReplayCommand;
import io.skewguard.detector.stream.IngestDrain;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code detector}: runs the detector's Kafka Streams application until SIGTERM / Ctrl-C, then
 * shuts it down in order ({@link Running#close()}: ingest buffers drained, last commit, group left). Lifecycle only: configuration is
 * {@link DetectorSettings}, wiring {@link DetectorTopology}.
 */
@Command(name = "detector", mixinStandardHelpOptions = true, version = "skewguard detector 0.1.0",
        subcommands = ReplayCommand.class,
        description = {
            "Detects write-heat and capacity skew per cluster (DESIGN.md section 3): reads <prefix>node-writes and "
                    + "<prefix>node-capacity, writes <prefix>reports every tick, <prefix>alerts on every alert "
                    + "transition and bad input to <prefix>dlq.",
            "Settings: defaults < --config FILE (skew.<name>=value, plus Kafka properties) < environment "
                    + "SKEWGUARD_DETECTOR_<NAME> (e.g. SKEWGUARD_DETECTOR_WINDOW=60s; Kafka properties as "
                    + "SKEWGUARD_DETECTOR_KAFKA_<KEY>, e.g. SKEWGUARD_DETECTOR_KAFKA_SECURITY_PROTOCOL) < flags.",
            "Durations: 500ms, 10s, 5m, 1h, PT1M or plain milliseconds."
        })
public final class DetectorApp implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(DetectorApp.class);

    @Mixin
    private SettingsFlags flags = new SettingsFlags();

    @Spec
    private CommandSpec spec;

    /** The flags given on the command line (read by the {@code replay} subcommand too). */
    public SettingsFlags flags() {
        return flags;
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        DetectorSettings settings;
        try {
            Properties file = flags.config() == null ? new Properties() : DetectorSettings.readFile(flags.config());
            settings = DetectorSettings.load(file, System.getenv(), flags.given());
        } catch (IllegalArgumentException e) {
            err.println("detector: " + e.getMessage());
            return 2;
        }
        Running running = start(settings);
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicInteger exit = new AtomicInteger(0);
        running.streams().setStateListener((now, before) -> {
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.PENDING_ERROR) {
                exit.set(1);
                stopped.countDown();
            }
        });
        Thread hook = new Thread(() -> {
            running.close();
            stopped.countDown();
        }, "detector-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        out.printf("detector: %s running against %s; topics %snode-writes, %snode-capacity -> %sreports, %salerts, %sdlq%n",
                settings.applicationId(), settings.bootstrapServers(), settings.topicPrefix(), settings.topicPrefix(),
                settings.topicPrefix(), settings.topicPrefix(), settings.topicPrefix());
        out.flush();
        stopped.await();
        if (exit.get() != 0) {
            err.println("detector: Kafka Streams failed; see the log");
            err.flush();
        }
        running.close();
        return exit.get();
    }

    /** Builds and starts the detector's Kafka Streams application for {@code settings}. */
    public static Running start(DetectorSettings settings) {
        IngestDrain drain = new IngestDrain();
        KafkaStreams streams = new KafkaStreams(DetectorTopology.build(settings, drain), settings.streamsProperties());
        streams.setUncaughtExceptionHandler(e -> {
            LOG.error("detector stream thread failed; shutting the client down", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.start();
        return new Running(streams, drain, settings);
    }

    /**
     * A started detector. {@link #close()} is the orderly shutdown: drain the ingest buffers
     * ({@link IngestDrain}), then close Kafka Streams (last commit) and leave the group so that a
     * replacement instance need not wait for this one's session timeout. Idempotent.
     */
    public static final class Running implements AutoCloseable {
        private final KafkaStreams streams;
        private final IngestDrain drain;
        private final DetectorSettings settings;

        Running(KafkaStreams streams, IngestDrain drain, DetectorSettings settings) {
            this.streams = streams;
            this.drain = drain;
            this.settings = settings;
        }

        public KafkaStreams streams() {
            return streams;
        }

        /** Waits until the application is RUNNING, at most {@code timeout}; false if it did not get there. */
        public boolean awaitRunning(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (streams.state() != KafkaStreams.State.RUNNING) {
                if (System.nanoTime() > deadline || !streams.state().isRunningOrRebalancing()) {
                    return false;
                }
                Thread.sleep(20);
            }
            return true;
        }

        @Override
        public synchronized void close() {
            if (streams.state().isRunningOrRebalancing()) {
                drain.request();
                try {
                    Duration wait = settings.commitInterval().plus(IngestDrain.CHECK_INTERVAL).plusSeconds(10);
                    if (!drain.awaitDrained(wait)) {
                        LOG.warn("ingest buffers not drained within {}; closing anyway", wait);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            streams.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30)));
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new DetectorApp()).execute(args));
    }
}
