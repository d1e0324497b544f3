package io.skewguard.trials;

import io.skewguard.agent.AgentCommand;
import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.state.StateFile;
import io.skewguard.balancer.BalancerApp;
import io.skewguard.detector.DetectorApp;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.migrator.MigratorApp;
import io.skewguard.runtime.topics.TopicPlan;
import io.skewguard.runtime.topics.TopicProvisioner;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.testkit.AppProcess;
import io.skewguard.testkit.RegistryOverHttp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole loop as separate JVMs against one broker: the detector, the balancer, the migrator, and
 * one agent service hosting a small simulated cluster ({@value #NODES} nodes in RocksDB stores) with
 * a load writer that writes keys through the real router and records each completed write in its
 * journal. Every process is started the way a deployment starts it ({@code --config FILE}), from
 * this module's class path, each with its own health port, output file per start, and state or
 * data directory that survives its kill.
 *
 * <p>A stack owns its topics (prefix {@code <name>.}), its application ids, its registry scope
 * (served over HTTP to the children, read through {@code mock://} by the test), so several stacks
 * can run one after another on one broker. Time is scaled down (detector tick 1 s, cooldown 3 s,
 * balancer rounds every second, 200 ms transactions, copies of a few kB/s), so a repair with
 * migrations in flight is under way about 20 s after the start.
 */
final class TrialStack implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TrialStack.class);

    /** The processes of a stack. */
    enum App {
        DETECTOR(DetectorApp.class), BALANCER(BalancerApp.class), MIGRATOR(MigratorApp.class), AGENT(AgentCommand.class);

        final Class<?> main;

        App(Class<?> main) {
            this.main = main;
        }

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** The trials' broker: consumer sessions may be as short as 1 s (Kafka's lowest default is 6 s). */
    static EmbeddedKafka.Builder trialBroker() {
        return EmbeddedKafka.builder().brokerProperty("group.min.session.timeout.ms", "1000");
    }

    static final String CLUSTER = "c1";
    static final int NODES = 4;
    static final int SLOTS = 16;
    static final int CANDIDATES = 2;
    static final Duration START = Duration.ofSeconds(120);
    /**
     * The load's draws (which slots are hot): one that makes the ring of these four nodes skewed, heat
     * Gini about 0.34 with equal weights, so that every trial gets a confirmed HEAT alert and weight
     * rounds; a trial's own seed decides its kills.
     */
    static final long LOAD_SEED = 7;
    /** Child JVMs start fast and leave the two cores to the others: C1 only, serial GC. */
    private static final List<String> JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k",
            "-XX:CICompilerCount=1", "-Xshare:auto");

    private final EmbeddedKafka broker;
    private final Path dir;
    private final String name;
    private final Topics topics;
    private final RegistryOverHttp registry;
    private final Map<App, Integer> healthPorts = new EnumMap<>(App.class);
    private final Map<App, AppProcess> running = new EnumMap<>(App.class);
    private final Map<App, Integer> starts = new EnumMap<>(App.class);
    private final Map<App, Map<String, String>> overrides = new EnumMap<>(App.class);
    private final List<String> nodes = IntStream.rangeClosed(1, NODES).mapToObj(i -> "n" + i).toList();

    /**
     * A stack named {@code name} (letters, digits, '-'), its files under {@code dir}. Nothing runs
     * until {@link #start()}.
     */
    TrialStack(EmbeddedKafka broker, Path dir, String name) {
        this.broker = broker;
        this.dir = dir;
        this.name = name;
        this.topics = new Topics(name + ".");
        this.registry = RegistryOverHttp.serve(scope());
        for (App app : App.values()) {
            healthPorts.put(app, AppProcess.freePort());
            starts.put(app, 0);
            overrides.put(app, new LinkedHashMap<>());
        }
    }

    String name() {
        return name;
    }

    Topics topics() {
        return topics;
    }

    List<String> nodes() {
        return nodes;
    }

    EmbeddedKafka broker() {
        return broker;
    }

    /** The registry scope the children's registry serves: {@code mock://<scope>} in this JVM. */
    String scope() {
        return "trial-" + name;
    }

    Map<String, Object> serdeConfig() {
        return Map.of("schema.registry.url", "mock://" + scope());
    }

    /** The consumer group of hosted {@code node}'s command agent. */
    static String agentGroup(String node) {
        return "skewguard-agent-" + node;
    }

    String applicationId(App app) {
        return name + "-" + app.label();
    }

    Path dataDir() {
        return dir.resolve("agent-data");
    }

    Path journal() {
        return dir.resolve("load.journal");
    }

    Path stateFile(String node) {
        return dataDir().resolve(node).resolve("agent.state");
    }

    /**
     * What hosted {@code node}'s agent has saved as applied, read from a copy of its state file:
     * {@code StateFile.load} is the agent's own start-up step and removes a temporary file of a save
     * under way, so the running agent's file is never loaded in place.
     */
    AgentState appliedState(String node) {
        Path copy = dir.resolve("state-copies").resolve(node).resolve("agent.state");
        try {
            Files.createDirectories(copy.getParent());
            if (!Files.exists(stateFile(node))) {
                return AgentState.initial(node);
            }
            // the agent replaces its file by a rename: a copy holds the old or the new state, whole
            Files.copy(stateFile(node), copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (java.nio.file.NoSuchFileException e) {
            return AgentState.initial(node);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + stateFile(node), e);
        }
        return new StateFile(copy).load(node);
    }

    Path storeDir(String node) {
        return dataDir().resolve(node).resolve("store");
    }

    /** Creates every topic, as {@code skewguard topics create} would with 2 partitions per node-keyed topic. */
    void createTopics() {
        TopicPlan defaults = TopicPlan.defaults(topics.prefix());
        try (TopicProvisioner provisioner = new TopicProvisioner(broker.adminClient(), broker.bootstrapServers(), START)) {
            provisioner.create(new TopicPlan(topics.prefix(), 2, 1, defaults.replicationFactor(),
                    defaults.eventRetention(), defaults.commandRetention(), defaults.deadLetterRetention()));
        }
    }

    /** A setting of {@code app} for its next starts (a restart included), over the stack's own. */
    void set(App app, String key, String value) {
        overrides.get(app).put(key, value);
    }

    /** Starts all four processes at once and waits until each is ready. */
    void start() {
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        for (App app : App.values()) {
            AppProcess p = launch(app);
            ready.add(CompletableFuture.runAsync(() -> awaitReady(app, p)));
        }
        CompletableFuture.allOf(ready.toArray(CompletableFuture[]::new)).join();
    }

    /** The running process of {@code app}. */
    AppProcess process(App app) {
        AppProcess p = running.get(app);
        if (p == null) {
            throw new IllegalStateException(app + " does not run");
        }
        return p;
    }

    /** SIGKILL: the process ends at once, nothing flushed, no hook run. */
    void kill(App app) throws InterruptedException {
        AppProcess p = process(app);
        int code = p.kill(START);
        running.remove(app);
        LOG.info("{}: killed {} (exit code {})", name, app.label(), code);
    }

    /** SIGTERM: the orderly stop; its exit code. */
    int stop(App app) throws InterruptedException {
        AppProcess p = process(app);
        int code = p.stop(START);
        running.remove(app);
        LOG.info("{}: stopped {} (exit code {})", name, app.label(), code);
        return code;
    }

    /** Starts {@code app} again with the same settings, state and data; returns once it is ready. */
    void restart(App app) {
        if (running.containsKey(app)) {
            throw new IllegalStateException(app + " still runs");
        }
        awaitReady(app, launch(app));
    }

    /** The processes that do not run: ended by themselves, or stopped or killed and not started again. */
    List<App> ended() {
        List<App> gone = new ArrayList<>();
        for (App app : App.values()) {
            AppProcess p = running.get(app);
            if (p == null || !p.isAlive()) {
                gone.add(app);
            }
        }
        return gone;
    }

    /** Everything {@code app}'s latest run wrote, also once it has ended by itself. */
    String lastOutput(App app) {
        AppProcess p = running.get(app);
        return p == null ? "(" + app.label() + " was stopped or killed by the trial)" : p.output();
    }

    /** The output file of {@code app}'s {@code n}-th start (1-based). */
    Path outputFile(App app, int n) {
        return dir.resolve(app.label() + "-" + n + ".log");
    }

    private AppProcess launch(App app) {
        int n = starts.merge(app, 1, Integer::sum);
        Path config = writeConfig(app);
        AppProcess p = AppProcess.start(app.main, outputFile(app, n), JVM, "--config", config.toString());
        running.put(app, p);
        LOG.info("{}: started {} (start {}), {}", name, app.label(), n, p);
        return p;
    }

    private void awaitReady(App app, AppProcess p) {
        try {
            p.awaitReady(healthPorts.get(app), START);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private Path writeConfig(App app) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("bootstrap.servers", broker.bootstrapServers());
        s.put("schema.registry.url", registry.url());
        s.put("topic-prefix", topics.prefix());
        s.put("health-port", Integer.toString(healthPorts.get(app)));
        // a short session (the trials' broker allows it, BROKER): a killed member's partitions move on
        // within seconds, so a restarted process does not wait for its own dead member
        s.put("session.timeout.ms", "3000");
        s.put("heartbeat.interval.ms", "750");
        switch (app) {
            case DETECTOR -> {
                s.put("application.id", applicationId(app));
                s.put("state.dir", dir.resolve("detector-state").toString());
                // a stable id: a restarted detector fences the killed one's open transaction at once
                s.put("instance-id", "trial");
                s.put("tick", "1s");
                s.put("window", "4s");
                s.put("grace", "1s");
                s.put("cooldown", "3s");
                s.put("flush-interval", "200ms");
                s.put("commit-interval", "200ms");
                s.put("heat-threshold", "0.2");
                s.put("capacity-threshold", "0.2");
                s.put("node-expiry", "1h");
            }
            case BALANCER -> {
                s.put("application.id", applicationId(app));
                s.put("state.dir", dir.resolve("balancer-state").toString());
                s.put("commit-interval", "200ms");
                s.put("round-interval", "1s");
                s.put("repair-target", "0.05");
                // small steps: the weight repair goes on for about half a minute of rounds
                s.put("max-step", "0.02");
            }
            case MIGRATOR -> {
                s.put("application.id", applicationId(app));
                s.put("state.dir", dir.resolve("migrator-state").toString());
                s.put("commit-interval", "200ms");
                s.put("tick-interval", "200ms");
                s.put("slot-count", Integer.toString(SLOTS));
                s.put("candidates", Integer.toString(CANDIDATES));
                s.put("target-cv", "0.1");
                s.put("max-parallel", "2");
                // a few kB/s whatever the load: a cold shard's copy lasts seconds
                s.put("max-bytes-per-sec", "3000");
                s.put("budget-floor", "1");
                s.put("copy-stall-timeout", "15s");
                s.put("prepare-timeout", "10s");
                s.put("retry-interval", "2s");
                s.put("abort-timeout", "5s");
                // the load keeps skewing the cluster: a repair that ended starts again once the CV rises
                s.put("maintenance-factor", "1");
                s.put("maintenance-hold", "2s");
            }
            case AGENT -> {
                s.put("cluster", CLUSTER);
                s.put("nodes", String.join(",", nodes));
                s.put("data-dir", dataDir().toString());
                s.put("store", "rocksdb");
                s.put("slot-count", Integer.toString(SLOTS));
                s.put("candidates", Integer.toString(CANDIDATES));
                s.put("poll-timeout", "100ms");
                s.put("progress-interval", "300ms");
                s.put("flush-interval", "200ms");
                s.put("capacity-interval", "500ms");
                s.put("write-load", "200");
                s.put("heat-skew", "1.2");
                s.put("key-space", "200000");
                s.put("value-bytes", "100");
                s.put("seed", Long.toString(LOAD_SEED));
                s.put("load-journal", journal().toString());
                // the trials' copies run at the migrator's 3000 B/s so that kills find them under way; on a
                // machine the trials load to the full, the latency pacing would slow them to a crawl and the
                // trial's moments would never come (the pacing has its own tests in node-agent)
                s.put("copy-latency-pacing", "false");
            }
        }
        s.putAll(overrides.get(app));
        Path file = dir.resolve(app.label() + ".properties");
        Properties p = new Properties();
        p.putAll(s);
        try {
            Files.createDirectories(dir);
            try (Writer out = Files.newBufferedWriter(file)) {
                p.store(out, name + ": " + app.label());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
        return file;
    }

    /** Kills whatever still runs and stops serving the registry. */
    @Override
    public void close() {
        running.values().forEach(AppProcess::close);
        running.clear();
        registry.close();
        MockSchemaRegistry.drop(scope());
    }
}
