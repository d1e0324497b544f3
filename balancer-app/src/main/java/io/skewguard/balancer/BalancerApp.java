package io.skewguard.balancer;

import io.skewguard.balancer.policy.ControllerSettings;
import io.skewguard.schemas.Topics;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;

/**
 * {@code skewguard balancer}: runs the weight phase (DESIGN.md section 4) as a Kafka Streams app.
 * Lifecycle only: parse the settings, start {@link BalancerTopology}, close cleanly on SIGTERM.
 *
 * <p>Settings come from the built-in defaults, then {@code --config FILE} (properties, same keys as
 * the flags without dashes), then environment variables {@code SKEWGUARD_BALANCER_<KEY>}, then the
 * flags; later wins.
 */
@Command(
        name = "balancer",
        mixinStandardHelpOptions = true,
        version = "skewguard balancer 0.1.0",
        usageHelpAutoWidth = true,
        sortOptions = false,
        description = "Steers new writes away from hot nodes by weight factors (the weight phase, no data moves).",
        footer = {"", "Every flag can also be set as KEY=VALUE in --config FILE or in the environment as "
                + "SKEWGUARD_BALANCER_<KEY> (e.g. SKEWGUARD_BALANCER_REPAIR_TARGET); flags override the "
                + "environment, which overrides the file."})
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

    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "Properties file with settings.")
    Path config;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]",
            defaultValue = BalancerSettings.DEFAULT_BOOTSTRAP_SERVERS,
            description = "Kafka bootstrap servers. Default: ${DEFAULT-VALUE}")
    String bootstrapServers;

    @Option(names = "--schema-registry-url", paramLabel = "URL",
            defaultValue = BalancerSettings.DEFAULT_SCHEMA_REGISTRY_URL,
            description = "Schema Registry URL, http(s)://... or mock://SCOPE. Default: ${DEFAULT-VALUE}")
    String schemaRegistryUrl;

    @Option(names = "--application-id", paramLabel = "ID", defaultValue = BalancerSettings.DEFAULT_APPLICATION_ID,
            description = "Kafka Streams application id. Default: ${DEFAULT-VALUE}")
    String applicationId;

    @Option(names = "--topic-prefix", paramLabel = "PREFIX", defaultValue = Topics.DEFAULT_PREFIX,
            description = "Prefix of every SkewGuard topic. Default: ${DEFAULT-VALUE}")
    String topicPrefix;

    @Option(names = "--clusters", paramLabel = "ID[,ID...]", defaultValue = "",
            description = "Clusters served; records of others go to the dead-letter topic. Default: all")
    String clusters;

    @Option(names = "--min-weight", paramLabel = "W", defaultValue = "" + ControllerSettings.DEFAULT_MIN_WEIGHT,
            description = "Lower bound of a weight factor. Default: ${DEFAULT-VALUE}")
    double minWeight;

    @Option(names = "--max-weight", paramLabel = "W", defaultValue = "" + ControllerSettings.DEFAULT_MAX_WEIGHT,
            description = "Upper bound of a weight factor. Default: ${DEFAULT-VALUE}")
    double maxWeight;

    @Option(names = "--max-step", paramLabel = "FRACTION", defaultValue = "" + ControllerSettings.DEFAULT_MAX_STEP,
            description = "Largest relative weight change per round. Default: ${DEFAULT-VALUE}")
    double maxStep;

    @Option(names = "--deadband", paramLabel = "FRACTION", defaultValue = "" + ControllerSettings.DEFAULT_DEADBAND,
            description = "Nodes with load ratio within 1 +/- this are left alone. Default: ${DEFAULT-VALUE}")
    double deadband;

    @Option(names = "--gain", paramLabel = "G", defaultValue = "" + ControllerSettings.DEFAULT_GAIN,
            description = "Exponent of the step w' = w * r^-G, in (0, 0.5]. Default: ${DEFAULT-VALUE}")
    double gain;

    @Option(names = "--repair-target", paramLabel = "GINI",
            defaultValue = "" + ControllerSettings.DEFAULT_REPAIR_TARGET,
            description = "A repair ends at this heat Gini or below. Default: ${DEFAULT-VALUE}")
    double repairTarget;

    @Option(names = "--round-interval", paramLabel = "DURATION", defaultValue = BalancerSettings.DEFAULT_ROUND_INTERVAL,
            description = "Least event time between two rounds of a cluster (2m, 90s, PT2M). Default: ${DEFAULT-VALUE}")
    String roundInterval;

    @Option(names = "--decay", paramLabel = "FRACTION", defaultValue = "" + ControllerSettings.DEFAULT_DECAY,
            description = "After a repair, fraction of log-weight given back toward 1.0 per round; 0 keeps "
                    + "the weights. Default: ${DEFAULT-VALUE}")
    double decay;

    @Option(names = "--commit-interval", paramLabel = "DURATION", defaultValue = BalancerSettings.DEFAULT_COMMIT_INTERVAL,
            description = "Kafka Streams commit (transaction) interval. Default: ${DEFAULT-VALUE}")
    String commitInterval;

    @Option(names = "--state-dir", paramLabel = "DIR", defaultValue = BalancerSettings.DEFAULT_STATE_DIR,
            description = "Kafka Streams state directory. Default: ${DEFAULT-VALUE}")
    String stateDir;

    @Option(names = "--replication-factor", paramLabel = "N",
            defaultValue = "" + BalancerSettings.DEFAULT_REPLICATION_FACTOR,
            description = "Replication factor of the changelog topic, -1 for the broker default. Default: ${DEFAULT-VALUE}")
    int replicationFactor;

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
    public Integer call() throws Exception {
        BalancerSettings settings = settings();
        LOG.info("starting balancer with {}", settings);
        KafkaStreams streams = new KafkaStreams(BalancerTopology.build(settings), settings.streamsProperties());
        CountDownLatch stopped = new CountDownLatch(1);
        int[] exitCode = {0};
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
            LOG.info("SIGTERM: closing the balancer (commits the open transaction)");
            boolean closed = streams.close(Duration.ofSeconds(30));
            LOG.info("balancer {} (state {})", closed ? "closed cleanly" : "did not close within 30 s",
                    streams.state());
            stopped.countDown();
        }, "balancer-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        streams.start();
        stopped.await();
        streams.close(Duration.ofSeconds(30));
        return exitCode[0];
    }

    /** The settings from defaults, the config file, the environment and the flags given. */
    BalancerSettings settings() throws IOException {
        Properties file = new Properties();
        if (config != null) {
            try (Reader in = Files.newBufferedReader(config)) {
                file.load(in);
            }
        }
        Map<String, String> flags = new LinkedHashMap<>();
        ParseResult parsed = spec.commandLine().getParseResult();
        for (OptionSpec option : spec.options()) {
            String key = option.longestName().replaceFirst("^--", "");
            if (parsed != null && parsed.hasMatchedOption(option) && BalancerSettings.DEFAULTS.containsKey(key)) {
                flags.put(key, String.valueOf((Object) option.getValue()));
            }
        }
        try {
            return BalancerSettings.resolve(file, environment, flags);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
    }
}
