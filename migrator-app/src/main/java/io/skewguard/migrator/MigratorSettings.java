package io.skewguard.migrator;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.migrator.policy.AdaptiveRateLimiter;
import io.skewguard.migrator.policy.ColdestFirstPlanner;
import io.skewguard.migrator.policy.Timeouts;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.auth.NodeKeys;
import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.streams.PoisonPills;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsException;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.settings.Validator;
import io.skewguard.runtime.time.FutureSkew;
import io.skewguard.runtime.state.StateLimits;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;

/**
 * The migrator's settings: {@link #MODEL} declares them (names, defaults, rules, the Kafka keys the
 * migrator fixes); this record is the typed view the topology and the coordinator read, built
 * {@link #from(Settings)} the resolved settings.
 *
 * @param bootstrapServers Kafka bootstrap servers
 * @param schemaRegistryUrl schema registry URL ({@code mock://scope} for tests and the embedded stack)
 * @param applicationId Kafka Streams application id (consumer group, internal topic prefix)
 * @param topicPrefix prefix of every topic name
 * @param stateDir Kafka Streams state directory
 * @param targetCv capacity CV the planner aims for
 * @param overshoot share of a source's excess it may overshoot by (bounds bytes moved)
 * @param maxParallel most migrations of one switch batch (disjoint node pairs)
 * @param maxConsecutiveAborts a repair stops (FAILED status) after this many aborted batches in a row
 * @param maxBytesPerSec migration bandwidth budget of a cluster at low write load
 * @param lowLoad write load (rate / decaying peak) up to which the budget is full
 * @param highLoad write load from which the budget is at its floor
 * @param budgetFloor share of the budget left at peak load; never zero
 * @param peakHalfLife half-life of the remembered peak write rate
 * @param copyStallTimeout a copy without any answer for this long aborts its batch
 * @param prepareTimeout every PREPARE of a batch must be answered within this
 * @param retryInterval unanswered COMMIT and CLEANUP (past the commit point) are sent again after this
 * @param abortTimeout how long to wait for ABORT answers before freeing the nodes
 * @param tickInterval wall-clock punctuation that drives the timeouts
 * @param commitInterval Kafka Streams commit interval (exactly_once_v2 transactions)
 * @param slotCount slots S of a slot table built from the ring
 * @param candidates candidate-set size m of a slot table built from the ring
 * @param vnodesPerUnit virtual points per unit of node weight of that ring
 * @param maintenanceFactor a repaired cluster above this × its target CV for maintenanceHold is repaired again; 0 = off
 * @param maintenanceHold how long the CV must stay above the maintenance level
 * @param settings everything as resolved, Kafka client keys included
 */
