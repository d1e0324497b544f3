package io.skewguard.runtime.settings;

import io.skewguard.schemas.Topics;
import java.time.Duration;

/**
 * The settings several apps share, declared once so that each means the same in every app: where
 * Kafka and the registry are, the topic prefix, the Kafka Streams identity and state, the readiness
 * endpoint, and whether missing topics are created.
 */
public final class CommonSettings {

    public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
    public static final String SCHEMA_REGISTRY_URL = "schema.registry.url";
    public static final String TOPIC_PREFIX = "topic-prefix";
    public static final String APPLICATION_ID = "application.id";
    public static final String STATE_DIR = "state.dir";
    public static final String COMMIT_INTERVAL = "commit-interval";
    public static final String CLUSTERS = "clusters";
    public static final String HEALTH_PORT = "health-port";
    public static final String HEALTH_HOST = "health-host";
    public static final String CREATE_TOPICS = "create-topics";
    public static final String MAX_FUTURE_SKEW = "max-future-skew";
    public static final String MAX_CLUSTERS = "max-clusters";
    public static final String MAX_NODES_PER_CLUSTER = "max-nodes-per-cluster";
    public static final String NODE_EXPIRY = "node-expiry";
    public static final String OPERATOR_KEYS_FILE = "operator-keys-file";
    public static final String DECISION_INTERVAL = "decision-interval";

    private CommonSettings() {
    }

    public static Setting bootstrapServers() {
        return Setting.string(BOOTSTRAP_SERVERS, "localhost:9092", "Kafka bootstrap servers, host:port[,host:port...].")
                .validatedBy(Validator.notBlank());
    }

    public static Setting schemaRegistryUrl() {
        return Setting.string(SCHEMA_REGISTRY_URL, "http://localhost:8081",
                "Schema registry (Confluent API): http(s)://host:port[,...], or mock://SCOPE inside one process (tests, the embedded demo).")
                .validatedBy(Validator.notBlank());
    }

    public static Setting topicPrefix() {
        return Setting.string(TOPIC_PREFIX, Topics.DEFAULT_PREFIX, "Prefix of every SkewGuard topic name.")
                .validatedBy(Validator.of("a valid topic-name prefix (letters, digits, . _ -)", v -> {
                    try {
                        new Topics(v.toString());
                        return true;
                    } catch (IllegalArgumentException e) {
                        return false;
                    }
                }));
    }

    /** {@code application.id}: the Kafka Streams application id (consumer group, prefix of internal topics). */
    public static Setting applicationId(String defaultId) {
        return Setting.string(APPLICATION_ID, defaultId,
                "Kafka Streams application id: the consumer group and the prefix of the app's internal topics.")
                .validatedBy(Validator.notBlank());
    }

    /** {@code state.dir}: the Kafka Streams state directory; empty means Kafka Streams' own default. */
    public static Setting stateDir(String defaultDir) {
        return Setting.string(STATE_DIR, defaultDir, "Kafka Streams state directory (local stores; kept across restarts).");
    }

    /** {@code commit-interval}: how often Kafka Streams commits (one exactly-once transaction each time). */
    public static Setting commitInterval() {
        return Setting.duration(COMMIT_INTERVAL, "1s",
                        "Kafka Streams commit interval: each commit ends one exactly-once transaction, so output appears this often.")
                .validatedBy(Validator.positive())
                .mapsTo("commit.interval.ms", d -> Long.toString(((Duration) d).toMillis()));
    }

    /** {@code clusters}: the clusters served; records of others go to the dead-letter topic. */
    public static Setting clusters() {
        return Setting.list(CLUSTERS, "", "Clusters served (comma-separated ids); records of other clusters go to the dead-letter topic. Empty: every cluster.");
    }

    /** {@code health-port}: the port of the health and metrics endpoint; 0 turns it off. */
    public static Setting healthPort() {
        return Setting.integer(HEALTH_PORT, 0,
                        "Port of the HTTP endpoint for container health checks and Prometheus (GET /ready, GET /health, "
                                + "GET /metrics; /live is /health's older name); 0 = off.")
                .validatedBy(Validator.between(0, 65535));
    }

