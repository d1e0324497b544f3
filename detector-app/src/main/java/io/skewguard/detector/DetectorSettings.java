package io.skewguard.detector;

import io.skewguard.detector.policy.DetectionParameters;
import io.skewguard.detector.policy.InputCheck;
import io.skewguard.schemas.Topics;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The detector's whole configuration, read once: DESIGN.md §3 defaults, overridden by a properties
 * file, then by environment variables, then by command-line flags.
 *
 * <p>Every setting has a key {@code skew.<name>} (in the file), an environment variable
 * {@code SKEWGUARD_DETECTOR_<NAME>} (name upper-cased, {@code -} → {@code _}) and a flag
 * {@code --<name>}. Other keys of the file are Kafka Streams / client / serde properties passed on
 * as they are; environment variables {@code SKEWGUARD_DETECTOR_KAFKA_<KEY>} add such properties
 * ({@code KEY} lower-cased, {@code _} → {@code .}, e.g. {@code SKEWGUARD_DETECTOR_KAFKA_SECURITY_PROTOCOL}).
 * The Kafka keys the detector sets itself ({@code bootstrap.servers}, {@code application.id},
 * {@code processing.guarantee}, {@code commit.interval.ms}, {@code num.stream.threads},
 * {@code state.dir}, {@code schema.registry.url}) are read from the file as their {@code skew.*}
 * setting, so the precedence holds for them too.
 *
 * <p>Durations accept {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 2d}, ISO-8601
 * ({@code PT1M}) or plain milliseconds.
 */
