package io.skewguard.sim.demo;

import io.skewguard.balancer.BalancerSettings;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Durations;
import io.skewguard.schemas.Topics;
import io.skewguard.sim.scenario.NodeSpec;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioEvent;
import io.skewguard.runtime.settings.SettingsModel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Everything one run of the embedded demo needs, read once: the scenario (the simulator's format,
 * parsed by its {@code ScenarioParser}), how fast simulated time runs, how big the simulated cluster is
 * in memory, and where Kafka and the registry are. The apps' settings are derived here, so that the
 * clocks agree (see {@link #detectorSettings}).
 *
 * <p><b>Time.</b> The nodes' clock is simulated and stepped: one step of {@code scenario.step()}
 * every {@code step / speed} of wall time (later if the machine is slow; simulated time never runs
 * ahead of the steps). Every event the nodes send carries simulated time, and the detector and the
 * balancer work on event time only, so their windows, cooldown and round interval are simply
 * simulated durations. The migrator's timeouts are wall-clock (its punctuation): they are set short
 * here, in wall time, because agents answer within a poll. Simulated time starts {@code duration + 1 h}
 * in the past, so that no timestamp is ever in the future for the broker.
 *
 * @param scenario the cluster and its load
 * @param speed simulated milliseconds per wall millisecond
 * @param writesPerStep keys written per step (each stands for an object of the scenario's write volume / this)
 * @param fillKeys keys laid down as the cluster's starting data
 * @param bootstrapServers an existing Kafka, or null to start one inside this JVM
 * @param schemaRegistryUrl an existing registry, or null for an in-process {@code mock://} one
 * @param topicPrefix prefix of every topic
 * @param runId distinguishes this run's application ids, registry scope and (on an existing broker) topics
 * @param keep keep the temporary directories (broker data, state stores, agents' state files)
 * @param clientConfigDir null, or a directory of Kafka client properties files, one per principal
 *     (a secured cluster, docs/security.md): {@code detector}, {@code balancer}, {@code migrator},
 *     {@code agent-<node>} for every node (its agent and its reporter) and {@code demo} (the demo's own
 *     topic creation, writers, observer and operator), each {@code <name>.properties}
 */
public record DemoSettings(
        Scenario scenario,
        double speed,
        int writesPerStep,
        int fillKeys,
        String bootstrapServers,
        String schemaRegistryUrl,
        String topicPrefix,
        String runId,
        boolean keep,
        Path clientConfigDir) {

    /** Without client properties files: every client connects with {@code bootstrap.servers} alone. */
    public DemoSettings(Scenario scenario, double speed, int writesPerStep, int fillKeys, String bootstrapServers,
                        String schemaRegistryUrl, String topicPrefix, String runId, boolean keep) {
        this(scenario, speed, writesPerStep, fillKeys, bootstrapServers, schemaRegistryUrl, topicPrefix, runId, keep, null);
    }

    /** The id of the simulated cluster in every event. */
    public static final String CLUSTER = "demo";

    public DemoSettings {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(topicPrefix, "topicPrefix");
        Objects.requireNonNull(runId, "runId");
        new Topics(topicPrefix);
        if (!(speed > 0) || Double.isInfinite(speed)) {
            throw new IllegalArgumentException("speed must be a positive number, was " + speed);
        }
        if (writesPerStep < 1 || fillKeys < 1) {
            throw new IllegalArgumentException("writes per step and fill keys must be at least 1");
        }
        List<NodeSpec> every = new ArrayList<>(scenario.nodes());
        int fewestStaying = scenario.nodes().size();
        int staying = scenario.nodes().size();
        for (ScenarioEvent e : scenario.events()) {
            if (e instanceof ScenarioEvent.Join j) {
                every.add(j.node());
                staying++;
            } else if (e instanceof ScenarioEvent.Drain d) {
                // a cancelled drain gives the node back later; counted as gone, the check stays simple and safe
                staying--;
                fewestStaying = Math.min(fewestStaying, staying);
            } else {
                String kind = e instanceof ScenarioEvent.Loss ? "loss" : "hot spot";
                throw new IllegalArgumentException("the demo plays join and drain events, not " + kind + " events; scenario "
                        + scenario.name() + " has event '" + e.name() + "' (a " + kind + "): `skewguard simulate` "
                        + "plays node losses and hot spots");
            }
        }
        for (NodeSpec n : every) {
            if (n.ringWeight() != 1.0) {
                // the migrator builds the slot table from a ring of weight 1 per node (docs/migrator.md §3)
                throw new IllegalArgumentException("the demo needs ring weight 1 for every node; " + n.id()
                        + " has " + n.ringWeight());
            }
        }
        if (clientConfigDir != null) {
            if (bootstrapServers == null) {
                throw new IllegalArgumentException("client properties files are for an existing (secured) Kafka: give --bootstrap-servers too");
            }
            List<String> roles = new ArrayList<>(List.of("detector", "balancer", "migrator", "demo"));
            every.forEach(n -> roles.add(agentRole(n.id())));
            List<String> missing = roles.stream().map(r -> r + ".properties")
                    .filter(f -> !Files.isRegularFile(clientConfigDir.resolve(f))).toList();
            if (!missing.isEmpty()) {
                throw new IllegalArgumentException("client properties directory " + clientConfigDir + " lacks " + String.join(", ", missing)
                        + " (one file per principal: detector, balancer, migrator, demo, agent-<node> for every node)");
            }
        }
        if (scenario.candidates() >= fewestStaying) {
            throw new IllegalArgumentException("candidate sets of " + scenario.candidates() + " on "
                    + fewestStaying + " nodes" + (fewestStaying < scenario.nodes().size() ? " (after the drains)" : "")
                    + " leave a migration no target: use fewer candidates than nodes");
        }
    }

    /** Whether the scenario changes the cluster's membership (joins or drains): the progress line and the report show it. */
    public boolean changesMembership() {
        return !scenario.events().isEmpty();
    }

    /** Whether the demo starts its own broker. */
    public boolean embeddedBroker() {
        return bootstrapServers == null;
    }

    public Topics topics() {
        return new Topics(topicPrefix);
    }

    /** The registry URL the apps, agents and writers use. */
    public String registryUrl() {
        return schemaRegistryUrl != null ? schemaRegistryUrl : "mock://skewguard-demo-" + runId;
    }

    public long stepMillis() {
        return scenario.stepMillis();
    }

    /** Wall time of one step at full speed. */
    public Duration wallPerStep() {
        return Duration.ofNanos(Math.max(1, Math.round(scenario.stepMillis() * 1e6 / speed)));
    }

    /** Wall time of the whole scenario at full speed. */
    public Duration plannedWall() {
        return Duration.ofMillis(Math.round(scenario.durationMillis() / speed));
    }

    public String applicationId(String app) {
        return "skewguard-demo-" + runId + "-" + app;
    }

    /** Detector window: four ticks, well under the cooldown as docs/design.md §6.3 asks. */
    public long windowMillis() {
        return 4 * stepMillis();
    }

    /** Balancer round interval: a window, so that a round sees the heat the previous round caused. */
    public long roundIntervalMillis() {
        return Math.max(windowMillis(), 2 * stepMillis());
    }

    /** The detector's settings (event time: simulated durations), from its settings model. */
    public DetectorSettings detectorSettings(String bootstrap, Path stateDir) {
        var sg = scenario.skewguard();
        Map<String, String> f = new LinkedHashMap<>(common("detector", bootstrap, stateDir));
        f.put(DetectorSettings.TICK, ms(stepMillis()));
        f.put(DetectorSettings.WINDOW, ms(windowMillis()));
        f.put(DetectorSettings.GRACE, ms(2 * stepMillis()));
        f.put(DetectorSettings.COOLDOWN, ms(sg.cooldownMillis()));
        f.put(DetectorSettings.HEAT_THRESHOLD, Double.toString(sg.heatThreshold()));
        f.put(DetectorSettings.CAPACITY_THRESHOLD, Double.toString(sg.capacityThreshold()));
        f.put(DetectorSettings.HYSTERESIS, Double.toString(sg.hysteresis()));
        f.put(DetectorSettings.NODE_EXPIRY, ms(Math.max(600_000L, 10 * stepMillis())));
        f.put(DetectorSettings.FLUSH_INTERVAL, "200ms");
        f.put(CommonSettings.CLUSTERS, CLUSTER);
        return DetectorSettings.of(f);
    }

    /** The balancer's settings (event time: the round interval is simulated), from its settings model. */
    public BalancerSettings balancerSettings(String bootstrap, Path stateDir) {
        Map<String, String> f = new LinkedHashMap<>(common("balancer", bootstrap, stateDir));
        f.put(CommonSettings.CLUSTERS, CLUSTER);
        f.put(BalancerSettings.REPAIR_TARGET, Double.toString(scenario.skewguard().repairTarget()));
        f.put(BalancerSettings.ROUND_INTERVAL, ms(roundIntervalMillis()));
        f.put(BalancerSettings.FOLLOW_UP, ms(scenario.skewguard().followUpMillis()));
        return BalancerSettings.of(f);
    }

    /**
     * The migrator's settings, from its settings model. Its timeouts run on the wall clock: agents
     * answer within a poll, so seconds are plenty; the copy-stall timeout must outlast a copy step,
     * which the agents report on every step of simulated time.
     */
    public MigratorSettings migratorSettings(String bootstrap, Path stateDir) {
        var sg = scenario.skewguard();
        long stepWallMs = Math.max(1, wallPerStep().toMillis());
        Map<String, String> v = new LinkedHashMap<>(common("migrator", bootstrap, stateDir));
        v.put(MigratorSettings.TARGET_CV, Double.toString(sg.migrationTargetCv()));
        v.put(MigratorSettings.OVERSHOOT, Double.toString(sg.overshoot()));
        v.put(MigratorSettings.MAX_PARALLEL, Integer.toString(sg.maxParallel()));
        v.put(MigratorSettings.MAX_BYTES_PER_SEC, Long.toString(sg.maxBytesPerSec()));
        v.put(MigratorSettings.MAINTENANCE_FACTOR, Double.toString(sg.maintenanceFactor()));
        v.put(MigratorSettings.COPY_STALL_TIMEOUT, ms(Math.max(60_000, 20 * stepWallMs)));
        v.put(MigratorSettings.PREPARE_TIMEOUT, "20s");
        v.put(MigratorSettings.RETRY_INTERVAL, "5s");
        v.put(MigratorSettings.ABORT_TIMEOUT, "20s");
        v.put(MigratorSettings.TICK_INTERVAL, "250ms");
        v.put(MigratorSettings.SLOT_COUNT, Integer.toString(scenario.slots()));
        v.put(MigratorSettings.CANDIDATES, Integer.toString(scenario.candidates()));
        v.put(MigratorSettings.VNODES_PER_UNIT, Integer.toString(scenario.vnodesPerUnit()));
        return MigratorSettings.of(v);
    }

    /** The role of node {@code node}'s agent and reporter among the client properties files. */
    public static String agentRole(String node) {
        return "agent-" + node;
    }

    /**
     * The Kafka client keys of {@code role} (e.g. {@code security.protocol}, {@code sasl.jaas.config})
     * from {@code <clientConfigDir>/<role>.properties}; empty without a directory.
     */
    public Map<String, String> clientKeys(String role) {
        if (clientConfigDir == null) {
            return Map.of();
        }
        return SettingsModel.readFile(clientConfigDir.resolve(role + ".properties"));
    }

    /** {@link #clientKeys} for a client built directly, plus {@code more} (which wins). */
    public Map<String, Object> clientConfig(String role, Map<String, ?> more) {
        Map<String, Object> config = new HashMap<>(clientKeys(role));
        config.putAll(more);
        return config;
    }

    /** What every app of the demo shares: Kafka (and its client keys), the registry, its own application id, the prefix, 200 ms commits, its state directory. */
    private Map<String, String> common(String app, String bootstrap, Path stateDir) {
        Map<String, String> f = new LinkedHashMap<>(clientKeys(app));
        f.put(CommonSettings.BOOTSTRAP_SERVERS, bootstrap);
        f.put(CommonSettings.SCHEMA_REGISTRY_URL, registryUrl());
        f.put(CommonSettings.APPLICATION_ID, applicationId(app));
        f.put(CommonSettings.TOPIC_PREFIX, topicPrefix);
        f.put(CommonSettings.COMMIT_INTERVAL, "200ms");
        f.put(CommonSettings.STATE_DIR, stateDir.toString());
        return f;
    }

    private static String ms(long millis) {
        return Durations.format(Duration.ofMillis(millis));
    }
}
