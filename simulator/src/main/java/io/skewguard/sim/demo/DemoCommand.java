package io.skewguard.sim.demo;

import io.skewguard.dashboard.Dashboard;
import io.skewguard.dashboard.ViewLimits;
import io.skewguard.schemas.Topics;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioException;
import io.skewguard.sim.scenario.ScenarioParser;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code skewguard demo}: the whole loop in one JVM — a Kafka broker (KRaft, 127.0.0.1), the
 * {@code mock://} registry, the detector, balancer and migrator as Kafka Streams applications, and a
 * simulated cluster whose agents, reporters and writers talk to them only through Kafka. Runs a
 * short scenario with accelerated time, shows a progress line on stderr, prints the table next to
 * the paper's figures on stdout and writes the HTML report. Ctrl-C stops everything cleanly.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {"Runs the whole SkewGuard loop on an embedded Kafka broker in one command:",
                "a simulated cluster with skewed capacity and heat, the real detector, balancer and migrator,",
                "weights steering writes and cold shards migrating, with a live progress line and a report."})
public final class DemoCommand implements Callable<Integer> {

    private static final String SCENARIO_DIR = "demo/";

    @Option(names = "--scenario", paramLabel = "NAME|FILE", defaultValue = "demo",
            description = "a demo scenario (see --list) or a scenario file in the simulator's format (default: ${DEFAULT-VALUE})")
    String scenarioName;

    @Option(names = "--speed", paramLabel = "X",
            description = "simulated seconds per wall second (default: the scenario's duration in about 3 minutes)")
    Double speed;

    @Option(names = "--writes-per-step", paramLabel = "N", defaultValue = "1000",
            description = "keys written per simulated step (default: ${DEFAULT-VALUE}; fewer make the window's heat Gini noisier)")
    int writesPerStep;

    @Option(names = "--fill-keys", paramLabel = "N", defaultValue = "20000",
            description = "keys of starting data (default: ${DEFAULT-VALUE})")
    int fillKeys;

    @Option(names = "--report", paramLabel = "DIR", defaultValue = "skewguard-report",
            description = "write report.html and summary.json into DIR (default: ./${DEFAULT-VALUE})")
    Path reportDir;

    @Option(names = "--no-report", description = "write no report")
    boolean noReport;

