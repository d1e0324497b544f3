package io.skewguard.detector;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The command-line flags of every detector setting (a picocli mixin shared by {@code detector}
 * and {@code detector replay}). A flag left out is null, so the file and the environment keep
 * their say (precedence: defaults &lt; file &lt; environment &lt; flags).
 */
public final class SettingsFlags {

    @Option(names = "--config", paramLabel = "FILE",
            description = "Properties file: skew.* settings (e.g. skew.window=60s) and Kafka Streams / client properties.")
    Path config;

    @Option(names = "--bootstrap-servers", paramLabel = "HOST:PORT,...",
            description = "Kafka bootstrap servers (default: " + DetectorSettings.DEFAULT_BOOTSTRAP_SERVERS + ").")
    String bootstrapServers;

    @Option(names = "--schema-registry-url", paramLabel = "URL",
            description = "Schema registry: http(s)://... or mock://scope (default: " + DetectorSettings.DEFAULT_SCHEMA_REGISTRY_URL + ").")
    String schemaRegistryUrl;

    @Option(names = "--application-id", description = "Kafka Streams application id (default: " + DetectorSettings.DEFAULT_APPLICATION_ID + ").")
    String applicationId;

    @Option(names = "--topic-prefix", description = "Prefix of every topic name (default: " + DetectorSettings.DEFAULT_TOPIC_PREFIX + ").")
    String topicPrefix;

    @Option(names = "--window", paramLabel = "DURATION", description = "Sliding window length, a multiple of the tick (default: " + DetectorSettings.DEFAULT_WINDOW + ").")
    String window;

    @Option(names = "--tick", paramLabel = "DURATION", description = "Report interval in event time (default: " + DetectorSettings.DEFAULT_TICK + ").")
    String tick;

    @Option(names = "--grace", paramLabel = "DURATION", description = "How late an event may be and still count (default: " + DetectorSettings.DEFAULT_GRACE + ").")
    String grace;

    @Option(names = "--cooldown", paramLabel = "DURATION", description = "How long a metric must stay above its threshold to confirm an alert (default: " + DetectorSettings.DEFAULT_COOLDOWN + ").")
    String cooldown;

    @Option(names = "--heat-threshold", description = "Heat Gini alert threshold (default: " + DetectorSettings.DEFAULT_HEAT_THRESHOLD + ").")
    String heatThreshold;

    @Option(names = "--capacity-threshold", description = "Capacity CV alert threshold (default: " + DetectorSettings.DEFAULT_CAPACITY_THRESHOLD + ").")
    String capacityThreshold;

    @Option(names = "--hysteresis", description = "A CONFIRMED alert clears below threshold x (1 - hysteresis) (default: " + DetectorSettings.DEFAULT_HYSTERESIS + ").")
    String hysteresis;

    @Option(names = "--max-future", paramLabel = "DURATION", description = "Events further ahead of the cluster's stream time go to the DLQ (default: " + DetectorSettings.DEFAULT_MAX_FUTURE + ").")
    String maxFuture;

    @Option(names = "--node-expiry", paramLabel = "DURATION", description = "A node without heat is forgotten this long after its last capacity report (default: " + DetectorSettings.DEFAULT_NODE_EXPIRY + ").")
    String nodeExpiry;

    @Option(names = "--flush-interval", paramLabel = "DURATION", description = "Wall-clock interval at which the ingest stage hands its buffers on (default: " + DetectorSettings.DEFAULT_FLUSH_INTERVAL + ").")
    String flushInterval;

    @Option(names = "--top-slots", description = "Hottest slots listed per report (default: " + DetectorSettings.DEFAULT_TOP_SLOTS + ").")
    String topSlots;

    @Option(names = "--max-slots", description = "Slots are 0 <= slot < max-slots; others go to the DLQ (default: " + DetectorSettings.DEFAULT_MAX_SLOTS + ").")
    String maxSlots;

    @Option(names = "--clusters", paramLabel = "ID,...", description = "Accept only these clusters; others go to the DLQ (default: any).")
    String clusters;

    @Option(names = "--processing-guarantee", description = "exactly_once_v2 or at_least_once (default: " + DetectorSettings.DEFAULT_PROCESSING_GUARANTEE + ").")
    String processingGuarantee;

    @Option(names = "--commit-interval", paramLabel = "DURATION", description = "Kafka Streams commit interval; also how soon the ingest loop commits output that is due (default: " + DetectorSettings.DEFAULT_COMMIT_INTERVAL + ").")
    String commitInterval;

    @Option(names = "--purge-interval", paramLabel = "DURATION", description = "How often records of <application-id>-partials that stage two has committed are deleted; 0 disables (default: " + DetectorSettings.DEFAULT_PURGE_INTERVAL + ").")
    String purgeInterval;

    @Option(names = "--threads", description = "Kafka Streams threads of stage two (default: " + DetectorSettings.DEFAULT_THREADS + ").")
    String threads;

    @Option(names = "--ingest-threads", description = "Ingest loops (plain consumer + transactional producer each) in this process (default: " + DetectorSettings.DEFAULT_INGEST_THREADS + ").")
    String ingestThreads;

    @Option(names = "--instance-id", description = "Stable id of this instance, part of the ingest producers' transactional.id (default: a random one per start).")
    String instanceId;

    @Option(names = "--state-dir", description = "Kafka Streams state directory (default: Kafka Streams' own).")
    String stateDir;

    /** The flags given, by setting name. */
    public Map<String, String> given() {
        Map<String, String> m = new LinkedHashMap<>();
        put(m, DetectorSettings.BOOTSTRAP_SERVERS, bootstrapServers);
        put(m, DetectorSettings.SCHEMA_REGISTRY_URL, schemaRegistryUrl);
        put(m, DetectorSettings.APPLICATION_ID, applicationId);
        put(m, DetectorSettings.TOPIC_PREFIX, topicPrefix);
        put(m, DetectorSettings.WINDOW, window);
        put(m, DetectorSettings.TICK, tick);
        put(m, DetectorSettings.GRACE, grace);
        put(m, DetectorSettings.COOLDOWN, cooldown);
        put(m, DetectorSettings.HEAT_THRESHOLD, heatThreshold);
        put(m, DetectorSettings.CAPACITY_THRESHOLD, capacityThreshold);
        put(m, DetectorSettings.HYSTERESIS, hysteresis);
        put(m, DetectorSettings.MAX_FUTURE, maxFuture);
        put(m, DetectorSettings.NODE_EXPIRY, nodeExpiry);
        put(m, DetectorSettings.FLUSH_INTERVAL, flushInterval);
        put(m, DetectorSettings.TOP_SLOTS, topSlots);
        put(m, DetectorSettings.MAX_SLOTS, maxSlots);
        put(m, DetectorSettings.CLUSTERS, clusters);
        put(m, DetectorSettings.PROCESSING_GUARANTEE, processingGuarantee);
        put(m, DetectorSettings.COMMIT_INTERVAL, commitInterval);
        put(m, DetectorSettings.PURGE_INTERVAL, purgeInterval);
        put(m, DetectorSettings.THREADS, threads);
        put(m, DetectorSettings.INGEST_THREADS, ingestThreads);
        put(m, DetectorSettings.INSTANCE_ID, instanceId);
        put(m, DetectorSettings.STATE_DIR, stateDir);
        return m;
    }

    public Path config() {
        return config;
    }

    private static void put(Map<String, String> m, String name, String value) {
        if (value != null) {
            m.put(name, value);
        }
    }
}