public record MigratorSettings(
        String bootstrapServers,
        String schemaRegistryUrl,
        String applicationId,
        String topicPrefix,
        String stateDir,
        double targetCv,
        double overshoot,
        int maxParallel,
        int maxConsecutiveAborts,
        long maxBytesPerSec,
        double lowLoad,
        double highLoad,
        double budgetFloor,
        Duration peakHalfLife,
        Duration copyStallTimeout,
        Duration prepareTimeout,
        Duration retryInterval,
        Duration abortTimeout,
        Duration tickInterval,
        Duration commitInterval,
        int slotCount,
        int candidates,
        int vnodesPerUnit,
        double maintenanceFactor,
        Duration maintenanceHold,
        Settings settings) {

    public static final String TARGET_CV = "target-cv";
    public static final String OVERSHOOT = "overshoot";
    public static final String MAX_PARALLEL = "max-parallel";
    public static final String MAX_CONSECUTIVE_ABORTS = "max-consecutive-aborts";
    public static final String MAX_BYTES_PER_SEC = "max-bytes-per-sec";
    public static final String LOW_LOAD = "low-load";
    public static final String HIGH_LOAD = "high-load";
    public static final String BUDGET_FLOOR = "budget-floor";
    public static final String PEAK_HALF_LIFE = "peak-half-life";
    public static final String COPY_STALL_TIMEOUT = "copy-stall-timeout";
    public static final String PREPARE_TIMEOUT = "prepare-timeout";
    public static final String RETRY_INTERVAL = "retry-interval";
    public static final String ABORT_TIMEOUT = "abort-timeout";
    public static final String TICK_INTERVAL = "tick-interval";
    public static final String SLOT_COUNT = "slot-count";
    public static final String CANDIDATES = "candidates";
    public static final String VNODES_PER_UNIT = "vnodes-per-unit";
    public static final String MAINTENANCE_FACTOR = "maintenance-factor";
    public static final String MAINTENANCE_HOLD = "maintenance-hold";
    public static final String NODE_KEYS_FILE = "node-keys-file";
    public static final String AUTO_JOIN = "auto-join";
    public static final String AUTO_LOSS = "auto-loss";

    /** Every setting of the migrator. */
    public static final SettingsModel MODEL = PoisonPills.handledBy(SettingsModel.builder("migrator")
            .description("Repairs capacity skew by moving cold shards: plan, copy, two-phase switch, cleanup.")
            .add(CommonSettings.bootstrapServers(),
                    CommonSettings.schemaRegistryUrl(),
                    CommonSettings.applicationId("skewguard-migrator"),
                    CommonSettings.topicPrefix(),
                    CommonSettings.stateDir(System.getProperty("java.io.tmpdir") + "/skewguard-migrator"),
                    CommonSettings.clusters(),
                    Setting.number(TARGET_CV, 0.10, "A repair runs until the capacity CV is at or below this.")
                            .validatedBy(Validator.notNegative()),
                    Setting.number(OVERSHOOT, 0.2,
                                    "A source gives away at most (1 + this) × its excess over the target utilisation.")
                            .validatedBy(Validator.between(0, 1)),
                    Setting.integer(MAX_PARALLEL, 4, "Most migrations in one switch batch (disjoint node pairs).")
                            .validatedBy(Validator.atLeast(1)),
                    Setting.integer(MAX_CONSECUTIVE_ABORTS, 3,
                                    "A repair stops (FAILED status) after this many aborted batches in a row.")
                            .validatedBy(Validator.atLeast(1)),
                    Setting.longInteger(MAX_BYTES_PER_SEC, 100L * 1024 * 1024,
                                    "Migration bandwidth budget of a cluster at low write load, shared by a batch's copies (bytes/s).")
                            .validatedBy(Validator.atLeast(1)),
                    Setting.number(LOW_LOAD, 0.5, "Write load (rate / decaying peak) up to which the budget is full.")
                            .validatedBy(Validator.inRange(0, 1)),
                    Setting.number(HIGH_LOAD, 0.9, "Write load from which the budget is at its floor; above low-load.")
                            .validatedBy(Validator.of("greater than 0 and at most 1", v -> (Double) v > 0 && (Double) v <= 1)),
                    Setting.number(BUDGET_FLOOR, 0.1, "Share of the budget left at peak load; never zero.")
                            .validatedBy(Validator.of("greater than 0 (the budget is never zero) and at most 1",
                                    v -> (Double) v > 0 && (Double) v <= 1)),
                    Setting.duration(PEAK_HALF_LIFE, "48h", "Half-life of the remembered peak write rate; longer than a day, so the evening's "
                            + "trough is measured against that day's peak.")
                            .validatedBy(Validator.positive()),
                    Setting.duration(COPY_STALL_TIMEOUT, "10m", "A COPY without any answer for this long aborts its batch.")
                            .validatedBy(Validator.positive()),
                    Setting.duration(PREPARE_TIMEOUT, "30s", "Every PREPARE of a batch must be answered within this, or the batch aborts.")
                            .validatedBy(Validator.positive()),
                    Setting.duration(RETRY_INTERVAL, "30s", "Unanswered COMMIT and CLEANUP are sent again after this.")
                            .validatedBy(Validator.positive()),
                    Setting.duration(ABORT_TIMEOUT, "2m", "Wait this long for ABORT answers before freeing the nodes.")
                            .validatedBy(Validator.positive()),
                    Setting.duration(TICK_INTERVAL, "1s", "Wall-clock punctuation driving the timeouts.")
                            .validatedBy(Validator.positive()),
                    CommonSettings.commitInterval(),
                    Setting.integer(SLOT_COUNT, SlotTable.DEFAULT_SLOT_COUNT, "Slots of a slot table built from the ring.")
                            .validatedBy(Validator.of("a power of two from 1 to " + SlotTable.MAX_SLOT_COUNT,
                                    v -> (Integer) v >= 1 && (Integer) v <= SlotTable.MAX_SLOT_COUNT && Integer.bitCount((Integer) v) == 1)),
                    Setting.integer(CANDIDATES, SlotTable.DEFAULT_CANDIDATES, "Candidate-set size of a slot table built from the ring.")
                            .validatedBy(Validator.atLeast(1)),
                    Setting.integer(VNODES_PER_UNIT, HashRing.DEFAULT_VNODES_PER_UNIT, "Ring points per unit of node weight.")
                            .validatedBy(Validator.atLeast(1)),
                    Setting.number(MAINTENANCE_FACTOR, 1.3,
                                    "After a repair ended without failing, a capacity CV above this × max(target-cv, the CV it ended at) for "
                                            + "maintenance-hold (in the reports) starts a maintenance repair without waiting for the detector's alert; 0 = off.")
                            .validatedBy(Validator.of("0 (off) or at least 1", v -> (Double) v == 0 || (Double) v >= 1)),
                    Setting.duration(MAINTENANCE_HOLD, "5m", "How long the CV must stay above the maintenance level.")
                            .validatedBy(Validator.notNegative()),
                    Setting.string(NODE_KEYS_FILE, "",
                            "File of node-id=base64key lines (keys of at least 32 bytes), one or more per node: statuses and "
                                    + "capacity events must then carry the signature of the node they name (others are "
                                    + "dead-lettered 'unauthenticated'), and each command to a node is signed with its key "
                                    + "(docs/security.md). Empty: nothing is authenticated."),
                    Setting.bool(AUTO_JOIN, true,
                            "A node that reports capacity for the first time after the slot table was built and is not a "
                                    + "member joins (membership ACTIVE, a repair fills it); false: it is left out of plans "
                                    + "until an operator adds it (./skewguard node add)."),
                    Setting.bool(AUTO_LOSS, true,
                            "A member without a capacity report for node-expiry is lost: replaced in every candidate set "
                                    + "in one slot-table update (membership LOST, naming the slots and bytes to rebuild from "
                                    + "replicas); false: it is only forgotten, as before."),
                    CommonSettings.maxClusters(),
                    CommonSettings.maxNodesPerCluster(),
                    CommonSettings.nodeExpiry("1d",
                            "A node without a capacity report for this long is removed from the migrator's stores "
                                    + "(never while a running batch moves a shard to or from it), and a cluster left "
                                    + "without nodes is removed with its slot table."),
                    CommonSettings.healthPort(),
                    CommonSettings.healthHost(),
                    CommonSettings.createTopics(),
                    CommonSettings.maxFutureSkew(),
                    CommonSettings.operatorKeysFile(),
                    CommonSettings.decisionInterval())
            .add(SpreadSettings.SETTINGS)
            .fixes("processing.guarantee", "exactly_once_v2",
                    "a batch's state, its commands and its slot-table rows commit in one transaction; with "
                            + "at-least-once a restart could send a switch step twice or lose one")
            ).build();

    public MigratorSettings {
        Objects.requireNonNull(settings, "settings");
        new Topics(topicPrefix); // checks the prefix
        SlotTable.requireSlotCount(slotCount);
        timeouts(copyStallTimeout, prepareTimeout, retryInterval, abortTimeout);
        // the rules that span settings (low-load below high-load) are the policies' own
        new AdaptiveRateLimiter(maxBytesPerSec, lowLoad, highLoad, budgetFloor, peakHalfLife.toMillis());
        new ColdestFirstPlanner(targetCv, overshoot);
        SpreadSettings.rule(settings);
    }

    /**
     * The typed view of resolved settings.
     *
     * @throws SettingsException when the values break a rule that spans several settings
     */
    public static MigratorSettings from(Settings s) {
        try {
            return new MigratorSettings(
                    s.string(CommonSettings.BOOTSTRAP_SERVERS),
                    s.string(CommonSettings.SCHEMA_REGISTRY_URL),
                    s.string(CommonSettings.APPLICATION_ID),
                    s.string(CommonSettings.TOPIC_PREFIX),
                    s.string(CommonSettings.STATE_DIR),
                    s.number(TARGET_CV),
                    s.number(OVERSHOOT),
                    s.integer(MAX_PARALLEL),
                    s.integer(MAX_CONSECUTIVE_ABORTS),
                    s.longValue(MAX_BYTES_PER_SEC),
                    s.number(LOW_LOAD),
                    s.number(HIGH_LOAD),
                    s.number(BUDGET_FLOOR),
                    s.duration(PEAK_HALF_LIFE),
                    s.duration(COPY_STALL_TIMEOUT),
                    s.duration(PREPARE_TIMEOUT),
                    s.duration(RETRY_INTERVAL),
                    s.duration(ABORT_TIMEOUT),
                    s.duration(TICK_INTERVAL),
                    s.duration(CommonSettings.COMMIT_INTERVAL),
                    s.integer(SLOT_COUNT),
                    s.integer(CANDIDATES),
                    s.integer(VNODES_PER_UNIT),
                    s.number(MAINTENANCE_FACTOR),
                    s.duration(MAINTENANCE_HOLD),
                    s).checkedKeys();
        } catch (SettingsException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new SettingsException(e.getMessage());
        }
    }

    /**
     * The defaults with {@code values} on top, keys as in a properties file: the settings by their
     * names ({@code bootstrap.servers}, {@code state.dir}, {@code tick-interval}), durations with a
     * unit ({@code 250ms}; a bare number is no duration, as on the command line), any other key a
     * Kafka key by its Kafka name. The same as {@code from(MODEL.with(values))}; for embedders (the
     * simulator, tests that run the topology in their own JVM), who have no command line.
     *
     * @throws SettingsException naming the key, its value and what is allowed
     */
    public static MigratorSettings of(Map<String, String> values) {
        return from(MODEL.with(values));
    }

    /**
     * The nodes' keys from {@code node-keys-file}, read now; {@link NodeKeys#none()} when it is empty.
     *
     * @throws SettingsException naming the file and line of what is wrong
     */
    public NodeKeys nodeKeys() {
        String file = settings.string(NODE_KEYS_FILE);
        if (file.isBlank()) {
            return NodeKeys.none();
        }
        try {
            return NodeKeys.read(java.nio.file.Path.of(file));
        } catch (IllegalArgumentException e) {
            throw new SettingsException(NODE_KEYS_FILE + ": " + e.getMessage() + " (from " + settings.origin(NODE_KEYS_FILE) + ")");
        }
    }

    /** This, once the keys files read: a bad one is a start-up error, not a stream of dead letters. */
    private MigratorSettings checkedKeys() {
        nodeKeys();
        operatorKeys();
        return this;
    }

    /** The operators' keys ({@code operator-keys-file}); none: controls are not authenticated. */
    public NodeKeys operatorKeys() {
        return CommonSettings.operatorKeys(settings);
    }

    /** {@code decision-interval}: how often an unchanged decision or dry-run proposal is published again. */
    public Duration decisionInterval() {
        return settings.duration(CommonSettings.DECISION_INTERVAL);
    }

    /**
     * The least budget an operator may fix ({@code ctl throttle}): the budget's floor at peak load,
     * {@code budget-floor × max-bytes-per-sec}, at least 1 byte/s.
     */
    public long throttleFloor() {
        return Math.max(1L, (long) Math.floor(maxBytesPerSec * budgetFloor));
    }

    /** Configuration of the serdes: the registry URL and its credentials and TLS keys, if given. */
    public Map<String, Object> serdeConfig() {
        return settings.serdeConfig();
    }

    /** The Kafka Streams properties the settings give: the migrator's settings and every Streams key given, exactly_once_v2 fixed. */
    public Properties streamsProperties() {
        // poison pills go to the dead-letter topic (PoisonPills: the handler keys are fixed above)
        return PoisonPills.routedTo(settings.clientProperties(ClientType.STREAMS), topics().dlq());
    }

    /** When a hot slot spreads over more nodes and when it narrows back (docs/design.md §3.5). */
    public io.skewguard.migrator.policy.SpreadRule spreadRule() {
        return SpreadSettings.rule(settings);
    }

    /** A node reporting capacity for the first time (not a member) joins without an operator. */
    public boolean autoJoin() {
        return settings.bool(AUTO_JOIN);
    }

    /** A member silent for node-expiry is replaced in every candidate set (membership LOST). */
    public boolean autoLoss() {
        return settings.bool(AUTO_LOSS);
    }

    /** How far ahead of this process's clock a capacity report's or a report's time may lie. */
    public FutureSkew futureSkew() {
        return FutureSkew.of(settings.duration(CommonSettings.MAX_FUTURE_SKEW));
    }

    /** One line, secrets hidden. */
    @Override
    public String toString() {
        return settings.toString();
    }

    public Topics topics() {
        return new Topics(topicPrefix);
    }

    public Timeouts timeouts() {
        return timeouts(copyStallTimeout, prepareTimeout, retryInterval, abortTimeout);
    }

    public AdaptiveRateLimiter rateLimiter() {
        return new AdaptiveRateLimiter(maxBytesPerSec, lowLoad, highLoad, budgetFloor, peakHalfLife.toMillis());
    }

    /** The clusters served: records of others are dead-lettered; empty means every cluster. */
    public Set<String> clusters() {
        return new LinkedHashSet<>(settings.list(CommonSettings.CLUSTERS));
    }

    /** How many clusters and nodes the stores hold, and when a silent node is forgotten. */
    public StateLimits limits() {
        return StateLimits.from(settings);
    }

    public ColdestFirstPlanner planner() {
        return new ColdestFirstPlanner(targetCv, overshoot);
    }

    private static Timeouts timeouts(Duration copyStall, Duration prepare, Duration retry, Duration abort) {
        return new Timeouts(copyStall.toMillis(), prepare.toMillis(), retry.toMillis(), abort.toMillis());
    }
}
