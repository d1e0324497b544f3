package io.skewguard.balancer;

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

    /**
     * The topic check ({@link RequiredTopics}: a missing SkewGuard topic stops the start with exit
     * code 1 and the command that creates it, unless {@code create-topics=true}), then one
     * {@link StreamsService}, run by the shared {@link ProcessLifecycle}: listeners set before
     * start, a dying stream thread replaced only within the lifecycle's limit, SIGTERM closes it
     * (commit, leave the group) and the process ends with {@link io.skewguard.runtime.lifecycle.ExitCode}.
     */
    private static int run(BalancerSettings settings) {
        LOG.info("starting balancer with {}", settings);
        Settings s = settings.settings();
        return ProcessLifecycle.builder("balancer")
                .service(RequiredTopics.of(s))
                .service(RegistryProbe.of(s))
                .service(new StreamsService("balancer-streams", BalancerTopology.build(settings), settings.streamsProperties()))
                .healthEndpoint(s.string(CommonSettings.HEALTH_HOST), s.integer(CommonSettings.HEALTH_PORT))
                .build()
                .run();
    }
}
