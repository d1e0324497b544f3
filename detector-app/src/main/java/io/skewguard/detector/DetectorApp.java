package io.skewguard.detector;

import io.skewguard.detector.replay.ReplayCommand;
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

/**
 * {@code detector}: runs the detector's Kafka Streams application until SIGTERM / Ctrl-C, then
 * closes it cleanly (last commit, stores flushed). Lifecycle only: configuration is
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
        KafkaStreams streams = new KafkaStreams(DetectorTopology.build(settings), settings.streamsProperties());
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicInteger exit = new AtomicInteger(0);
        streams.setUncaughtExceptionHandler(e -> {
            err.println("detector: stopping after an unexpected error: " + e);
            err.flush();
            exit.set(1);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.NOT_RUNNING || now == KafkaStreams.State.ERROR) {
                stopped.countDown();
            }
        });
        // leave the group on the way out, so a replacement instance need not wait for our session timeout
        KafkaStreams.CloseOptions close = new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30));
        Thread hook = new Thread(() -> {
            streams.close(close);
            stopped.countDown();
        }, "detector-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        streams.start();
        out.printf("detector: %s running against %s; topics %snode-writes, %snode-capacity -> %sreports, %salerts, %sdlq%n",
                settings.applicationId(), settings.bootstrapServers(), settings.topicPrefix(), settings.topicPrefix(),
                settings.topicPrefix(), settings.topicPrefix(), settings.topicPrefix());
        out.flush();
        stopped.await();
        streams.close(close);
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running: that is how we got here
        }
        return exit.get();
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new DetectorApp()).execute(args));
    }
}
