package io.skewguard.migrator;

import io.skewguard.runtime.settings.SettingsOptions;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code skewguard migrator}: runs the migration phase as a Kafka Streams app. Lifecycle only: read
 * the settings ({@link MigratorSettings#MODEL}), start {@link MigratorTopology}, close cleanly on
 * SIGTERM.
 */
@Command(
        name = "migrator",
        mixinStandardHelpOptions = true,
        version = "skewguard migrator 0.1.0",
        usageHelpAutoWidth = true,
        sortOptions = false,
        modelTransformer = MigratorApp.Flags.class,
        description = "Repairs capacity skew by moving cold shards: plan, copy, two-phase switch, cleanup.")
public final class MigratorApp implements Callable<Integer> {

    static {
        // Log4j's own shutdown hook would stop logging while ours still closes Kafka Streams, losing
        // every line of the shutdown. Must run before the first logger is created.
        if (System.getProperty("log4j2.shutdownHookEnabled") == null) {
            System.setProperty("log4j2.shutdownHookEnabled", "false");
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(MigratorApp.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    /** The migrator's flags, from its settings model. */
    public static final class Flags extends SettingsOptions {
        public Flags() {
            super(MigratorSettings.MODEL);
        }
    }

    @Spec
    CommandSpec spec;

    private final Map<String, String> environment;

    public MigratorApp() {
        this(System.getenv());
    }

    MigratorApp(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new MigratorApp()).execute(args));
    }

    @Override
    public Integer call() {
        return SettingsOptions.run(spec, MigratorSettings.MODEL, environment, settings -> run(MigratorSettings.from(settings)));
    }

    private static int run(MigratorSettings settings) {
        LOG.info("starting migrator with {}", settings);
        KafkaStreams streams = new KafkaStreams(MigratorTopology.build(settings), MigratorTopology.streamsConfig(settings));
        CountDownLatch stopped = new CountDownLatch(1);
        int[] exitCode = {0};
        // listeners before start: Kafka Streams refuses a state listener afterwards
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.ERROR) {
                exitCode[0] = 1;
            }
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                stopped.countDown();
            }
        });
        // a replaced thread resumes from the last commit: a poison record would kill it forever
        streams.setUncaughtExceptionHandler(e -> {
            LOG.error("migrator stream thread failed; shutting down", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        Thread hook = new Thread(() -> {
            LOG.info("SIGTERM: closing the migrator (commits the open transaction, leaves the group)");
            boolean closed = close(streams);
            LOG.info("migrator {} (state {})", closed ? "closed cleanly" : "did not close within 30 s", streams.state());
            stopped.countDown();
            // a SIGTERM'd JVM would otherwise exit with 143 whatever the close did
            Runtime.getRuntime().halt(closed ? 0 : 1);
        }, "migrator-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        streams.start();
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            return exitCode[0]; // the hook stops the JVM
        }
        close(streams);
        return exitCode[0];
    }

    private static boolean close(KafkaStreams streams) {
        return streams.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(CLOSE_TIMEOUT));
    }
}