    @Option(names = "--keep", description = "keep the broker's data and the state directories (their paths are printed)")
    boolean keep;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT",
            description = "use this Kafka instead of starting one (topics get a per-run prefix unless --topic-prefix)")
    String bootstrapServers;

    @Option(names = "--schema-registry-url", paramLabel = "URL",
            description = "use this schema registry (http://… or mock://scope) instead of an in-process one")
    String schemaRegistryUrl;

    @Option(names = "--topic-prefix", paramLabel = "PREFIX",
            description = "prefix of every topic (default: skew. on the embedded broker, skewguard-demo-<run>. on an existing one)")
    String topicPrefix;

    @Option(names = "--client-config-dir", paramLabel = "DIR",
            description = {"with --bootstrap-servers: Kafka client properties files, one per principal (a secured cluster, "
                    + "docs/security.md): detector, balancer, migrator, agent-<node> for every node, and demo (its own writers, "
                    + "observer and topic creation), each DIR/<name>.properties"})
    Path clientConfigDir;

    @Option(names = "--run-id", paramLabel = "ID",
            description = "the run's id in application ids (skewguard-demo-<ID>-detector, …) and the registry scope; "
                    + "give one to set ACLs for the apps before the run (default: random)")
    String runIdOption;

    @Option(names = "--list", description = "list the demo scenarios")
    boolean list;

    @Option(names = "--quiet", description = "no progress line")
    boolean quiet;

    @Option(names = "--dashboard-port", paramLabel = "PORT", defaultValue = "8088",
            description = "serve the live dashboard on 127.0.0.1:PORT while the demo runs; a free port if it is taken, 0 for any free port "
                    + "(default: ${DEFAULT-VALUE})")
    int dashboardPort;

    @Option(names = "--no-dashboard", description = "serve no dashboard")
    boolean noDashboard;

    private final PrintStream out;
    private final PrintStream err;
    private volatile DemoRun current;
    private final AtomicReference<Dashboard> dashboard = new AtomicReference<>();
    private volatile DemoOutcome lastOutcome;

    public DemoCommand() {
        this(System.out, System.err);
    }

    DemoCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** The outcome of the last {@link #call()}, for tests. */
    DemoOutcome lastOutcome() {
        return lastOutcome;
    }

    /** The run in progress, for tests. */
    DemoRun current() {
        return current;
    }

    @Override
    public Integer call() throws Exception {
        if (list) {
            for (String name : shipped()) {
                Scenario s = load(name);
                out.printf(Locale.ROOT, "%-18s %s%n", name, s.description());
            }
            return 0;
        }
        DemoSettings settings;
        try {
            settings = settings();
        } catch (ScenarioException | IllegalArgumentException e) {
            err.println("demo: " + e.getMessage());
            return 2;
        }
        Scenario scenario = settings.scenario();
        err.printf(Locale.ROOT, "demo: scenario %s — %s%n", scenario.name(), scenario.description());
        err.printf(Locale.ROOT, "demo: %d nodes, %d slots, candidate sets of %d; %s simulated in steps of %s at %.0f× "
                        + "(about %d s of wall time)%n", scenario.nodes().size(), scenario.slots(), scenario.candidates(),
                duration(scenario.durationMillis()), duration(scenario.stepMillis()), settings.speed(),
                settings.plannedWall().toSeconds());
        err.println(settings.embeddedBroker()
                ? "demo: starting a Kafka broker, the mock:// registry, the detector, the balancer and the migrator in this JVM…"
                : "demo: using Kafka at " + settings.bootstrapServers() + " (topics " + settings.topicPrefix() + "*), registry "
                        + settings.registryUrl() + "; starting the detector, the balancer and the migrator…");

        boolean terminal = System.console() != null && !quiet;
        int width = terminalWidth();
        DemoRun run = new DemoRun(settings, p -> {
            if (quiet) {
                return;
            }
            if (terminal) {
                // refreshed in place: a line wider than the terminal would wrap and \r could not redraw it
                String line = p.line();
                err.print("\r" + (line.length() > width ? line.substring(0, width) : line) + "\033[K");
            } else {
                err.println(p.line());
            }
            err.flush();
        }, stack -> {
            err.printf(Locale.ROOT, "demo: Kafka on %s, detector, balancer and migrator running; "
                    + "laying down the starting data…%n", stack.bootstrapServers());
            if (!noDashboard) {
                startDashboard(settings, stack);
            }
        });
        current = run;
        CountDownLatch mainDone = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            err.println();
            err.println("demo: stopping (apps, broker and temporary files are being closed)…");
            run.stop();
            try {
                mainDone.await(15, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                closeDashboard();
                run.close();
                err.println("demo: stopped cleanly");
            } catch (RuntimeException e) {
                err.println("demo: stopped, but closing failed: " + e.getMessage());
            }
        }, "skewguard-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        DemoOutcome outcome;
        try {
            outcome = run.run();
            if (terminal) {
                err.println();
            }
            if (settings.keep() && run.stack() != null) {
                err.println("demo: kept " + run.stack().workDir()
                        + (run.stack().brokerDataDir() == null ? "" : " and " + run.stack().brokerDataDir()));
            }
        } catch (RuntimeException e) {
            if (terminal) {
                err.println();
            }
            err.println("demo: failed: " + e.getMessage());
            mainDone.countDown();
            closeUnlessShuttingDown(run, hook, this::closeDashboard);
            throw e;
        } finally {
            mainDone.countDown();
        }
        closeUnlessShuttingDown(run, hook, this::closeDashboard);
        lastOutcome = outcome;
        if (!outcome.completed()) {
            return 130;
        }

        out.print(DemoReport.table(scenario, outcome));
        out.printf(Locale.ROOT, "loop: %d weight commands in %d rounds; %d migrations committed (slot-table routing epoch %d), "
                        + "%d aborted; %s moved; %d of %d keys readable%n",
                outcome.weightCommands(), outcome.weightRounds(), outcome.migrationsCommitted(), outcome.routingEpoch(),
                outcome.migrationsAborted(), DemoReport.bytes(outcome.bytesMoved()), outcome.keysWritten() - outcome.keysUnreadable(),
                outcome.keysWritten());
        outcome.played().forEach(line -> out.println("scenario: " + line));
        DemoReport.membershipLines(outcome).forEach(line -> out.println("membership: " + line));
        out.printf(Locale.ROOT, "wall time %.1f s for %s of simulated time%n", outcome.wallSeconds(), duration(outcome.simulatedMillis()));
        if (!noReport) {
            Path html = DemoReport.write(reportDir, scenario, outcome);
            out.println("wrote " + html + " and " + reportDir.resolve("summary.json"));
        }
        return outcome.keysUnreadable() == 0 ? 0 : 1;
    }

    /** {@code $COLUMNS} when the shell exports it, else 160. */
    private static int terminalWidth() {
        try {
            String columns = System.getenv("COLUMNS");
            return columns == null ? 160 : Math.max(40, Integer.parseInt(columns.trim()) - 1);
        } catch (NumberFormatException e) {
            return 160;
        }
    }

    private static void closeUnlessShuttingDown(DemoRun run, Thread hook, Runnable first) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            return; // the hook closes the run
        }
        first.run();
        run.close();
    }

    /**
     * Serves the dashboard of the demo's cluster on 127.0.0.1 and prints its URL on stdout; a port
     * that is taken gives way to a free one, and a dashboard that cannot start at all is only a
     * warning (the demo runs without it).
     */
    private void startDashboard(DemoSettings settings, EmbeddedStack stack) {
        Properties consumer = new Properties();
        consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers());
        consumer.put(ConsumerConfig.CLIENT_ID_CONFIG, settings.applicationId("dashboard"));
        // the whole run on the charts: the scenario's simulated time and the hour before it
        ViewLimits limits = ViewLimits.defaults().withHistory(Duration.ofMillis(settings.scenario().durationMillis()).plusHours(1));
        Map<String, Object> serde = Map.of("schema.registry.url", settings.registryUrl());
        try {
            Dashboard d;
            try {
                d = Dashboard.start(consumer, serde, settings.topics(), DemoSettings.CLUSTER, limits, "127.0.0.1", dashboardPort);
            } catch (UncheckedIOException taken) {
                if (dashboardPort == 0) {
                    throw taken;
                }
                d = Dashboard.start(consumer, serde, settings.topics(), DemoSettings.CLUSTER, limits, "127.0.0.1", 0);
            }
            dashboard.set(d);
            out.println("demo: dashboard at " + d.url());
            out.flush();
        } catch (RuntimeException e) {
            err.println("demo: no dashboard (" + e.getMessage() + "); the demo runs without it");
        }
    }

    private void closeDashboard() {
        Dashboard d = dashboard.getAndSet(null);
        if (d != null) {
            d.close();
        }
    }

    DemoSettings settings() {
        Scenario scenario = resolve(scenarioName);
        double x = speed != null ? speed : Math.max(1.0, scenario.durationMillis() / 180_000.0);
        if (runIdOption != null && !runIdOption.matches("[A-Za-z0-9-]{1,40}")) {
            throw new IllegalArgumentException("--run-id must be 1 to 40 letters, digits or '-', was '" + runIdOption + "'");
        }
        String runId = runIdOption != null ? runIdOption : UUID.randomUUID().toString().substring(0, 8);
        String prefix = topicPrefix != null ? topicPrefix
                : bootstrapServers == null ? Topics.DEFAULT_PREFIX : "skewguard-demo-" + runId + ".";
        return new DemoSettings(scenario, x, writesPerStep, fillKeys, bootstrapServers, schemaRegistryUrl, prefix, runId, keep,
                clientConfigDir);
    }

    /** A demo scenario by name, or a scenario file. */
    static Scenario resolve(String nameOrPath) {
        Path path = Path.of(nameOrPath);
        if (Files.isRegularFile(path)) {
            try {
                return ScenarioParser.parse(path.toString(), Files.readString(path, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalArgumentException("cannot read " + path + ": " + e.getMessage(), e);
            }
        }
        if (shipped().contains(nameOrPath)) {
            return load(nameOrPath);
        }
        throw new IllegalArgumentException("no scenario file '" + nameOrPath + "' and no demo scenario of that name; demo scenarios: "
                + String.join(", ", shipped()));
    }

    static List<String> shipped() {
        List<String> names = new ArrayList<>();
        for (String line : resource(SCENARIO_DIR + "index.txt").split("\n")) {
            String name = line.strip();
            if (!name.isEmpty() && !name.startsWith("#")) {
                names.add(name);
            }
        }
        return names;
    }

    static Scenario load(String name) {
        String file = name + ".properties";
        return ScenarioParser.parse(SCENARIO_DIR + file, resource(SCENARIO_DIR + file));
    }

    private static String resource(String name) {
        try (InputStream in = DemoCommand.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("resource " + name + " is missing from the simulator's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static String duration(long millis) {
        if (millis % 3_600_000 == 0) {
            return millis / 3_600_000 + " h";
        }
        if (millis % 60_000 == 0) {
            return millis / 60_000 + " min";
        }
        return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
    }
}
