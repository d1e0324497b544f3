package io.skewguard.dashboard;

import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.settings.SettingsOptions;
import io.skewguard.runtime.settings.Validator;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.schemas.Topics;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code skewguard dashboard}: serves the live dashboard of the clusters whose loop runs on the given
 * Kafka, until SIGTERM or Ctrl-C. Settings as in every app ({@link #MODEL}): flags,
 * {@code --config FILE} (SASL/SSL client keys), {@code SKEWGUARD_DASHBOARD_*}.
 */
@Command(name = "dashboard", mixinStandardHelpOptions = true, modelTransformer = DashboardCommand.Flags.class,
        description = {"Serves a live web page of the loop: heat Gini and capacity CV over the last hours with thresholds and alert states, per-node utilisation and weight factor, running migrations by phase with copy progress, and the decision log. The page updates without reload and needs nothing from the internet.",
                "It reads the topics only (from the beginning, no consumer group, nothing written) and prints its URL once it serves.",
                "Exit code: 0 stopped by a signal, 2 a bad setting, 3 Kafka failed, a topic is missing or the port cannot be bound."})
public final class DashboardCommand implements Callable<Integer> {

    /** Exit code when Kafka cannot be reached, a topic is missing or the port is taken. */
    public static final int FAILED = 3;

    public static final String CLUSTER = "cluster";
    public static final String PORT = "port";
    public static final String HOST = "host";
    public static final String HISTORY = "history";
    public static final String MAX_DECISIONS = "max-decisions";

    /** The settings of {@code skewguard dashboard}. */
    public static final SettingsModel MODEL = SettingsModel.builder("dashboard")
            .description("Serves the live web dashboard of the loop (reads the topics, writes nothing).")
            .add(CommonSettings.bootstrapServers(),
                    CommonSettings.schemaRegistryUrl(),
                    CommonSettings.topicPrefix(),
                    Setting.string(CLUSTER, "", "The one cluster to show; empty: every cluster seen on the topics (the page "
                            + "offers a choice)."),
                    Setting.integer(PORT, 8088, "Port the page is served on; 0 picks a free port (the URL printed at start "
                            + "tells which).").validatedBy(Validator.between(0, 65535)),
                    Setting.string(HOST, "127.0.0.1", "Address the page is served on (0.0.0.0 to serve other machines too; the "
                            + "page has no authentication).").validatedBy(Validator.notBlank()),
                    Setting.duration(HISTORY, "6h", "How far back from the newest report the charts reach (report time).")
                            .validatedBy(Validator.positive()),
                    Setting.integer(MAX_DECISIONS, 200, "Decision-log entries kept per cluster (alert transitions, weight rounds, "
                            + "batches, commits, aborts, membership changes); the oldest go first.")
                            .validatedBy(Validator.between(1, 100_000)))
            .fixes("isolation.level", "read_committed",
                    "the apps write their topics in exactly-once transactions; aborted records must not be shown")
            .build();

    @Spec
    CommandSpec spec;

    private final Map<String, String> environment;
    private final CountDownLatch stop = new CountDownLatch(1);

    public DashboardCommand() {
        this(System.getenv());
    }

    /** With {@code environment} instead of the process's (for tests and embedders). */
    public DashboardCommand(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    /** The flags of {@link #MODEL}. */
    public static final class Flags extends SettingsOptions {
        public Flags() {
            super(MODEL);
        }
    }

    /** Asks a running {@link #call()} to stop (as SIGTERM does). */
    public void stop() {
        stop.countDown();
    }

    @Override
    public Integer call() {
        return SettingsOptions.run(spec, MODEL, environment, settings -> {
            PrintWriter out = spec.commandLine().getOut();
            PrintWriter err = spec.commandLine().getErr();
            String cluster = settings.string(CLUSTER).strip();
            if (!cluster.isEmpty()) {
                var bad = StateLimits.checkId("cluster", cluster);
                if (bad.isPresent()) {
                    err.println("dashboard: --cluster: " + bad.get().replaceFirst("^invalid: ", ""));
                    return SettingsOptions.BAD_SETTINGS;
                }
            }
            ViewLimits limits = ViewLimits.defaults().withHistory(settings.duration(HISTORY))
                    .withMaxDecisions(settings.integer(MAX_DECISIONS));
            Dashboard dashboard;
            try {
                dashboard = Dashboard.start(settings.clientProperties(ClientType.CONSUMER), settings.serdeConfig(),
                        new Topics(settings.string(CommonSettings.TOPIC_PREFIX)), cluster.isEmpty() ? null : cluster, limits,
                        settings.string(HOST), settings.integer(PORT));
            } catch (ConfigException e) {
                err.println("dashboard: " + e.getMessage());
                return SettingsOptions.BAD_SETTINGS;
            } catch (IllegalStateException | UncheckedIOException e) {
                err.println("dashboard: " + e.getMessage());
                return FAILED;
            } catch (KafkaException e) {
                err.println("dashboard: Kafka failed: " + e.getMessage());
                return FAILED;
            }
            Thread hook = new Thread(stop::countDown, "skewguard-dashboard-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
            try (dashboard) {
                out.println("dashboard: serving " + dashboard.url() + (cluster.isEmpty() ? "" : "?cluster=" + cluster));
                out.flush();
                while (!stop.await(1, TimeUnit.SECONDS)) {
                    if (dashboard.failure().isPresent()) {
                        err.println("dashboard: stopped following the topics: " + dashboard.failure().get());
                        return FAILED;
                    }
                }
                return 0;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 0;
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running: it only counts the latch down
                }
            }
        });
    }
}