    /** {@code health-host}: the address the health and metrics endpoint listens on. */
    public static Setting healthHost() {
        return Setting.string(HEALTH_HOST, "127.0.0.1",
                "Address the health and metrics endpoint listens on (0.0.0.0 inside a container).").validatedBy(Validator.notBlank());
    }

    /** {@code create-topics}: create missing SkewGuard topics at start instead of refusing to start. */
    public static Setting createTopics() {
        return Setting.bool(CREATE_TOPICS, false,
                "Create missing SkewGuard topics at start (as 'skewguard topics create' would) instead of refusing to start.");
    }

    /**
     * {@code max-future-skew}: how far ahead of the receiving process's clock an event time may lie
     * (the default is Kafka 4's broker-side {@code log.message.timestamp.after.max.ms}).
     */
    public static Setting maxFutureSkew() {
        return Setting.duration(MAX_FUTURE_SKEW, "1h",
                        "Events whose time lies further ahead of this process's clock go to the dead-letter topic "
                                + "(reason 'future') and never move stream time.")
                .validatedBy(Validator.notNegative());
    }

    /** {@code max-clusters}: how many clusters one task of the app keeps state for. */
    public static Setting maxClusters() {
        return Setting.integer(MAX_CLUSTERS, 64,
                        "Most clusters one stream task keeps state for; a record that would add one more goes to the "
                                + "dead-letter topic (reason over-capacity). Bounds the app's memory and disk.")
                .validatedBy(Validator.between(1, 1_000_000));
    }

    /** {@code max-nodes-per-cluster}: how many nodes of one cluster the app keeps state for. */
    public static Setting maxNodesPerCluster() {
        return Setting.integer(MAX_NODES_PER_CLUSTER, 4096,
                        "Most nodes of one cluster the app keeps state for; a record that would add one more goes to "
                                + "the dead-letter topic (reason over-capacity).")
                .validatedBy(Validator.between(1, 1_000_000));
    }

    /**
     * {@code node-expiry}: how long a node may send nothing before the app forgets it. Each app
     * passes its own default: the detector forgets a node for its reports after minutes, the
     * balancer and migrator keep a node's control and capacity state for much longer.
     */
    public static Setting nodeExpiry(String defaultValue, String doc) {
        return Setting.duration(NODE_EXPIRY, defaultValue, doc).validatedBy(Validator.positive());
    }

    /**
     * {@code operator-keys-file}: the operators who may set the controls of {@code skewguard ctl}
     * (the balancer's and the migrator's), one {@code operator=base64key} line each.
     */
    public static Setting operatorKeysFile() {
        return Setting.string(OPERATOR_KEYS_FILE, "",
                "File of operator=base64key lines (docs/security.md): a control record counts only when it names one of these "
                        + "operators and carries its signature; others go to the dead-letter topic (reason unauthenticated). "
                        + "Empty: controls are not authenticated (a WARN at start); limit who may write the control topic with ACLs.");
    }

    /**
     * {@code decision-interval}: how often an unchanged decision (or dry-run proposal) of a cluster
     * is published again; a new reason or an action is published at once.
     */
    public static Setting decisionInterval() {
        return Setting.duration(DECISION_INTERVAL, "1m",
                        "How often the decision log repeats an unchanged decision of a cluster (and a dry run its unchanged "
                                + "proposal); a decision with a new reason, and every action, is published at once.")
                .validatedBy(Validator.positive());
    }

    /**
     * The operators' keys of {@code operator-keys-file} in {@code settings}, read now;
     * {@link io.skewguard.schemas.auth.NodeKeys#none()} when the setting is empty.
     *
     * @throws SettingsException naming the file and line of what is wrong (never a key)
     */
    public static io.skewguard.schemas.auth.NodeKeys operatorKeys(Settings settings) {
        String file = settings.string(OPERATOR_KEYS_FILE);
        if (file.isBlank()) {
            return io.skewguard.schemas.auth.NodeKeys.none();
        }
        try {
            return io.skewguard.schemas.auth.NodeKeys.read(java.nio.file.Path.of(file), "operator");
        } catch (IllegalArgumentException e) {
            throw new SettingsException(OPERATOR_KEYS_FILE + ": " + e.getMessage() + " (from " + settings.origin(OPERATOR_KEYS_FILE) + ")");
        }
    }
}
