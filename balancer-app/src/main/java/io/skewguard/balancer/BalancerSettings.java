package io.skewguard.balancer;

import io.skewguard.balancer.policy.ControllerSettings;
import io.skewguard.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The balancer's typed configuration, read once at start-up.
 *
 * <p>Every setting has one key (e.g. {@code repair-target}) used three ways, later sources winning:
 * a line {@code repair-target=0.2} in the {@code --config} properties file, the environment variable
 * {@code SKEWGUARD_BALANCER_REPAIR_TARGET}, and the flag {@code --repair-target}. File keys starting
 * with {@code streams.} are passed to Kafka Streams as they are, without the prefix (e.g. {@code
 * streams.num.stream.threads=2}).
 *
 * @param bootstrapServers Kafka bootstrap servers
 * @param schemaRegistryUrl Schema Registry URL ({@code http(s)://…} or {@code mock://scope})
 * @param applicationId Kafka Streams application id: consumer group, prefix of internal topics
 * @param topicPrefix prefix of every SkewGuard topic
 * @param clusters clusters this balancer serves; records of others are dead-lettered; empty = all
 * @param controller the weight controller's parameters
 * @param commitInterval Kafka Streams commit interval (transactions commit this often)
 * @param stateDir Kafka Streams state directory
 * @param replicationFactor replication factor of the internal changelog topic; -1 = broker default
 * @param streamsOverrides extra Kafka Streams properties from the file
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
        Map<String, String> streamsOverrides) {

    public static final String ENV_PREFIX = "SKEWGUARD_BALANCER_";

    public static final String DEFAULT_BOOTSTRAP_SERVERS = "localhost:9092";
    public static final String DEFAULT_SCHEMA_REGISTRY_URL = "http://localhost:8081";
    public static final String DEFAULT_APPLICATION_ID = "skewguard-balancer";
    public static final String DEFAULT_COMMIT_INTERVAL = "1s";
    public static final String DEFAULT_ROUND_INTERVAL = "2m";
    public static final String DEFAULT_STATE_DIR = "/tmp/skewguard-balancer";
    public static final int DEFAULT_REPLICATION_FACTOR = -1;

    /** Every key with its default, in the order of {@code --help}. */
    public static final Map<String, String> DEFAULTS = defaultsTable();

    public BalancerSettings {
        require(bootstrapServers, "bootstrap-servers");
        require(schemaRegistryUrl, "schema-registry-url");
        require(applicationId, "application-id");
        new Topics(topicPrefix); // validates the prefix
        clusters = Collections.unmodifiableSet(new LinkedHashSet<>(clusters));
        if (commitInterval.isNegative() || commitInterval.isZero()) {
            throw new IllegalArgumentException("commit-interval must be > 0, was " + commitInterval);
        }
        if (replicationFactor == 0 || replicationFactor < -1) {
            throw new IllegalArgumentException("replication-factor must be -1 or >= 1, was " + replicationFactor);
        }
        streamsOverrides = Collections.unmodifiableMap(new TreeMap<>(streamsOverrides));
    }

    /** DESIGN.md's defaults. */
    public static BalancerSettings defaults() {
        return resolve(new Properties(), Map.of(), Map.of());
    }

    /**
     * Reads the settings: built-in defaults, overridden by {@code file}, overridden by {@code env}
     * ({@code SKEWGUARD_BALANCER_<KEY>}), overridden by {@code flags} (key without dashes prefix).
     *
     * @throws IllegalArgumentException naming the key and the source of a malformed or unknown value
     */
    public static BalancerSettings resolve(Properties file, Map<String, String> env, Map<String, String> flags) {
        Map<String, String> values = new LinkedHashMap<>(DEFAULTS);
        Map<String, String> origin = new LinkedHashMap<>();
        DEFAULTS.keySet().forEach(k -> origin.put(k, "default"));
        Map<String, String> streams = new TreeMap<>();
        for (String name : file.stringPropertyNames()) {
            if (name.startsWith("streams.")) {
                streams.put(name.substring("streams.".length()), file.getProperty(name).trim());
                continue;
            }
            if (!DEFAULTS.containsKey(name)) {
                throw new IllegalArgumentException("unknown setting '" + name + "' in the config file; known: "
                        + String.join(", ", DEFAULTS.keySet()));
            }
            values.put(name, file.getProperty(name).trim());
            origin.put(name, "config file");
        }
        for (String key : DEFAULTS.keySet()) {
            String fromEnv = env.get(envName(key));
            if (fromEnv != null) {
                values.put(key, fromEnv.trim());
                origin.put(key, "environment variable " + envName(key));
            }
        }
        for (Map.Entry<String, String> flag : flags.entrySet()) {
            if (!DEFAULTS.containsKey(flag.getKey())) {
                throw new IllegalArgumentException("unknown setting '" + flag.getKey() + "'");
            }
            values.put(flag.getKey(), flag.getValue().trim());
            origin.put(flag.getKey(), "flag --" + flag.getKey());
        }
        Reader in = new Reader(values, origin);
        ControllerSettings controller;
        try {
            controller = new ControllerSettings(
                    in.number("min-weight"),
                    in.number("max-weight"),
                    in.number("max-step"),
                    in.number("deadband"),
                    in.number("gain"),
                    in.number("repair-target"),
                    in.duration("round-interval"),
                    in.number("decay"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("controller settings: " + e.getMessage(), e);
        }
        return new BalancerSettings(
                in.text("bootstrap-servers"),
                in.text("schema-registry-url"),
                in.text("application-id"),
                values.get("topic-prefix"),
                in.list("clusters"),
                controller,
                in.duration("commit-interval"),
                in.text("state-dir"),
                (int) in.integer("replication-factor"),
                streams);
    }

    /** Environment variable of a key: {@code repair-target} → {@code SKEWGUARD_BALANCER_REPAIR_TARGET}. */
    public static String envName(String key) {
        return ENV_PREFIX + key.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /** The topic names under this prefix. */
    public Topics topics() {
        return new Topics(topicPrefix);
    }

    /** Configuration of the serdes (Confluent key names). */
    public Map<String, Object> serdeConfig() {
        return Map.of("schema.registry.url", schemaRegistryUrl);
    }

    /** Kafka Streams configuration: exactly_once_v2, so state and outputs commit in one transaction. */
    public Properties streamsProperties() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(commitInterval.toMillis()));
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, Integer.toString(replicationFactor));
        props.putAll(streamsOverrides);
        return props;
    }

    private static Map<String, String> defaultsTable() {
        ControllerSettings c = ControllerSettings.defaults();
        Map<String, String> d = new LinkedHashMap<>();
        d.put("bootstrap-servers", DEFAULT_BOOTSTRAP_SERVERS);
        d.put("schema-registry-url", DEFAULT_SCHEMA_REGISTRY_URL);
        d.put("application-id", DEFAULT_APPLICATION_ID);
        d.put("topic-prefix", Topics.DEFAULT_PREFIX);
        d.put("clusters", "");
        d.put("min-weight", Double.toString(c.minWeight()));
        d.put("max-weight", Double.toString(c.maxWeight()));
        d.put("max-step", Double.toString(c.maxStep()));
        d.put("deadband", Double.toString(c.deadband()));
        d.put("gain", Double.toString(c.gain()));
        d.put("repair-target", Double.toString(c.repairTarget()));
        d.put("round-interval", DEFAULT_ROUND_INTERVAL);
        d.put("decay", Double.toString(c.decay()));
        d.put("commit-interval", DEFAULT_COMMIT_INTERVAL);
        d.put("state-dir", DEFAULT_STATE_DIR);
        d.put("replication-factor", Integer.toString(DEFAULT_REPLICATION_FACTOR));
        return Collections.unmodifiableMap(d);
    }

    private static void require(String value, String key) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(key + " must not be empty");
        }
    }

    /** Parses values, naming key, value and source in every error. */
    private record Reader(Map<String, String> values, Map<String, String> origin) {

        private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h)");

        String text(String key) {
            return values.get(key);
        }

        double number(String key) {
            try {
                double v = Double.parseDouble(values.get(key));
                if (!Double.isFinite(v)) {
                    throw new NumberFormatException();
                }
                return v;
            } catch (NumberFormatException e) {
                throw bad(key, "a number");
            }
        }

        long integer(String key) {
            try {
                return Long.parseLong(values.get(key));
            } catch (NumberFormatException e) {
                throw bad(key, "an integer");
            }
        }

        Duration duration(String key) {
            String v = values.get(key);
            try {
                if (v.startsWith("P") || v.startsWith("p")) {
                    return Duration.parse(v);
                }
            } catch (RuntimeException e) {
                throw bad(key, "a duration like 2m, 90s, 1500ms or PT2M");
            }
            Matcher m = DURATION.matcher(v);
            if (!m.matches()) {
                throw bad(key, "a duration like 2m, 90s, 1500ms or PT2M");
            }
            long amount = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                default -> Duration.ofHours(amount);
            };
        }

        Set<String> list(String key) {
            List<String> items = new ArrayList<>();
            for (String item : values.get(key).split(",")) {
                if (!item.isBlank()) {
                    items.add(item.trim());
                }
            }
            return new LinkedHashSet<>(items);
        }

        private IllegalArgumentException bad(String key, String expected) {
            return new IllegalArgumentException(key + " from " + origin.get(key) + " must be " + expected
                    + ", was '" + values.get(key) + "'");
        }
    }

    @Override
    public String toString() {
        return "BalancerSettings" + Arrays.asList(
                "bootstrap-servers=" + bootstrapServers,
                "schema-registry-url=" + schemaRegistryUrl,
                "application-id=" + applicationId,
                "topic-prefix=" + topicPrefix,
                "clusters=" + clusters,
                "controller=" + controller,
                "commit-interval=" + commitInterval,
                "state-dir=" + stateDir,
                "replication-factor=" + replicationFactor,
                "streams=" + streamsOverrides);
    }
}
