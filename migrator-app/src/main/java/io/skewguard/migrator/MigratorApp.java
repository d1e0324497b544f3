package io.skewguard.migrator;

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
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code skewguard migrator}: runs the migration phase (DESIGN.md section 5) as a Kafka Streams app.
 * Lifecycle only: resolve the settings, start {@link MigratorTopology}, close cleanly on SIGTERM.
 *
 * <p>Every setting of {@link MigratorSettings} is a flag {@code --<name>} whose default shows in
 * {@code --help}; the same names are keys of the {@code --config} properties file and, as
 * {@code SKEWGUARD_MIGRATOR_<NAME>}, environment variables. Flags override the environment, which
 * overrides the file.
 */
@Command(
        name = "migrator",
        mixinStandardHelpOptions = true,
        version = "skewguard migrator 0.1.0",
        usageHelpAutoWidth = true,
        sortOptions = false,
        defaultValueProvider = MigratorApp.Defaults.class,
        description = "Repairs capacity skew by moving cold shards: plan, copy, two-phase switch, cleanup.",
        footer = {"", "Every flag can also be set as NAME=VALUE in --config FILE (e.g. max-parallel=8) or in the "
                + "environment as SKEWGUARD_MIGRATOR_<NAME> (e.g. SKEWGUARD_MIGRATOR_MAX_PARALLEL); flags override "
                + "the environment, which overrides the file. Durations: PT30S or milliseconds."})
