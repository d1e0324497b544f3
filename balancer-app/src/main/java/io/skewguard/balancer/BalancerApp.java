package io.skewguard.balancer;

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
 * {@code skewguard balancer}: runs the weight phase as a Kafka Streams app. Lifecycle only: read
 * the settings ({@link BalancerSettings#MODEL}), start {@link BalancerTopology}, close cleanly on
 * SIGTERM.
 */
@Command(
        name = "balancer",
        mixinStandardHelpOptions = true,
        version = "skewguard balancer 0.1.0",
        usageHelpAutoWidth = true,
        sortOptions = false,
        modelTransformer = BalancerApp.Flags.class,
        description = "Steers new writes away from hot nodes by weight factors (the weight phase, no data moves).")
public final class BalancerApp implements Callable<Integer> {

    static {
        // Log4j's own shutdown hook would stop logging while ours still closes Kafka Streams, losing
        // every line of the shutdown; console appenders flush per line, so nothing is lost without it.
        // Must run before the first logger is created (class initialisation runs in textual order).
        if (System.getProperty("log4j2.shutdownHookEnabled") == null) {
            System.setProperty("log4j2.shutdownHookEnabled", "false");
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(BalancerApp.class);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

    /** The balancer's flags, from its settings model. */
    public static final class Flags extends SettingsOptions {
        public Flags() {
            super(BalancerSettings.MODEL);
        }
    }

    @Spec
    CommandSpec spec;

    private final Map<String, String> environment;

    public BalancerApp() {
        this(System.getenv());
    }

    BalancerApp(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new BalancerApp()).execute(args));
    }

    @Override
    public Integer call() {
        return SettingsOptions.run(spec, BalancerSettings.MODEL, environment, settings -> run(BalancerSettings.from(settings)));
    }

    private static int run(BalancerSettings settings) {
        LOG.info("starting balancer with {}", settings);
        KafkaStreams streams = new KafkaStreams(BalancerTopology.build(settings), settings.streamsProperties());
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
        streams.setUncaughtExceptionHandler(e -> {
            LOG.error("balancer stream thread failed; shutting down", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        Thread hook = new Thread(() -> {
            LOG.info("SIGTERM: closing the balancer (commits the open transaction, leaves the group)");
            boolean closed = close(streams);
            LOG.info("balancer {} (state {})", closed ? "closed cleanly" : "did not close within 30 s", streams.state());
            stopped.countDown();
            // a SIGTERM'd JVM would otherwise exit with 143 whatever the close did
            Runtime.getRuntime().halt(closed ? 0 : 1);
        }, "balancer-shutdown");
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