public record DetectorSettings(
        String bootstrapServers,
        String schemaRegistryUrl,
        String applicationId,
        String topicPrefix,
        Duration window,
        Duration tick,
        Duration grace,
        Duration cooldown,
        double heatThreshold,
        double capacityThreshold,
        double hysteresis,
        Duration maxFuture,
        Duration nodeExpiry,
        Duration flushInterval,
        int topSlots,
        int maxSlots,
        Set<String> clusters,
        String processingGuarantee,
        Duration commitInterval,
        Duration purgeInterval,
        int streamThreads,
        int ingestThreads,
        String instanceId,
        String stateDir,
        Map<String, String> kafka) {

    public static final String PREFIX = "skew.";
    public static final String ENV_PREFIX = "SKEWGUARD_DETECTOR_";
    public static final String ENV_KAFKA_PREFIX = "SKEWGUARD_DETECTOR_KAFKA_";

    // names and defaults (DESIGN.md §3, §7, §8); the flag descriptions quote them
    public static final String BOOTSTRAP_SERVERS = "bootstrap-servers";
    public static final String DEFAULT_BOOTSTRAP_SERVERS = "localhost:9092";
    public static final String SCHEMA_REGISTRY_URL = "schema-registry-url";
    public static final String DEFAULT_SCHEMA_REGISTRY_URL = "http://localhost:8081";
    public static final String APPLICATION_ID = "application-id";
    public static final String DEFAULT_APPLICATION_ID = "skewguard-detector";
    public static final String TOPIC_PREFIX = "topic-prefix";
    public static final String DEFAULT_TOPIC_PREFIX = Topics.DEFAULT_PREFIX;
    public static final String WINDOW = "window";
    public static final String DEFAULT_WINDOW = "60s";
    public static final String TICK = "tick";
    public static final String DEFAULT_TICK = "10s";
    public static final String GRACE = "grace";
    public static final String DEFAULT_GRACE = "30s";
    public static final String COOLDOWN = "cooldown";
    public static final String DEFAULT_COOLDOWN = "5m";
    public static final String HEAT_THRESHOLD = "heat-threshold";
    public static final String DEFAULT_HEAT_THRESHOLD = "0.40";
    public static final String CAPACITY_THRESHOLD = "capacity-threshold";
    public static final String DEFAULT_CAPACITY_THRESHOLD = "0.25";
    public static final String HYSTERESIS = "hysteresis";
    public static final String DEFAULT_HYSTERESIS = "0.10";
    public static final String MAX_FUTURE = "max-future";
    public static final String DEFAULT_MAX_FUTURE = "1h";
    public static final String NODE_EXPIRY = "node-expiry";
    public static final String DEFAULT_NODE_EXPIRY = "10m";
    public static final String FLUSH_INTERVAL = "flush-interval";
    public static final String DEFAULT_FLUSH_INTERVAL = "1s";
    public static final String TOP_SLOTS = "top-slots";
    public static final String DEFAULT_TOP_SLOTS = "10";
    public static final String MAX_SLOTS = "max-slots";
    public static final String DEFAULT_MAX_SLOTS = "4096";
    public static final String CLUSTERS = "clusters";
    public static final String DEFAULT_CLUSTERS = "";
    public static final String PROCESSING_GUARANTEE = "processing-guarantee";
    public static final String DEFAULT_PROCESSING_GUARANTEE = StreamsConfig.EXACTLY_ONCE_V2;
    public static final String COMMIT_INTERVAL = "commit-interval";
    public static final String DEFAULT_COMMIT_INTERVAL = "1s";
    public static final String PURGE_INTERVAL = "purge-interval";
    public static final String DEFAULT_PURGE_INTERVAL = "30s";
    public static final String THREADS = "threads";
    public static final String DEFAULT_THREADS = "1";
    public static final String INGEST_THREADS = "ingest-threads";
    public static final String DEFAULT_INGEST_THREADS = "1";
    public static final String INSTANCE_ID = "instance-id";
    public static final String DEFAULT_INSTANCE_ID = "";
    public static final String STATE_DIR = "state-dir";
    public static final String DEFAULT_STATE_DIR = "";

    /** Every setting name with its default, in a stable order. */
    public static final Map<String, String> DEFAULTS = defaults();

    /** Kafka keys that are read as their skew.* setting. */
    private static final Map<String, String> KAFKA_ALIASES = Map.of(
            StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP_SERVERS,
            StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID,
            StreamsConfig.PROCESSING_GUARANTEE_CONFIG, PROCESSING_GUARANTEE,
            StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, COMMIT_INTERVAL,
            StreamsConfig.NUM_STREAM_THREADS_CONFIG, THREADS,
            StreamsConfig.STATE_DIR_CONFIG, STATE_DIR,
            "schema.registry.url", SCHEMA_REGISTRY_URL);

    public DetectorSettings {
        clusters = Set.copyOf(clusters);
        kafka = Map.copyOf(kafka);
        // validates the window geometry early (fields are not assigned yet: use the parameters)
        new DetectionParameters(tick.toMillis(), window.toMillis(), grace.toMillis(), cooldown.toMillis(),
                heatThreshold, capacityThreshold, hysteresis, nodeExpiry.toMillis(), topSlots);
        if (!(heatThreshold >= 0) || !(capacityThreshold >= 0) || !(hysteresis >= 0 && hysteresis < 1)) {
            throw new IllegalArgumentException("thresholds must be >= 0 and hysteresis in [0, 1)");
        }
        if (flushInterval.isNegative() || flushInterval.isZero() || commitInterval.isNegative()
                || purgeInterval.isNegative() || maxFuture.isNegative() || topSlots < 0 || maxSlots < 1 || streamThreads < 1 || ingestThreads < 1) {
            throw new IllegalArgumentException("flush interval must be > 0, max-slots, threads and ingest-threads >= 1, "
                    + "commit interval, purge interval, max-future and top-slots >= 0");
        }
        new Topics(topicPrefix);
    }

    /** The defaults alone. */
    public static DetectorSettings defaultSettings() {
        return fromMap(Map.of());
    }

    /**
     * Merges the layers (each may be empty) and parses the result.
     *
     * @param file the properties file's content ({@code skew.*} and Kafka keys)
     * @param env the process environment ({@code SKEWGUARD_DETECTOR_*} variables are read)
     * @param flags setting name (without {@code skew.}) → value, from the command line
     */
    public static DetectorSettings load(Properties file, Map<String, String> env, Map<String, String> flags) {
        Map<String, String> settings = new LinkedHashMap<>();
        Map<String, String> kafka = new TreeMap<>();
        for (String key : file.stringPropertyNames()) {
            String value = file.getProperty(key).trim();
            if (key.startsWith(PREFIX)) {
                settings.put(known(key.substring(PREFIX.length()), "file key " + key), value);
            } else if (KAFKA_ALIASES.containsKey(key)) {
                settings.putIfAbsent(KAFKA_ALIASES.get(key), value);
            } else {
                kafka.put(key, value);
            }
        }
        for (Map.Entry<String, String> e : env.entrySet()) {
            String var = e.getKey();
            if (var.startsWith(ENV_KAFKA_PREFIX)) {
                kafka.put(var.substring(ENV_KAFKA_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.'), e.getValue());
            } else if (var.startsWith(ENV_PREFIX)) {
                String name = var.substring(ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '-');
                settings.put(known(name, "environment variable " + var), e.getValue().trim());
            }
        }
        flags.forEach((name, value) -> {
            if (value != null) {
                settings.put(known(name, "flag --" + name), value.trim());
            }
        });
        Map<String, String> all = new LinkedHashMap<>(settings);
        kafka.forEach((k, v) -> all.put("kafka:" + k, v));
        return fromMap(all);
    }

    /** Reads a properties file. */
    public static Properties readFile(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file)) {
            p.load(r);
        }
        return p;
    }

    /** The environment variable of setting {@code name}. */
    public static String envVariable(String name) {
        return ENV_PREFIX + name.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    private static DetectorSettings fromMap(Map<String, String> given) {
        Map<String, String> v = new LinkedHashMap<>(DEFAULTS);
        Map<String, String> kafka = new TreeMap<>();
        given.forEach((k, val) -> {
            if (k.startsWith("kafka:")) {
                kafka.put(k.substring(6), val);
            } else {
                v.put(known(k, "setting " + k), val);
            }
        });
        return new DetectorSettings(
                v.get(BOOTSTRAP_SERVERS),
                v.get(SCHEMA_REGISTRY_URL),
                v.get(APPLICATION_ID),
                v.get(TOPIC_PREFIX),
                duration(WINDOW, v.get(WINDOW)),
                duration(TICK, v.get(TICK)),
                duration(GRACE, v.get(GRACE)),
                duration(COOLDOWN, v.get(COOLDOWN)),
                number(HEAT_THRESHOLD, v.get(HEAT_THRESHOLD)),
                number(CAPACITY_THRESHOLD, v.get(CAPACITY_THRESHOLD)),
                number(HYSTERESIS, v.get(HYSTERESIS)),
                duration(MAX_FUTURE, v.get(MAX_FUTURE)),
                duration(NODE_EXPIRY, v.get(NODE_EXPIRY)),
                duration(FLUSH_INTERVAL, v.get(FLUSH_INTERVAL)),
                integer(TOP_SLOTS, v.get(TOP_SLOTS)),
                integer(MAX_SLOTS, v.get(MAX_SLOTS)),
                Arrays.stream(v.get(CLUSTERS).split(",")).map(String::trim).filter(s -> !s.isEmpty())
                        .collect(Collectors.toCollection(LinkedHashSet::new)),
                v.get(PROCESSING_GUARANTEE),
                duration(COMMIT_INTERVAL, v.get(COMMIT_INTERVAL)),
                duration(PURGE_INTERVAL, v.get(PURGE_INTERVAL)),
                integer(THREADS, v.get(THREADS)),
                integer(INGEST_THREADS, v.get(INGEST_THREADS)),
                v.get(INSTANCE_ID).trim(),
                v.get(STATE_DIR),
                kafka);
    }

    private static Map<String, String> defaults() {
        Map<String, String> d = new LinkedHashMap<>();
        d.put(BOOTSTRAP_SERVERS, DEFAULT_BOOTSTRAP_SERVERS);
        d.put(SCHEMA_REGISTRY_URL, DEFAULT_SCHEMA_REGISTRY_URL);
        d.put(APPLICATION_ID, DEFAULT_APPLICATION_ID);
        d.put(TOPIC_PREFIX, DEFAULT_TOPIC_PREFIX);
        d.put(WINDOW, DEFAULT_WINDOW);
        d.put(TICK, DEFAULT_TICK);
        d.put(GRACE, DEFAULT_GRACE);
        d.put(COOLDOWN, DEFAULT_COOLDOWN);
        d.put(HEAT_THRESHOLD, DEFAULT_HEAT_THRESHOLD);
        d.put(CAPACITY_THRESHOLD, DEFAULT_CAPACITY_THRESHOLD);
        d.put(HYSTERESIS, DEFAULT_HYSTERESIS);
        d.put(MAX_FUTURE, DEFAULT_MAX_FUTURE);
        d.put(NODE_EXPIRY, DEFAULT_NODE_EXPIRY);
        d.put(FLUSH_INTERVAL, DEFAULT_FLUSH_INTERVAL);
        d.put(TOP_SLOTS, DEFAULT_TOP_SLOTS);
        d.put(MAX_SLOTS, DEFAULT_MAX_SLOTS);
        d.put(CLUSTERS, DEFAULT_CLUSTERS);
        d.put(PROCESSING_GUARANTEE, DEFAULT_PROCESSING_GUARANTEE);
        d.put(COMMIT_INTERVAL, DEFAULT_COMMIT_INTERVAL);
        d.put(PURGE_INTERVAL, DEFAULT_PURGE_INTERVAL);
        d.put(THREADS, DEFAULT_THREADS);
        d.put(INGEST_THREADS, DEFAULT_INGEST_THREADS);
        d.put(INSTANCE_ID, DEFAULT_INSTANCE_ID);
        d.put(STATE_DIR, DEFAULT_STATE_DIR);
        return java.util.Collections.unmodifiableMap(d);
    }

    private static String known(String name, String where) {
        if (!DEFAULTS.containsKey(name)) {
            throw new IllegalArgumentException("unknown " + where + "; known settings: "
                    + String.join(", ", DEFAULTS.keySet()));
        }
        return name;
    }

    /** Parses {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 2d}, ISO-8601 or plain ms. */
    public static Duration duration(String name, String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.startsWith("p")) {
                return Duration.parse(t.toUpperCase(Locale.ROOT));
            }
            for (var unit : List.of(Map.entry("ms", 1L), Map.entry("s", 1_000L), Map.entry("m", 60_000L),
                    Map.entry("h", 3_600_000L), Map.entry("d", 86_400_000L))) {
                if (t.endsWith(unit.getKey())) {
                    String num = t.substring(0, t.length() - unit.getKey().length()).trim();
                    return Duration.ofMillis(Math.round(Double.parseDouble(num) * unit.getValue()));
                }
            }
            return Duration.ofMillis(Long.parseLong(t));
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException(name + ": '" + text + "' is not a duration (e.g. 500ms, 10s, 5m, 1h, PT1M)");
        }
    }

    private static double number(String name, String text) {
        try {
            return Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": '" + text + "' is not a number");
        }
    }

    private static int integer(String name, String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + ": '" + text + "' is not an integer");
        }
    }

    // ---- derived views

    public Topics topics() {
        return new Topics(topicPrefix);
    }

    public DetectionParameters detection() {
        return new DetectionParameters(tick.toMillis(), window.toMillis(), grace.toMillis(), cooldown.toMillis(),
                heatThreshold, capacityThreshold, hysteresis, nodeExpiry.toMillis(), topSlots);
    }

    public InputCheck inputCheck() {
        return new InputCheck(grace.toMillis(), maxFuture.toMillis(), maxSlots, clusters);
    }

    /** Configuration of the schema-registry serdes: the Kafka pass-through keys plus the URL. */
    public Map<String, Object> serdeConfig() {
        Map<String, Object> m = new LinkedHashMap<>(kafka);
        m.put("schema.registry.url", schemaRegistryUrl);
        return m;
    }

    /** The Kafka Streams properties: pass-through keys, then the ones the detector sets. */
    public Properties streamsProperties() {
        Properties p = new Properties();
        p.putAll(kafka);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, processingGuarantee);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, Long.toString(commitInterval.toMillis()));
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, Integer.toString(streamThreads));
        if (!stateDir.isBlank()) {
            p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
        }
        return p;
    }

    /** The topic stage one writes its partials to and stage two reads: {@code <application-id>-partials}. */
    public String partialsTopic() {
        return applicationId + "-partials";
    }

    /** The consumer group of the ingest loops: {@code <application-id>-ingest}. */
    public String ingestGroupId() {
        return applicationId + "-ingest";
    }

    /**
     * Properties of an ingest loop's consumer: the pass-through keys a consumer knows (and
     * {@code consumer.}-prefixed ones, prefix removed), then group {@link #ingestGroupId()},
     * {@code read_committed}, no auto commit, 2000 records per poll, {@code earliest} unless given.
     */
    public Properties ingestConsumerProperties(String clientId) {
        Properties p = clientProperties(ConsumerConfig.configNames(), "consumer.");
        p.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, ingestGroupId());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return p;
    }

    /**
     * Properties of an ingest loop's transactional producer: the pass-through keys a producer
     * knows (and {@code producer.}-prefixed ones), then {@code transactional.id}; transaction
     * timeout 10 s unless given (what a crashed loop's open transaction can block, at most).
     */
    public Properties ingestProducerProperties(String transactionalId) {
        Properties p = clientProperties(ProducerConfig.configNames(), "producer.");
        p.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "10000");
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        return p;
    }

    /** Properties of an admin client: the pass-through keys it knows, and the bootstrap servers. */
    public Properties adminProperties() {
        return clientProperties(AdminClientConfig.configNames(), "admin.");
    }

    private Properties clientProperties(Set<String> known, String prefix) {
        Properties p = new Properties();
        kafka.forEach((k, val) -> {
            if (known.contains(k)) {
                p.put(k, val);
            }
        });
        kafka.forEach((k, val) -> {
            if (k.startsWith(prefix) && known.contains(k.substring(prefix.length()))) {
                p.put(k.substring(prefix.length()), val);
            }
        });
        p.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return p;
    }

    /** A copy with other values for some settings (names as in {@link #DEFAULTS}); for tests and tools. */
    public DetectorSettings with(Map<String, String> overrides) {
        Map<String, String> all = new LinkedHashMap<>(asMap());
        all.putAll(overrides);
        kafka.forEach((k, val) -> all.put("kafka:" + k, val));
        return fromMap(all);
    }

    /** Every setting as text, by name. */
    public Map<String, String> asMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(BOOTSTRAP_SERVERS, bootstrapServers);
        m.put(SCHEMA_REGISTRY_URL, schemaRegistryUrl);
        m.put(APPLICATION_ID, applicationId);
        m.put(TOPIC_PREFIX, topicPrefix);
        m.put(WINDOW, window.toMillis() + "ms");
        m.put(TICK, tick.toMillis() + "ms");
        m.put(GRACE, grace.toMillis() + "ms");
        m.put(COOLDOWN, cooldown.toMillis() + "ms");
        m.put(HEAT_THRESHOLD, Double.toString(heatThreshold));
        m.put(CAPACITY_THRESHOLD, Double.toString(capacityThreshold));
        m.put(HYSTERESIS, Double.toString(hysteresis));
        m.put(MAX_FUTURE, maxFuture.toMillis() + "ms");
        m.put(NODE_EXPIRY, nodeExpiry.toMillis() + "ms");
        m.put(FLUSH_INTERVAL, flushInterval.toMillis() + "ms");
        m.put(TOP_SLOTS, Integer.toString(topSlots));
        m.put(MAX_SLOTS, Integer.toString(maxSlots));
        m.put(CLUSTERS, String.join(",", clusters));
        m.put(PROCESSING_GUARANTEE, processingGuarantee);
        m.put(COMMIT_INTERVAL, commitInterval.toMillis() + "ms");
        m.put(PURGE_INTERVAL, purgeInterval.toMillis() + "ms");
        m.put(THREADS, Integer.toString(streamThreads));
        m.put(INGEST_THREADS, Integer.toString(ingestThreads));
        m.put(INSTANCE_ID, instanceId);
        m.put(STATE_DIR, stateDir);
        return m;
    }
}
