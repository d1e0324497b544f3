package io.skewguard.sim.demo;

import io.skewguard.balancer.BalancerSettings;
import io.skewguard.balancer.BalancerTopology;
import io.skewguard.detector.DetectorApp;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.migrator.MigratorTopology;
import io.skewguard.schemas.Topics;
import io.skewguard.testkit.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka side of the demo, inside this JVM: a single-node KRaft broker (unless an existing one is
 * named), the topics, and the detector, balancer and migrator as real Kafka Streams applications
 * ({@code exactly_once_v2}, 200 ms commits, state directories in this stack's temporary directory).
 *
 * <p>Topics: the node-keyed inputs get 3 partitions (the detector repartitions by cluster); the
 * cluster-keyed {@code reports} and {@code alerts} get the same count (1), because the balancer and
 * the migrator join them per cluster; the tables ({@code node-weights}, {@code slot-table}) are
 * compacted. On an existing broker, topics that exist are kept, but {@code reports} and {@code alerts}
 * must have the same partition count.
 *
 * <p>{@link #close()} stops the apps (each commits its open transaction and leaves its group), then
 * the broker, then removes the temporary directory unless it is kept. Idempotent.
 */
public final class EmbeddedStack implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedStack.class);
    private static final Duration APP_CLOSE = Duration.ofSeconds(30);

    private final DemoSettings settings;
    private final Path workDir;
    private EmbeddedKafka broker;
    private String bootstrapServers;
    private Admin admin;
    private DetectorApp.Running detector;
    private KafkaStreams balancer;
    private KafkaStreams migrator;
    private boolean closed;

    private EmbeddedStack(DemoSettings settings, Path workDir) {
        this.settings = settings;
        this.workDir = workDir;
    }

    /**
     * Starts the broker (unless {@code settings} name one), creates the topics and starts the three
     * apps; returns once all three are RUNNING. On failure everything started is closed again.
     */
    public static EmbeddedStack start(DemoSettings settings) {
        Path dir;
        try {
            dir = Files.createTempDirectory("skewguard-demo-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the demo's temporary directory", e);
        }
        EmbeddedStack stack = new EmbeddedStack(settings, dir);
        try {
            stack.startAll();
            return stack;
        } catch (RuntimeException | Error e) {
            stack.close();
            throw e;
        }
    }

    private void startAll() {
        if (settings.embeddedBroker()) {
            broker = EmbeddedKafka.builder().keepData(settings.keep()).build().start();
            bootstrapServers = broker.bootstrapServers();
        } else {
            bootstrapServers = settings.bootstrapServers();
        }
        Map<String, Object> adminConfig = new HashMap<>();
        adminConfig.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        adminConfig.put(AdminClientConfig.CLIENT_ID_CONFIG, settings.applicationId("admin"));
        adminConfig.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000);
        admin = Admin.create(adminConfig);
        createTopics();

        detector = DetectorApp.start(DetectorSettings.load(new Properties(), Map.of(),
                settings.detectorFlags(bootstrapServers, workDir.resolve("detector"))));

        BalancerSettings balancerSettings = BalancerSettings.resolve(new Properties(), Map.of(),
                settings.balancerFlags(bootstrapServers, workDir.resolve("balancer")));
        balancer = new KafkaStreams(BalancerTopology.build(balancerSettings), balancerSettings.streamsProperties());
        balancer.setUncaughtExceptionHandler(e -> {
            LOG.error("balancer stream thread failed", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        balancer.start();

        MigratorSettings migratorSettings = MigratorSettings.from(settings.migratorValues(bootstrapServers,
                workDir.resolve("migrator")));
        migrator = new KafkaStreams(MigratorTopology.build(migratorSettings), MigratorTopology.streamsConfig(migratorSettings));
        migrator.setUncaughtExceptionHandler(e -> {
            LOG.error("migrator stream thread failed", e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        migrator.start();

        awaitRunning(Duration.ofSeconds(120));
    }

    private void createTopics() {
        Topics t = settings.topics();
        Map<String, Integer> partitions = new java.util.LinkedHashMap<>();
        for (String topic : t.all()) {
            partitions.put(topic, 1);
        }
        partitions.put(t.nodeWrites(), 3);
        partitions.put(t.nodeCapacity(), 3);
        List<NewTopic> topics = new ArrayList<>();
        Set<String> compacted = Set.copyOf(t.compacted());
        partitions.forEach((name, count) -> {
            NewTopic topic = new NewTopic(name, java.util.Optional.of(count), java.util.Optional.empty());
            if (compacted.contains(name)) {
                topic.configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
            }
            topics.add(topic);
        });
        for (var e : admin.createTopics(topics).values().entrySet()) {
            try {
                e.getValue().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException ex) {
                if (!(ex.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("cannot create topic " + e.getKey() + " on " + bootstrapServers, ex.getCause());
                }
                LOG.info("topic {} exists; kept", e.getKey());
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while creating topics", ex);
            } catch (java.util.concurrent.TimeoutException ex) {
                throw new IllegalStateException("creating topic " + e.getKey() + " on " + bootstrapServers + " timed out", ex);
            }
        }
        try {
            Map<String, TopicDescription> d = admin.describeTopics(List.of(t.reports(), t.alerts())).allTopicNames()
                    .get(30, TimeUnit.SECONDS);
            int reports = d.get(t.reports()).partitions().size();
            int alerts = d.get(t.alerts()).partitions().size();
            if (reports != alerts) {
                throw new IllegalStateException(t.reports() + " has " + reports + " partitions and " + t.alerts() + " has "
                        + alerts + ": the balancer and the migrator need the same count");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking topics", e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("cannot describe the report and alert topics on " + bootstrapServers, e);
        }
    }

    private void awaitRunning(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, KafkaStreams> apps = Map.of("detector", detector.streams(), "balancer", balancer, "migrator", migrator);
        for (var e : apps.entrySet()) {
            while (e.getValue().state() != KafkaStreams.State.RUNNING) {
                KafkaStreams.State state = e.getValue().state();
                if (!state.isRunningOrRebalancing() && state != KafkaStreams.State.CREATED) {
                    throw new IllegalStateException("the " + e.getKey() + " stopped while starting: " + state);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the " + e.getKey() + " was not running within " + timeout + " (" + state + ")");
                }
                sleep(50);
            }
        }
    }

    /** {@code host:port} of the broker the demo uses. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** The stack's temporary directory (state stores, agents' state files). */
    public Path workDir() {
        return workDir;
    }

    /** The embedded broker's data directory, or null on an existing broker. */
    public Path brokerDataDir() {
        return broker == null ? null : broker.dataDir();
    }

    /** Whether every app is still running (or rebalancing). */
    public boolean appsHealthy() {
        return detector.streams().state().isRunningOrRebalancing() && balancer.state().isRunningOrRebalancing()
                && migrator.state().isRunningOrRebalancing();
    }

    /** The states of the three apps, for a message. */
    public String appStates() {
        return "detector " + detector.streams().state() + ", balancer " + balancer.state() + ", migrator " + migrator.state();
    }

    /** Closes the apps, then the broker, then removes the temporary directory unless kept. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<Throwable> failures = new ArrayList<>();
        run(failures, () -> {
            if (migrator != null) {
                migrator.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(APP_CLOSE));
            }
        });
        run(failures, () -> {
            if (balancer != null) {
                balancer.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(APP_CLOSE));
            }
        });
        run(failures, () -> {
            if (detector != null) {
                detector.close();
            }
        });
        run(failures, () -> {
            if (admin != null) {
                admin.close(Duration.ofSeconds(10));
            }
        });
        run(failures, () -> {
            if (broker != null) {
                broker.close();
            }
        });
        run(failures, () -> {
            if (!settings.keep()) {
                Utils.delete(workDir.toFile());
            }
        });
        if (!failures.isEmpty()) {
            IllegalStateException e = new IllegalStateException("closing the demo stack failed: " + failures.get(0), failures.get(0));
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void run(List<Throwable> failures, Step step) {
        try {
            step.run();
        } catch (Exception | Error e) {
            LOG.error("closing the demo stack: {}", e.toString(), e);
            failures.add(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