public final class MigratorApp implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(MigratorApp.class);

    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "Properties file with settings (NAME=VALUE).")
    Path config;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT[,...]", description = "Kafka bootstrap servers. Default: ${DEFAULT-VALUE}")
    String bootstrapServers;

    @Option(names = "--schema-registry-url", paramLabel = "URL",
            description = "Schema Registry URL, http(s)://... or mock://SCOPE. Default: ${DEFAULT-VALUE}")
    String schemaRegistryUrl;

    @Option(names = "--application-id", paramLabel = "ID", description = "Kafka Streams application id. Default: ${DEFAULT-VALUE}")
    String applicationId;

    @Option(names = "--topic-prefix", paramLabel = "PREFIX", description = "Prefix of every SkewGuard topic. Default: ${DEFAULT-VALUE}")
    String topicPrefix;

    @Option(names = "--state-dir", paramLabel = "DIR", description = "Kafka Streams state directory. Default: ${DEFAULT-VALUE}")
    String stateDir;

    @Option(names = "--target-cv", paramLabel = "CV", description = "A repair runs until the capacity CV is at or below this. Default: ${DEFAULT-VALUE}")
    String targetCv;

    @Option(names = "--overshoot", paramLabel = "FRACTION",
            description = "A source gives away at most (1 + this) x its excess over the target utilisation. Default: ${DEFAULT-VALUE}")
    String overshoot;

    @Option(names = "--max-parallel", paramLabel = "N", description = "Most migrations in one switch batch (disjoint node pairs). Default: ${DEFAULT-VALUE}")
    String maxParallel;

    @Option(names = "--max-consecutive-aborts", paramLabel = "N",
            description = "A repair stops (FAILED status) after this many aborted batches in a row. Default: ${DEFAULT-VALUE}")
    String maxConsecutiveAborts;

    @Option(names = "--max-bytes-per-sec", paramLabel = "BYTES",
            description = "Migration bandwidth budget of a cluster at low write load, shared by a batch's copies. Default: ${DEFAULT-VALUE}")
    String maxBytesPerSec;

    @Option(names = "--low-load", paramLabel = "FRACTION",
            description = "Write load (rate / decaying peak) up to which the budget is full. Default: ${DEFAULT-VALUE}")
    String lowLoad;

    @Option(names = "--high-load", paramLabel = "FRACTION", description = "Write load from which the budget is at its floor. Default: ${DEFAULT-VALUE}")
    String highLoad;

    @Option(names = "--budget-floor", paramLabel = "FRACTION", description = "Share of the budget left at peak load, > 0. Default: ${DEFAULT-VALUE}")
    String budgetFloor;

    @Option(names = "--peak-half-life", paramLabel = "DURATION", description = "Half-life of the remembered peak write rate. Default: ${DEFAULT-VALUE}")
    String peakHalfLife;

    @Option(names = "--copy-stall-timeout", paramLabel = "DURATION",
            description = "A COPY without any answer for this long aborts its batch. Default: ${DEFAULT-VALUE}")
    String copyStallTimeout;

    @Option(names = "--prepare-timeout", paramLabel = "DURATION",
            description = "Every PREPARE of a batch must be answered within this, or the batch aborts. Default: ${DEFAULT-VALUE}")
    String prepareTimeout;

    @Option(names = "--retry-interval", paramLabel = "DURATION",
            description = "Unanswered COMMIT and CLEANUP are sent again after this. Default: ${DEFAULT-VALUE}")
    String retryInterval;

    @Option(names = "--abort-timeout", paramLabel = "DURATION",
            description = "Wait this long for ABORT answers before freeing the nodes. Default: ${DEFAULT-VALUE}")
    String abortTimeout;

    @Option(names = "--tick-interval", paramLabel = "DURATION", description = "Wall-clock punctuation driving the timeouts. Default: ${DEFAULT-VALUE}")
    String tickInterval;

    @Option(names = "--commit-interval", paramLabel = "DURATION",
            description = "Kafka Streams commit (transaction) interval, exactly_once_v2. Default: ${DEFAULT-VALUE}")
    String commitInterval;

    @Option(names = "--slot-count", paramLabel = "S", description = "Slots of a slot table built from the ring. Default: ${DEFAULT-VALUE}")
    String slotCount;

    @Option(names = "--candidates", paramLabel = "M", description = "Candidate-set size of a slot table built from the ring. Default: ${DEFAULT-VALUE}")
    String candidates;

    @Option(names = "--vnodes-per-unit", paramLabel = "N", description = "Ring points per unit of node weight. Default: ${DEFAULT-VALUE}")
    String vnodesPerUnit;

    @Option(names = "--maintenance-factor", paramLabel = "F",
            description = {"After a repair reached target-cv, a capacity CV above F x target-cv for maintenance-hold",
                    "(in the reports) starts a maintenance repair without waiting for the detector's alert; 0 = off.",
                    "Default: ${DEFAULT-VALUE}"})
    String maintenanceFactor;

    @Option(names = "--maintenance-hold", paramLabel = "DURATION",
            description = "How long the CV must stay above the maintenance level. Default: ${DEFAULT-VALUE}")
    String maintenanceHold;

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

    /** Shows each setting's default in {@code --help}; the resolution itself is {@link #settings()}. */
    public static final class Defaults implements CommandLine.IDefaultValueProvider {
        @Override
        public String defaultValue(ArgSpec arg) {
            if (arg instanceof OptionSpec option && option.longestName().startsWith("--")) {
                return MigratorSettings.defaults().get(option.longestName().substring(2));
            }
            return null;
        }
    }

    /** The settings: defaults, then the file, then the environment, then the flags given. */
    MigratorSettings settings() throws IOException {
        Map<String, String> file = new LinkedHashMap<>();
        if (config != null) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(config)) {
                p.load(r);
            }
            p.stringPropertyNames().forEach(k -> file.put(k, p.getProperty(k)));
        }
        Map<String, String> flags = new LinkedHashMap<>();
        CommandLine.ParseResult parsed = spec.commandLine().getParseResult();
        for (OptionSpec option : spec.options()) {
            String name = option.longestName().substring(2);
            if (MigratorSettings.defaults().containsKey(name) && parsed != null && parsed.hasMatchedOption(option)) {
                flags.put(name, option.getValue().toString());
            }
        }
        return MigratorSettings.resolve(file, environment, flags);
    }

    @Override
    public Integer call() throws Exception {
        MigratorSettings settings = settings();
        LOG.info("starting migrator with {}", settings);
        KafkaStreams streams = new KafkaStreams(MigratorTopology.build(settings), MigratorTopology.streamsConfig(settings));
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
            LOG.error("migrator stream thread failed; replacing it", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        Thread hook = new Thread(() -> {
            LOG.info("shutting down migrator");
            streams.close(Duration.ofSeconds(30));
            stopped.countDown();
        }, "migrator-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        streams.start();
        stopped.await();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is what stopped us
        }
        streams.close(Duration.ofSeconds(30));
        return exitCode[0];
    }
}
