package io.skewguard.balancer;

import io.skewguard.balancer.policy.ControllerSettings;
import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.streams.PoisonPills;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsException;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.settings.Validator;
import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.schemas.Topics;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The balancer's settings: {@link #MODEL} declares them (names, defaults, rules, the Kafka keys the
 * balancer fixes); this record is the typed view the topology and the controller read, built
 * {@link #from(Settings)} the resolved settings.
 *
 * @param bootstrapServers Kafka bootstrap servers
 * @param schemaRegistryUrl schema registry URL ({@code http(s)://…} or {@code mock://scope})
 * @param applicationId Kafka Streams application id: consumer group, prefix of internal topics
 * @param topicPrefix prefix of every SkewGuard topic
 * @param clusters clusters this balancer serves; records of others are dead-lettered; empty = all
 * @param controller the weight controller's parameters
 * @param commitInterval Kafka Streams commit interval (transactions commit this often)
 * @param stateDir Kafka Streams state directory
 * @param replicationFactor replication factor of the internal changelog topic; -1 = broker default
 * @param settings everything as resolved, Kafka client keys included
 */
public record BalancerSettings(
        String bootstrapServers,
        String schemaRegistryUrl,
        String applicationId,
        String topicPrefix,
        Set<String> clusters,
        ControllerSettings controller,
        Duration commitInterval,
        String stateDir,
        int replicationFactor,
        Settings settings) {

    public static final String MIN_WEIGHT = "min-weight";
    public static final String MAX_WEIGHT = "max-weight";
    public static final String MAX_STEP = "max-step";
    public static final String DEADBAND = "deadband";
    public static final String GAIN = "gain";
    public static final String REPAIR_TARGET = "repair-target";
    public static final String ROUND_INTERVAL = "round-interval";
    public static final String DECAY = "decay";
    public static final String FOLLOW_UP = "follow-up";
    public static final String REPLICATION_FACTOR = "replication-factor";
    public static final String MAX_EVENT_AGE = "max-event-age";

    /** Every setting of the balancer. */
    public static final SettingsModel MODEL = PoisonPills.handledBy(SettingsModel.builder("balancer")
            .description("Steers new writes away from hot nodes by weight factors (the weight phase, no data moves).")
            .add(CommonSettings.bootstrapServers(),
                    CommonSettings.schemaRegistryUrl(),
                    CommonSettings.applicationId("skewguard-balancer"),
                    CommonSettings.topicPrefix(),
                    CommonSettings.clusters(),
                    Setting.number(MIN_WEIGHT, ControllerSettings.DEFAULT_MIN_WEIGHT, "Lower bound of a weight factor.")
                            .validatedBy(Validator.of("greater than 0 and at most 1", v -> (Double) v > 0 && (Double) v <= 1)),
                    Setting.number(MAX_WEIGHT, ControllerSettings.DEFAULT_MAX_WEIGHT, "Upper bound of a weight factor.")
                            .validatedBy(Validator.atLeast(1)),
                    Setting.number(MAX_STEP, ControllerSettings.DEFAULT_MAX_STEP,
                                    "Largest relative change of a weight factor in one round (0.05 = ±5 %).")
                            .validatedBy(Validator.of("greater than 0 and below 1", v -> (Double) v > 0 && (Double) v < 1)),
                    Setting.number(DEADBAND, ControllerSettings.DEFAULT_DEADBAND,
                                    "A node whose load ratio is within 1 ± this is left alone.")
                            .validatedBy(Validator.inRange(0, 1)),
                    Setting.number(GAIN, ControllerSettings.DEFAULT_GAIN,
                                    "Exponent of the step w' = w · r^-gain; above 0.5 the step may overshoot.")
                            .validatedBy(Validator.of("greater than 0 and at most 0.5", v -> (Double) v > 0 && (Double) v <= 0.5)),
                    Setting.number(REPAIR_TARGET, ControllerSettings.DEFAULT_REPAIR_TARGET,
                                    "A repair ends once the heat Gini is at or below this.")
                            .validatedBy(Validator.inRange(0, 1)),
                    Setting.duration(ROUND_INTERVAL, "2m", "Least event time between two rounds of one cluster.")
                            .validatedBy(Validator.notNegative()),
                    Setting.number(DECAY, ControllerSettings.DEFAULT_DECAY,
                                    "After a repair, the fraction of log-weight given back toward 1.0 per round; 0 keeps the weights.")
                            .validatedBy(Validator.between(0, 1)),
                    Setting.duration(FOLLOW_UP, "0",
                                    "After a repair, a heat Gini above repair-target in every report for this long (event time) "
                                            + "starts a repair again without waiting for a HEAT alert, so that the weights keep "
                                            + "what the repair reached while migrations and load change under them; 0 = only an "
                                            + "alert starts a repair.")
                            .validatedBy(Validator.notNegative()),
                    CommonSettings.commitInterval(),
                    CommonSettings.stateDir("/tmp/skewguard-balancer"),
                    Setting.integer(REPLICATION_FACTOR, -1,
                                    "Replication factor of the balancer's changelog topic; -1 = the broker's default.")
                            .validatedBy(Validator.of("-1 (the broker's default) or at least 1",
                                    v -> (Integer) v == -1 || (Integer) v >= 1))
                            .mapsTo("replication.factor", v -> v.toString()),
                    CommonSettings.maxClusters(),
                    CommonSettings.maxNodesPerCluster(),
                    CommonSettings.nodeExpiry("1d",
                            "A node absent from its cluster's reports for this long (stream time) loses its weight and "
                                    + "controller memory; a cluster without reports for this long is forgotten."),
                    CommonSettings.healthPort(),
                    CommonSettings.healthHost(),
                    CommonSettings.createTopics(),
                    CommonSettings.maxFutureSkew(),
                    Setting.duration(MAX_EVENT_AGE, "7d",
                                    "Reports and alerts whose time lies further behind this process's clock go to the "
                                            + "dead-letter topic (reason 'stale'): the balancer steers by the load of now. The "
                                            + "default is Kafka's default retention, so a balancer catching up within it reads "
                                            + "everything.")
                            .validatedBy(Validator.positive()),
                    CommonSettings.operatorKeysFile(),
                    CommonSettings.decisionInterval())
            .fixes("processing.guarantee", "exactly_once_v2",
                    "a round's controller state, weight commands and node weights commit in one transaction; "
                            + "with at-least-once a restart could repeat an epoch with different weights")
            ).build();

    public BalancerSettings {
        clusters = Collections.unmodifiableSet(new LinkedHashSet<>(clusters));
    }

    /**
     * The typed view of resolved settings.
     *
     * @throws SettingsException when the values break a rule that spans several settings
     */
    public static BalancerSettings from(Settings s) {
        CommonSettings.operatorKeys(s); // a bad keys file is a start-up error, not a stream of refusals
        ControllerSettings controller;
        try {
            controller = new ControllerSettings(
                    s.number(MIN_WEIGHT),
                    s.number(MAX_WEIGHT),
                    s.number(MAX_STEP),
                    s.number(DEADBAND),
                    s.number(GAIN),
                    s.number(REPAIR_TARGET),
                    s.duration(ROUND_INTERVAL),
                    s.number(DECAY),
                    s.duration(FOLLOW_UP));
        } catch (IllegalArgumentException e) {
            throw new SettingsException("controller settings: " + e.getMessage());
        }
        return new BalancerSettings(
                s.string(CommonSettings.BOOTSTRAP_SERVERS),
                s.string(CommonSettings.SCHEMA_REGISTRY_URL),
                s.string(CommonSettings.APPLICATION_ID),
                s.string(CommonSettings.TOPIC_PREFIX),
                new LinkedHashSet<>(s.list(CommonSettings.CLUSTERS)),
                controller,
                s.duration(CommonSettings.COMMIT_INTERVAL),
                s.string(CommonSettings.STATE_DIR),
                s.integer(REPLICATION_FACTOR),
                s);
    }

    /** The defaults. */
    public static BalancerSettings defaults() {
        return from(MODEL.defaults());
    }

    /**
     * The defaults with {@code values} on top, keys as in a properties file: the settings by their
     * names ({@code bootstrap.servers}, {@code state.dir}, {@code round-interval}), durations with a
     * unit ({@code 1500ms}), any other key a Kafka key by its Kafka name. The same as
     * {@code from(MODEL.with(values))}; for embedders (the simulator, tests that run the topology in
     * their own JVM), who have no command line.
     *
     * @throws SettingsException naming the key, its value and what is allowed
     */
    public static BalancerSettings of(Map<String, String> values) {
        return from(MODEL.with(values));
    }

    /** How many clusters and nodes the controller state holds, and when a silent node is forgotten. */
    public StateLimits limits() {
        return StateLimits.from(settings);
    }

    /** The topic names under this prefix. */
    public Topics topics() {
        return new Topics(topicPrefix);
    }

    /** Configuration of the serdes: the registry URL and its credentials and TLS keys, if given. */
    public Map<String, Object> serdeConfig() {
        return settings.serdeConfig();
    }

    /** Kafka Streams configuration: the balancer's settings and every Streams key given, exactly_once_v2 fixed. */
    public Properties streamsProperties() {
        // poison pills go to the dead-letter topic (PoisonPills: the handler keys are fixed above)
        return PoisonPills.routedTo(settings.clientProperties(ClientType.STREAMS), topics().dlq());
    }

    /** {@code max-event-age}: how far behind this process's clock a report's or alert's time may lie. */
    public Duration maxEventAge() {
        return settings.duration(MAX_EVENT_AGE);
    }

    /** How far ahead of this process's clock a report's {@code windowEnd} or an alert's times may lie. */
    public FutureSkew futureSkew() {
        return FutureSkew.of(settings.duration(CommonSettings.MAX_FUTURE_SKEW));
    }

    /** The operators' keys ({@code operator-keys-file}); none: controls are not authenticated. */
    public io.skewguard.schemas.auth.NodeKeys operatorKeys() {
        return CommonSettings.operatorKeys(settings);
    }

    /** {@code decision-interval}: how often an unchanged decision is published again. */
    public Duration decisionInterval() {
        return settings.duration(CommonSettings.DECISION_INTERVAL);
    }

    /** One line, secrets hidden. */
    @Override
    public String toString() {
        return settings.toString();
    }
}
