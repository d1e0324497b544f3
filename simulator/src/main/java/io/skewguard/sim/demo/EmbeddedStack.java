package io.skewguard.sim.demo;

import io.skewguard.balancer.BalancerSettings;
import io.skewguard.balancer.BalancerTopology;
import io.skewguard.detector.DetectorApp;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.migrator.MigratorTopology;
import io.skewguard.runtime.lifecycle.ProcessLifecycle;
import io.skewguard.runtime.lifecycle.Service;
import io.skewguard.runtime.lifecycle.StreamsService;
import io.skewguard.runtime.topics.Provisioned;
import io.skewguard.runtime.topics.TopicDifference;
import io.skewguard.runtime.topics.TopicPlan;
import io.skewguard.runtime.topics.TopicProvisioner;
import io.skewguard.embedded.EmbeddedKafka;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka side of the demo, inside this JVM: a single-node KRaft broker (unless an existing one is
 * named), the topics, and the detector, balancer and migrator as real Kafka Streams applications
 * ({@code exactly_once_v2}, 200 ms commits, state directories in this stack's temporary directory),
 * run by one {@link ProcessLifecycle} exactly as the {@code detector}, {@code balancer} and
 * {@code migrator} commands run them, only without a shutdown hook of its own (the demo's command
 * has one).
 *
 * <p>Topics: as {@code skewguard topics create} makes them ({@link TopicPlan}), with 3 partitions
 * for the node-keyed topics and records kept forever: the demo's events carry simulated time, which
 * starts weeks in the past, so a time retention would delete them at once. On an existing broker,
 * topics that exist are kept, but {@code reports} and {@code alerts} must have the same partition
 * count (the balancer joins them per cluster).
 *
 * <p>{@link #close()} stops the apps (each commits its open transaction and leaves its group), then
 * the broker, then removes the temporary directory unless it is kept. Idempotent.
 */
public final class EmbeddedStack implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedStack.class);
    private static final Duration APP_CLOSE = Duration.ofSeconds(30);
    private static final Duration START = Duration.ofSeconds(120);

    private final DemoSettings settings;
    private final Path workDir;
    private EmbeddedKafka broker;
    private String bootstrapServers;
    private final List<Service> services = new ArrayList<>();
    private ProcessLifecycle lifecycle;
    private CompletableFuture<Integer> exit;
    private boolean closed;

    private EmbeddedStack(DemoSettings settings, Path workDir) {
        this.settings = settings;
        this.workDir = workDir;
    }

    /**
     * Starts the broker (unless {@code settings} name one), creates the topics and starts the three
     * apps; returns once all of them are ready. On failure everything started is closed again.
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
        createTopics();

        services.addAll(DetectorApp.services(settings.detectorSettings(bootstrapServers, workDir.resolve("detector"))));
        BalancerSettings balancer = settings.balancerSettings(bootstrapServers, workDir.resolve("balancer"));
        services.add(new StreamsService("balancer", BalancerTopology.build(balancer), balancer.streamsProperties()));
        MigratorSettings migrator = settings.migratorSettings(bootstrapServers, workDir.resolve("migrator"));
        services.add(new StreamsService("migrator", MigratorTopology.build(migrator), MigratorTopology.streamsConfig(migrator)));

        ProcessLifecycle.Builder b = ProcessLifecycle.builder("demo").shutdownHook(false).closeTimeout(APP_CLOSE);
        services.forEach(b::service);
        lifecycle = b.build();
        exit = lifecycle.runInBackground();
        try {
            if (!lifecycle.awaitReady(START)) {
                throw new IllegalStateException("the apps were not running within " + START + ": " + appStates());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the apps", e);
        }
    }

    private void createTopics() {
        TopicPlan plan = new TopicPlan(settings.topicPrefix(), 3, 1, 0, Duration.ZERO, Duration.ZERO, Duration.ZERO);
        Admin admin = Admin.create(settings.clientConfig("demo", Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG, settings.applicationId("admin"),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000)));
        try (TopicProvisioner provisioner = new TopicProvisioner(admin, bootstrapServers, Duration.ofSeconds(30))) {
            Provisioned p = provisioner.create(plan);
            p.alreadyThere().forEach(t -> LOG.info("topic {} exists; kept", t));
            for (TopicDifference d : p.differences()) {
                if (d instanceof TopicDifference.NotCoPartitioned) {
                    throw new IllegalStateException(d.line() + " on " + bootstrapServers + ": the balancer needs the same count");
                }
                LOG.warn("existing topic differs from what the demo would create: {}", d.line());
            }
        } finally {
            admin.close(Duration.ofSeconds(10));
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

    /** Whether every app is still running (none has failed, the lifecycle has not ended). */
    public boolean appsHealthy() {
        return lifecycle != null && lifecycle.live() && !exit.isDone();
    }

    /** The state of each app's services, for a message. */
    public String appStates() {
        return services.stream()
                .map(s -> s.name() + " " + (s.failure().isPresent() ? "failed: " + s.failure().get() : s.ready() ? "ready" : "not ready"))
                .collect(Collectors.joining(", "));
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
            if (lifecycle != null) {
                lifecycle.stop();
                int code = exit.get(APP_CLOSE.toSeconds() + 10, TimeUnit.SECONDS);
                if (code != 0) {
                    LOG.warn("the demo's apps ended with exit code {}: {}", code, appStates());
                }
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
}
