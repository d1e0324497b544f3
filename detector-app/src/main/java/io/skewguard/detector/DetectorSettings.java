package io.skewguard.detector;

import io.skewguard.detector.policy.DetectionParameters;
import io.skewguard.detector.policy.InputCheck;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.streams.PoisonPills;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Durations;
import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsException;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.settings.Validator;
import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.schemas.Topics;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The detector's settings: {@link #MODEL} declares every one of them (name, type, default, rule),
 * and this record is the typed view the detector runs with, built {@link #from(Settings)} once they
 * are read. The layers (defaults &lt; {@code --config} file &lt; environment
 * {@code SKEWGUARD_DETECTOR_<KEY>} &lt; flags), the duration syntax, the Kafka keys each client gets
 * and the error messages are the settings model's ({@link SettingsModel}).
 *
 * @param settings the settings as read, for the Kafka clients' properties and the start-up log
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
        Duration maxFutureSkew,
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
        boolean ingestTakeThread,
        String instanceId,
        String stateDir,
        int healthPort,
        String healthHost,
        Settings settings) {

    // the names of the settings (file key; the flag is --name with . as -)
    public static final String BOOTSTRAP_SERVERS = CommonSettings.BOOTSTRAP_SERVERS;
    public static final String SCHEMA_REGISTRY_URL = CommonSettings.SCHEMA_REGISTRY_URL;
    public static final String APPLICATION_ID = CommonSettings.APPLICATION_ID;
    public static final String TOPIC_PREFIX = CommonSettings.TOPIC_PREFIX;
    public static final String STATE_DIR = CommonSettings.STATE_DIR;
    public static final String COMMIT_INTERVAL = CommonSettings.COMMIT_INTERVAL;
    public static final String CLUSTERS = CommonSettings.CLUSTERS;
    public static final String HEALTH_PORT = CommonSettings.HEALTH_PORT;
    public static final String HEALTH_HOST = CommonSettings.HEALTH_HOST;
    public static final String WINDOW = "window";
    public static final String TICK = "tick";
    public static final String GRACE = "grace";
    public static final String COOLDOWN = "cooldown";
    public static final String HEAT_THRESHOLD = "heat-threshold";
    public static final String CAPACITY_THRESHOLD = "capacity-threshold";
    public static final String HYSTERESIS = "hysteresis";
    public static final String MAX_FUTURE_SKEW = CommonSettings.MAX_FUTURE_SKEW;
    public static final String NODE_EXPIRY = "node-expiry";
    public static final String FLUSH_INTERVAL = "flush-interval";
    public static final String TOP_SLOTS = "top-slots";
    public static final String MAX_SLOTS = "max-slots";
    public static final String PROCESSING_GUARANTEE = "processing-guarantee";
    public static final String PURGE_INTERVAL = "purge-interval";
    public static final String THREADS = "threads";
    public static final String INGEST_THREADS = "ingest-threads";
    public static final String INGEST_TAKE_THREAD = "ingest-take-thread";
    public static final String INSTANCE_ID = "instance-id";

    public static final String DEFAULT_APPLICATION_ID = "skewguard-detector";

    /** Every setting of the detector (docs/design.md §6.3, §5, §4 give the reasons for the defaults). */
    public static final SettingsModel MODEL = PoisonPills.handledBy(SettingsModel.builder("detector")
            .description("Detects write-heat and capacity skew per cluster: reads <prefix>node-writes and "
                    + "<prefix>node-capacity, writes <prefix>reports every tick, <prefix>alerts on every alert "
                    + "transition and bad input to <prefix>dlq.")
            .add(CommonSettings.bootstrapServers(),
                    CommonSettings.schemaRegistryUrl(),
                    CommonSettings.applicationId(DEFAULT_APPLICATION_ID),
                    CommonSettings.topicPrefix(),
                    CommonSettings.stateDir(""),
                    CommonSettings.commitInterval(),
                    CommonSettings.clusters(),
                    CommonSettings.healthPort(),
                    CommonSettings.healthHost(),
                    CommonSettings.createTopics(),
                    CommonSettings.maxFutureSkew())
            .add(Setting.duration(WINDOW, "60s", "Sliding window length in event time; a multiple of tick.")
                            .validatedBy(Validator.positive()),
                    Setting.duration(TICK, "10s", "Report interval in event time: one report per cluster per tick.")
                            .validatedBy(Validator.positive()),
                    Setting.duration(GRACE, "30s", "How late (behind the cluster's stream time) an event may be and still count.")
                            .validatedBy(Validator.notNegative()),
                    Setting.duration(COOLDOWN, "5m", "How long a metric must stay above its threshold to confirm an alert.")
                            .validatedBy(Validator.notNegative()),
                    Setting.number(HEAT_THRESHOLD, 0.40, "Heat Gini alert threshold.").validatedBy(Validator.atLeast(0)),
                    Setting.number(CAPACITY_THRESHOLD, 0.25, "Capacity CV alert threshold.").validatedBy(Validator.atLeast(0)),
                    Setting.number(HYSTERESIS, 0.10, "A CONFIRMED alert clears below threshold x (1 - hysteresis).")
                            .validatedBy(Validator.inRange(0, 1)),
                    Setting.duration(NODE_EXPIRY, "10m", "A node without heat is forgotten this long after its last "
                                    + "capacity report: left out of the reports and removed from the detector's state.")
                            .validatedBy(Validator.notNegative()),
                    CommonSettings.maxClusters(),
                    CommonSettings.maxNodesPerCluster(),
                    Setting.duration(FLUSH_INTERVAL, "1s", "Wall-clock interval at which the ingest stage hands its buffers on (sooner at the end of a backlog of 10,000 records or more).")
                            .validatedBy(Validator.positive()),
                    Setting.integer(TOP_SLOTS, 10, "Hottest slots listed per report.").validatedBy(Validator.atLeast(0)),
                    Setting.integer(MAX_SLOTS, 4096, "Slots are 0 <= slot < max-slots; others go to the dead-letter topic.")
                            .validatedBy(Validator.atLeast(1)),
                    Setting.string(PROCESSING_GUARANTEE, StreamsConfig.EXACTLY_ONCE_V2,
                                    "Kafka Streams processing guarantee of stage two.")
                            .validatedBy(Validator.oneOf(StreamsConfig.EXACTLY_ONCE_V2, StreamsConfig.AT_LEAST_ONCE))
                            .mapsTo(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, v -> v.toString().toLowerCase(Locale.ROOT)),
                    Setting.duration(PURGE_INTERVAL, "30s", "How often records of <application.id>-partials that stage two "
                                    + "has committed are deleted; 0 turns purging off.")
                            .validatedBy(Validator.notNegative()),
                    Setting.integer(THREADS, 1, "Kafka Streams threads of stage two.")
                            .validatedBy(Validator.atLeast(1))
                            .mapsTo(StreamsConfig.NUM_STREAM_THREADS_CONFIG, v -> v.toString()),
                    Setting.integer(INGEST_THREADS, 1, "Ingest loops (plain consumer + transactional producer each) in this "
                                    + "process; the group's assignment gives each its share of the input partitions. Each "
                                    + "loop takes its partitions' records in event-time order, and several loops keep within "
                                    + "half the grace period of each other in record time, so the reports are as exact as "
                                    + "with one; an event then counts exactly when it is at most half the grace period "
                                    + "behind its partition's next record (one loop: the whole grace period). Loops of "
                                    + "different processes do not keep pace with each other.")
                            .validatedBy(Validator.atLeast(1)),
                    Setting.bool(INGEST_TAKE_THREAD, true, "A second thread per ingest loop that takes (decodes, checks, "
                            + "sums) the fetched records while the loop's thread polls the next ones; false: the loop's "
                            + "own thread takes each poll's records before the next poll."),
                    Setting.string(INSTANCE_ID, "", "Stable id of this instance, part of the ingest producers' "
                            + "transactional.id. Empty: a random one per start."))
            .fixes(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                    "the ingest loops and stage two must not read partials or events of aborted transactions")
            .fixes(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
                    "the ingest loops' transactional producers need idempotence")
            .fixes(ProducerConfig.ACKS_CONFIG, "all",
                    "the ingest loops' idempotent, transactional producers need every in-sync replica's acknowledgement")
            ).build();

    public DetectorSettings {
        clusters = Set.copyOf(clusters);
    }

    /**
     * The typed view of {@code s}, after the rules between settings that the model cannot state
     * one setting at a time (the window geometry).
     *
     * @throws SettingsException naming the settings and where they came from
     */
    public static DetectorSettings from(Settings s) {
        Duration window = s.duration(WINDOW);
        Duration tick = s.duration(TICK);
        if (window.compareTo(tick) < 0 || window.toMillis() % tick.toMillis() != 0) {
            throw new SettingsException(WINDOW + ": " + Durations.format(window) + " (from " + s.origin(WINDOW)
                    + ") must be a multiple of tick " + Durations.format(tick) + " (from " + s.origin(TICK) + ")");
        }
        return new DetectorSettings(
                s.string(BOOTSTRAP_SERVERS),
                s.string(SCHEMA_REGISTRY_URL),
                s.string(APPLICATION_ID),
                s.string(TOPIC_PREFIX),
                window,
                tick,
                s.duration(GRACE),
                s.duration(COOLDOWN),
                s.number(HEAT_THRESHOLD),
                s.number(CAPACITY_THRESHOLD),
                s.number(HYSTERESIS),
                s.duration(MAX_FUTURE_SKEW),
                s.duration(NODE_EXPIRY),
                s.duration(FLUSH_INTERVAL),
                s.integer(TOP_SLOTS),
                s.integer(MAX_SLOTS),
                new LinkedHashSet<>(s.list(CLUSTERS)),
                s.string(PROCESSING_GUARANTEE).toLowerCase(Locale.ROOT),
                s.duration(COMMIT_INTERVAL),
                s.duration(PURGE_INTERVAL),
                s.integer(THREADS),
                s.integer(INGEST_THREADS),
                s.bool(INGEST_TAKE_THREAD),
                s.string(INSTANCE_ID),
                s.string(STATE_DIR),
                s.integer(HEALTH_PORT),
                s.string(HEALTH_HOST),
                s);
    }

    /** The defaults alone. */
    public static DetectorSettings defaultSettings() {
        return from(MODEL.defaults());
    }

    /**
     * The defaults with {@code values} on top, keys as in a properties file: the settings by their
     * names ({@code bootstrap.servers}, {@code state.dir}, {@code window}), durations with a unit
     * ({@code 200ms}), any other key a Kafka key. The same as {@code from(MODEL.with(values))}; for
     * embedders (the simulator, other modules' tests), who have no command line.
     *
     * @throws SettingsException on a setting that cannot be used
     */
    public static DetectorSettings of(Map<String, String> values) {
        return from(MODEL.with(values));
    }

    /** These settings with {@code overrides} on top, keys as for {@link #of}; for tests and embedders. */
    public DetectorSettings with(Map<String, String> overrides) {
        return from(settings.with(overrides));
    }

    // ---- derived views

    public Topics topics() {
        return new Topics(topicPrefix);
    }

    public DetectionParameters detection() {
        return new DetectionParameters(tick.toMillis(), window.toMillis(), grace.toMillis(), cooldown.toMillis(),
                heatThreshold, capacityThreshold, hysteresis, nodeExpiry.toMillis(), topSlots);
    }

    /** Caps of the ingest stage's per-cluster state; node expiry as {@code node-expiry} (at least 1 ms). */
    public StateLimits limits() {
        return new StateLimits(settings.integer(CommonSettings.MAX_CLUSTERS), settings.integer(CommonSettings.MAX_NODES_PER_CLUSTER),
                nodeExpiry.isZero() ? java.time.Duration.ofMillis(1) : nodeExpiry);
    }

    public InputCheck inputCheck() {
        return new InputCheck(grace.toMillis(), futureSkew(), maxSlots, clusters);
    }

    public FutureSkew futureSkew() {
        return FutureSkew.of(maxFutureSkew);
    }

    /** Configuration of the schema-registry serdes: the URL, basic auth and TLS keys given. */
    public Map<String, Object> serdeConfig() {
        return settings.serdeConfig();
    }

    /** The Kafka Streams properties of stage two. */
    public Properties streamsProperties() {
        // poison pills go to the dead-letter topic (PoisonPills: the handler keys are fixed above)
        return PoisonPills.routedTo(settings.clientProperties(ClientType.STREAMS), topics().dlq());
    }

    /** The topic stage one writes its partials to and stage two reads: {@code <application.id>-partials}. */
    public String partialsTopic() {
        return applicationId + "-partials";
    }

    /** The ingest consumer's {@code fetch.max.wait.ms} unless given (the consumer's own default is 500). */
    public static final int INGEST_FETCH_MAX_WAIT_MS = 100;

    /** The consumer group of the ingest loops: {@code <application.id>-ingest}. */
    public String ingestGroupId() {
        return applicationId + "-ingest";
    }

    /**
     * Properties of an ingest loop's consumer: the Kafka keys a consumer knows, then its own client
     * id, group {@link #ingestGroupId()} and no auto commit (the loop commits its offsets in its
     * transactions); 2000 records per poll, {@code earliest} and {@code fetch.max.wait.ms}
     * {@value #INGEST_FETCH_MAX_WAIT_MS} unless given.
     *
     * <p>The broker holds a fetch that finds no records for up to {@code fetch.max.wait.ms}, and the
     * consumer sends no other fetch to that broker meanwhile. A fetch the loop sends while the
     * partitions with records left all still have fetched records to hand out asks only for the
     * partitions with none on the broker (the small capacity topic, partitions caught up): with the
     * consumer's 500 ms, the partitions with records waited for that hold to end, several times a
     * round in the detector benchmark (docs/detector-benchmark.md, "Fetches held by the broker").
     */
    public Properties ingestConsumerProperties(String clientId) {
        Properties p = settings.clientProperties(ClientType.CONSUMER);
        p.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000");
        p.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, String.valueOf(INGEST_FETCH_MAX_WAIT_MS));
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, ingestGroupId());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return p;
    }

    /**
     * Properties of an ingest loop's transactional producer: the Kafka keys a producer knows, then
     * {@code transactional.id} (also its client id); transaction timeout 10 s unless given (what a
     * crashed loop's open transaction can block, at most), linger 5 ms unless given.
     */
    public Properties ingestProducerProperties(String transactionalId) {
        Properties p = settings.clientProperties(ClientType.PRODUCER);
        p.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "10000");
        p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        return p;
    }

    /** Properties of an admin client: the Kafka keys it knows. */
    public Properties adminProperties() {
        return settings.clientProperties(ClientType.ADMIN);
    }

    /** One line, secrets hidden. */
    @Override
    public String toString() {
        return settings.toString();
    }
}
