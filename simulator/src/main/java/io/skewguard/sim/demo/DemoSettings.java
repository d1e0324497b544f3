package io.skewguard.sim.demo;

import io.skewguard.detector.DetectorSettings;
import io.skewguard.schemas.Topics;
import io.skewguard.sim.scenario.NodeSpec;
import io.skewguard.sim.scenario.Scenario;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Everything one run of the embedded demo needs, read once: the scenario (the simulator's format,
 * parsed by its {@code ScenarioParser}), how fast simulated time runs, how big the simulated cluster is
 * in memory, and where Kafka and the registry are. The apps' settings are derived here, so that the
 * clocks agree (see {@link #detectorFlags}).
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
        boolean keep) {

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
        for (NodeSpec n : scenario.nodes()) {
            if (n.ringWeight() != 1.0) {
                // the migrator builds the slot table from a ring of weight 1 per node (docs/migrator.md §3)
                throw new IllegalArgumentException("the demo needs ring weight 1 for every node; " + n.id()
                        + " has " + n.ringWeight());
            }
        }
        if (!scenario.events().isEmpty()) {
            throw new IllegalArgumentException("the demo does not play scenario events (join, loss, hot spot) yet; "
                    + "scenario " + scenario.name() + " has " + scenario.events().size());
        }
        if (scenario.candidates() >= scenario.nodes().size()) {
            throw new IllegalArgumentException("candidate sets of " + scenario.candidates() + " on "
                    + scenario.nodes().size() + " nodes leave a migration no target: use fewer candidates than nodes");
        }
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

    /** The detector's settings as flags (event time: simulated durations). */
    public Map<String, String> detectorFlags(String bootstrap, Path stateDir) {
        var sg = scenario.skewguard();
        Map<String, String> f = new LinkedHashMap<>();
        f.put(DetectorSettings.BOOTSTRAP_SERVERS, bootstrap);
        f.put(DetectorSettings.SCHEMA_REGISTRY_URL, registryUrl());
        f.put(DetectorSettings.APPLICATION_ID, applicationId("detector"));
        f.put(DetectorSettings.TOPIC_PREFIX, topicPrefix);
        f.put(DetectorSettings.TICK, stepMillis() + "ms");
        f.put(DetectorSettings.WINDOW, windowMillis() + "ms");
        f.put(DetectorSettings.GRACE, 2 * stepMillis() + "ms");
        f.put(DetectorSettings.COOLDOWN, sg.cooldownMillis() + "ms");
        f.put(DetectorSettings.HEAT_THRESHOLD, Double.toString(sg.heatThreshold()));
        f.put(DetectorSettings.CAPACITY_THRESHOLD, Double.toString(sg.capacityThreshold()));
        f.put(DetectorSettings.HYSTERESIS, Double.toString(sg.hysteresis()));
        f.put(DetectorSettings.NODE_EXPIRY, Math.max(600_000L, 10 * stepMillis()) + "ms");
        f.put(DetectorSettings.FLUSH_INTERVAL, "200ms");
        f.put(DetectorSettings.COMMIT_INTERVAL, "200ms");
        f.put(DetectorSettings.CLUSTERS, CLUSTER);
        f.put(DetectorSettings.STATE_DIR, stateDir.toString());
        return f;
    }

    /** The balancer's settings (event time: the round interval is simulated). */
    public Map<String, String> balancerFlags(String bootstrap, Path stateDir) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("bootstrap-servers", bootstrap);
        f.put("schema-registry-url", registryUrl());
        f.put("application-id", applicationId("balancer"));
        f.put("topic-prefix", topicPrefix);
        f.put("clusters", CLUSTER);
        f.put("repair-target", Double.toString(scenario.skewguard().repairTarget()));
        f.put("round-interval", roundIntervalMillis() + "ms");
        f.put("commit-interval", "200ms");
        f.put("state-dir", stateDir.toString());
        return f;
    }

    /**
     * The migrator's settings. Its timeouts run on the wall clock: agents answer within a poll, so
     * seconds are plenty; the copy-stall timeout must outlast a copy step, which the agents report on
     * every step of simulated time.
     */
    public Map<String, String> migratorValues(String bootstrap, Path stateDir) {
        var sg = scenario.skewguard();
        long stepWallMs = Math.max(1, wallPerStep().toMillis());
        Map<String, String> v = new LinkedHashMap<>();
        v.put("bootstrap-servers", bootstrap);
        v.put("schema-registry-url", registryUrl());
        v.put("application-id", applicationId("migrator"));
        v.put("topic-prefix", topicPrefix);
        v.put("state-dir", stateDir.toString());
        v.put("target-cv", Double.toString(sg.migrationTargetCv()));
        v.put("overshoot", Double.toString(sg.overshoot()));
        v.put("max-parallel", Integer.toString(sg.maxParallel()));
        v.put("max-bytes-per-sec", Long.toString(sg.maxBytesPerSec()));
        v.put("copy-stall-timeout", Long.toString(Math.max(60_000, 20 * stepWallMs)));
        v.put("prepare-timeout", "20000");
        v.put("retry-interval", "5000");
        v.put("abort-timeout", "20000");
        v.put("tick-interval", "250");
        v.put("commit-interval", "200");
        v.put("slot-count", Integer.toString(scenario.slots()));
        v.put("candidates", Integer.toString(scenario.candidates()));
        v.put("vnodes-per-unit", Integer.toString(scenario.vnodesPerUnit()));
        return v;
    }
}
