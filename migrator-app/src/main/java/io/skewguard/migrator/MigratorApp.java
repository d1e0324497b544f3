package io.skewguard.migrator;

import io.skewguard.runtime.lifecycle.ProcessLifecycle;
import io.skewguard.runtime.lifecycle.StreamsService;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsOptions;
import io.skewguard.runtime.registry.RegistryProbe;
import io.skewguard.runtime.topics.RequiredTopics;
import java.util.Map;
import java.util.concurrent.Callable;
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

    /**
     * The topic check ({@link RequiredTopics}: a missing SkewGuard topic stops the start with exit
     * code 1 and the command that creates it, unless {@code create-topics=true}), then one
     * {@link StreamsService}, run by the shared {@link ProcessLifecycle}: listeners set before
     * start, a dying stream thread replaced only within the lifecycle's limit, SIGTERM closes it
     * (commit, leave the group) and the process ends with {@link io.skewguard.runtime.lifecycle.ExitCode}.
     */
    private static int run(MigratorSettings settings) {
        LOG.info("starting migrator with {}", settings);
        Settings s = settings.settings();
        return ProcessLifecycle.builder("migrator")
                .service(RequiredTopics.of(s))
                .service(RegistryProbe.of(s))
                .service(new StreamsService("migrator-streams", MigratorTopology.build(settings), MigratorTopology.streamsConfig(settings)))
                .healthEndpoint(s.string(CommonSettings.HEALTH_HOST), s.integer(CommonSettings.HEALTH_PORT))
                .build()
                .run();
    }
}
