package io.skewguard.agent.service;

import io.skewguard.agent.RoutingView;

import io.skewguard.agent.AgentSettings;
import io.skewguard.agent.command.EpochBound;
import io.skewguard.agent.report.ReporterSettings;
import io.skewguard.agent.store.CopyPacer;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Durations;
import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.SettingType;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsException;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.settings.Validator;
import io.skewguard.runtime.topics.TopicPlan;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.auth.NodeKeys;
import io.skewguard.schemas.auth.NodeSignature;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The settings of {@code skewguard agent}: one process hosting the agents of one or several nodes of
 * a cluster (docs/agents.md). {@link #MODEL} declares them; this record is the typed view the
 * {@link AgentService} runs with.
 *
 * @param settings the resolved settings (Kafka keys included), for the clients' properties
 * @param cluster the cluster of the hosted nodes
 * @param nodes the node ids this process hosts, in the order given
 * @param dataDir where each node keeps its store and state file: {@code <data-dir>/<node>/…}
 * @param store which kind of store holds each node's keys
 * @param slotCount S
 * @param topics topic names
 * @param pollTimeout longest wait of one poll of the command topics
 * @param progressInterval how often running copies are reported
 * @param flushInterval how often write counts are sent as WriteEvents
 * @param capacityInterval how often a CapacityEvent is sent per node
 * @param capacityBytes what each node reports as its total capacity
 * @param rack the failure domain reported for every hosted node; empty when unknown
 * @param ringNodes the nodes of the ring writers start from until the slot-table topic has rows
 * @param candidates candidate-set size m of that starting table
 * @param writeLoad writes per second of the load generator, 0 = off
 * @param heatSkew Zipf exponent of the slots' heat under the load (0 = uniform)
 * @param keySpace distinct keys the load writes
 * @param valueBytes size of each written value
 * @param seed seed of the load's random draws
 * @param loadJournal the file every write of the load is recorded in ({@link WriteJournal}); null: none
 * @param healthHost address of the readiness endpoint
 * @param healthPort port of the readiness endpoint, 0 = off
 * @param closeTimeout how long the orderly stop may take
 * @param epochs how far a weight, commit or routing epoch may jump past the newest applied
 * @param keepFinished how long records of finished migrations are kept; zero: forever
 * @param keys the hosted nodes' keys (docs/security.md); {@link NodeKeys#none()} when none is configured
 * @param copyPacer how copies follow the stores' write latency; null: they run at their granted rate
 */
public record AgentServiceSettings(
        Settings settings, String cluster, List<String> nodes, Path dataDir, StoreKind store, int slotCount,
        Topics topics, Duration pollTimeout, Duration progressInterval, Duration flushInterval,
        Duration capacityInterval, long capacityBytes, String rack, List<String> ringNodes, int candidates,
        double writeLoad, double heatSkew, int keySpace, int valueBytes, long seed, Path loadJournal,
        String healthHost, int healthPort,
        Duration closeTimeout, EpochBound epochs, Duration keepFinished, NodeKeys keys, CopyPacer copyPacer) {

    public static final String CLUSTER = "cluster";
    public static final String NODES = "nodes";
    public static final String DATA_DIR = "data-dir";
    public static final String STORE = "store";
    public static final String SLOT_COUNT = "slot-count";
    public static final String POLL_TIMEOUT = "poll-timeout";
    public static final String PROGRESS_INTERVAL = "progress-interval";
    public static final String FLUSH_INTERVAL = "flush-interval";
    public static final String CAPACITY_INTERVAL = "capacity-interval";
    public static final String CAPACITY_BYTES = "capacity-bytes";
    public static final String RACK = "rack";
    public static final String RING_NODES = "ring-nodes";
    public static final String CANDIDATES = "candidates";
    public static final String WRITE_LOAD = "write-load";
    public static final String HEAT_SKEW = "heat-skew";
    public static final String KEY_SPACE = "key-space";
    public static final String VALUE_BYTES = "value-bytes";
    public static final String SEED = "seed";
    public static final String LOAD_JOURNAL = "load-journal";
    public static final String CLOSE_TIMEOUT = "close-timeout";
    public static final String MAX_EPOCH_JUMP = "max-epoch-jump";
    public static final String FINISHED_MIGRATION_RETENTION = "finished-migration-retention";
    public static final String NODE_KEY = "node-key";
    public static final String NODE_KEYS_FILE = "node-keys-file";
    public static final String COPY_LATENCY_PACING = "copy-latency-pacing";
    public static final String COPY_LATENCY_TOLERANCE = "copy-latency-tolerance";
    public static final String COPY_MIN_PACE = "copy-min-pace";

    /**
     * Default of {@code finished-migration-retention}: the command topics' default retention plus a
     * day, for the commands the migrator still resends after this node finished its part.
     */
    static final String DEFAULT_FINISHED_RETENTION =
            Durations.format(TopicPlan.defaults(Topics.DEFAULT_PREFIX).commandRetention().plusDays(1));

    /** The key space is held in memory by the load generator (its key names, per slot). */
    static final int MAX_KEY_SPACE = 10_000_000;

    /** Every setting of {@code skewguard agent}. */
    public static final SettingsModel MODEL = SettingsModel.builder("agent")
            .description("Hosts the node agents of one or several storage nodes: each node's store, command agent, "
                    + "heat and capacity reporter, the writers' router, and an optional load generator.")
            .add(CommonSettings.bootstrapServers(), CommonSettings.schemaRegistryUrl(), CommonSettings.topicPrefix())
            .add(new Setting(CLUSTER, SettingType.STRING, null, "The cluster of the hosted nodes.", Validator.notBlank(),
                    null, null))
            .add(new Setting(NODES, SettingType.LIST, null,
                    "The node ids this process hosts (comma-separated): one agent, store, reporter each.",
                    Validator.of("one or more distinct node ids", v -> !((List<?>) v).isEmpty()
                            && new HashSet<>((List<?>) v).size() == ((List<?>) v).size()), null, null))
            .add(new Setting(DATA_DIR, SettingType.STRING, null,
                    "Directory of the nodes' data: <data-dir>/<node>/store (the keys) and <data-dir>/<node>/agent.state "
                            + "(the commands applied). Keep it across restarts.", Validator.notBlank(), null, null))
            .add(Setting.string(STORE, StoreKind.DEFAULT.label(),
                            "Where each node keeps its keys: rocksdb (on disk, survives a kill) or memory (lost at exit; "
                                    + "tests and demos).")
                    .validatedBy(Validator.oneOf(StoreKind.labels())))
            .add(Setting.integer(SLOT_COUNT, SlotTable.DEFAULT_SLOT_COUNT, "Number of slots S the keys are spread over.")
                    .validatedBy(Validator.of("a power of two from 1 to " + SlotTable.MAX_SLOT_COUNT, v -> {
                        int s = (Integer) v;
                        return s > 0 && s <= SlotTable.MAX_SLOT_COUNT && Integer.bitCount(s) == 1;
                    })))
            .add(Setting.duration(POLL_TIMEOUT, "500ms", "Longest wait of one poll of the command topics.")
                    .validatedBy(Validator.positive()))
            .add(Setting.duration(PROGRESS_INTERVAL, "5s",
                            "How often running copies are reported (COPY PROGRESS); well under the migrator's copy-stall timeout.")
                    .validatedBy(Validator.positive()))
            .add(Setting.duration(FLUSH_INTERVAL, "1s",
                            "How often each node's write counts are sent to node-writes; well under the detector's tick.")
                    .validatedBy(Validator.positive()))
            .add(Setting.duration(CAPACITY_INTERVAL, "10s", "How often each node's capacity is sent to node-capacity.")
                    .validatedBy(Validator.positive()))
            .add(Setting.longInteger(CAPACITY_BYTES, 1L << 40,
                            "Total capacity each hosted node reports, in bytes (the stores do not measure a disk).")
                    .validatedBy(Validator.positive()))
            .add(Setting.string(RACK, "", "Failure domain reported for every hosted node; empty: unknown."))
            .add(Setting.list(RING_NODES, "",
                    "The cluster's nodes the writers' routing starts from (ring of these ids, sorted, weight 1) until the "
                            + "slot-table topic has rows; empty: the hosted nodes."))
            .add(Setting.integer(CANDIDATES, SlotTable.DEFAULT_CANDIDATES,
                            "Candidate-set size m of that starting table (at most the number of ring nodes is used).")
                    .validatedBy(Validator.atLeast(1)))
            .add(Setting.number(WRITE_LOAD, 0.0,
                            "Load generator: writes per second of this process, through the router into the hosted stores; 0 = off.")
                    .validatedBy(Validator.between(0, 1_000_000)))
            .add(Setting.number(HEAT_SKEW, 1.0,
                            "Load generator: Zipf exponent of the slots' heat (slot of rank r gets a share ~ 1/r^skew); 0 = uniform.")
                    .validatedBy(Validator.between(0, 10)))
            .add(Setting.integer(KEY_SPACE, 100_000, "Load generator: distinct keys written (then overwritten).")
                    .validatedBy(Validator.between(1, MAX_KEY_SPACE)))
            .add(Setting.integer(VALUE_BYTES, 1000, "Load generator: size of each value written, in bytes.")
                    .validatedBy(Validator.between(0, 16 << 20)))
            .add(Setting.longInteger(SEED, 1, "Load generator: seed of its draws (which slots are hot, which keys)."))
            .add(Setting.string(LOAD_JOURNAL, "",
                    "Load generator: file to which every write it completed is appended as 'key version node' (a "
                            + "restarted process appends too), to check after a crash that every key written is still "
                            + "readable at its last version; empty: none."))
            .add(Setting.integer(CommonSettings.MAX_NODES_PER_CLUSTER, RoutingView.DEFAULT_MAX_NODES,
                            "Most nodes of the cluster the write path's router learns from slot-table and weight rows; a "
                                    + "row naming one more is refused, counted and logged (it would grow the router's tables "
                                    + "for good).")
                    .validatedBy(Validator.between(1, 1_000_000)))
            .add(Setting.longInteger(MAX_EPOCH_JUMP, EpochBound.DEFAULT_MAX_JUMP,
                            "How far a weight epoch, a COMMIT's routing epoch or a slot-table row's routing epoch may jump past "
                                    + "the newest one applied (0 before any). A command or row past it is refused, counted and "
                                    + "never adopted: one record with a huge epoch would otherwise pin the node for good.")
                    .validatedBy(Validator.atLeast(1)))
            .add(Setting.duration(FINISHED_MIGRATION_RETENTION, DEFAULT_FINISHED_RETENTION,
                            "How long each node's state file keeps the record of a migration that finished there, so that a "
                                    + "redelivered command of it is answered as before. Keep it at least the command topics' "
                                    + "retention (topics' command-retention); 0 = forever.")
                    .validatedBy(Validator.notNegative()))
            .add(Setting.password(NODE_KEY,
                    "Base64 key (at least 32 bytes) of the one hosted node: migration commands must then carry the migrator's "
                            + "signature for it, and its answers and capacity reports are signed (docs/security.md). "
                            + "Empty: see node-keys-file; neither: nothing is authenticated."))
            .add(Setting.string(NODE_KEYS_FILE, "",
                    "File of node-id=base64key lines holding the keys of the hosted nodes (for a process hosting several); "
                            + "every hosted node needs one. Empty: see node-key."))
            .add(Setting.bool(COPY_LATENCY_PACING, true,
                    "Copies follow the hosted stores' write latency: each second with copy work whose write p99 is over the "
                            + "quiet seconds' p99 by more than copy-latency-tolerance halves the copies' pace (a fraction of "
                            + "the rate the migrator granted), each second under it raises the pace by a quarter up to 1. "
                            + "false: copies run at the granted rate."))
            .add(Setting.number(COPY_LATENCY_TOLERANCE, CopyPacer.DEFAULT_TOLERANCE,
                            "How far over the quiet seconds' write p99 a second with copies may go before the copies slow "
                                    + "down: 0.05 = +5 %.")
                    .validatedBy(Validator.between(0, 100)))
            .add(Setting.number(COPY_MIN_PACE, CopyPacer.DEFAULT_MIN_PACE,
                            "The slowest the write latency may make a copy, as a fraction of its granted rate; above 0 so "
                                    + "that every copy ends.")
                    .validatedBy(Validator.of("a number in (0, 1]", v -> (Double) v > 0 && (Double) v <= 1)))
            .add(CommonSettings.healthPort(), CommonSettings.healthHost(), CommonSettings.createTopics())
            .add(Setting.duration(CLOSE_TIMEOUT, "30s", "How long the orderly stop (flush, commit, close) may take.")
                    .validatedBy(Validator.positive()))
            .fixes("enable.auto.commit", "false",
                    "an agent commits its offsets only after the commands are applied and the state file saved")
            .fixes("isolation.level", "read_committed",
                    "the weight and slot tables are written in transactions; uncommitted rows must not route writes")
            .fixes("enable.idempotence", "true", "an answer on the status topic must not be duplicated or reordered")
            .fixes("acks", "all", "an answer or event acknowledged by one replica only could be lost")
            .build();

    public AgentServiceSettings {
        Objects.requireNonNull(settings, "settings");
        nodes = List.copyOf(nodes);
        ringNodes = List.copyOf(ringNodes);
    }

    /**
     * The typed view of resolved {@code s}.
     *
     * @throws SettingsException if the settings contradict each other
     */
    public static AgentServiceSettings from(Settings s) {
        List<String> nodes = s.list(NODES);
        for (String node : nodes) {
            if (!node.matches("[A-Za-z0-9._-]+") || node.equals(".") || node.equals("..")) {
                // the node id names its directory under data-dir
                throw new SettingsException(NODES + ": node id '" + node + "' must be letters, digits, . _ - (from "
                        + s.origin(NODES) + ")");
            }
        }
        Path dataDir = Path.of(s.string(DATA_DIR));
        return new AgentServiceSettings(s, s.string(CLUSTER), nodes, dataDir,
                StoreKind.of(s.string(STORE)), s.integer(SLOT_COUNT), new Topics(s.string(CommonSettings.TOPIC_PREFIX)),
                s.duration(POLL_TIMEOUT), s.duration(PROGRESS_INTERVAL), s.duration(FLUSH_INTERVAL),
                s.duration(CAPACITY_INTERVAL), s.longValue(CAPACITY_BYTES), s.string(RACK),
                s.list(RING_NODES).isEmpty() ? nodes : s.list(RING_NODES), s.integer(CANDIDATES),
                s.number(WRITE_LOAD), s.number(HEAT_SKEW), s.integer(KEY_SPACE), s.integer(VALUE_BYTES),
                s.longValue(SEED), s.string(LOAD_JOURNAL).isBlank() ? null : Path.of(s.string(LOAD_JOURNAL)),
                s.string(CommonSettings.HEALTH_HOST), s.integer(CommonSettings.HEALTH_PORT),
                s.duration(CLOSE_TIMEOUT), new EpochBound(s.longValue(MAX_EPOCH_JUMP)),
                s.duration(FINISHED_MIGRATION_RETENTION), keys(s, nodes),
                s.bool(COPY_LATENCY_PACING) ? new CopyPacer(s.number(COPY_LATENCY_TOLERANCE), s.number(COPY_MIN_PACE)) : null);
    }

    /** The hosted nodes' keys from {@code node-key} or {@code node-keys-file}; a clear error naming the setting. */
    private static NodeKeys keys(Settings s, List<String> nodes) {
        String key = s.string(NODE_KEY);
        String file = s.string(NODE_KEYS_FILE);
        if (!key.isBlank() && !file.isBlank()) {
            throw new SettingsException(NODE_KEY + ": give node-key or node-keys-file, not both (from " + s.origin(NODE_KEY) + ")");
        }
        try {
            if (!key.isBlank()) {
                if (nodes.size() != 1) {
                    throw new SettingsException(NODE_KEY + ": one key is for a process hosting one node, this one hosts "
                            + nodes + "; use node-keys-file (from " + s.origin(NODE_KEY) + ")");
                }
                return NodeKeys.single(nodes.get(0), NodeSignature.fromBase64(key));
            }
            if (file.isBlank()) {
                return NodeKeys.none();
            }
            NodeKeys keys = NodeKeys.read(Path.of(file));
            for (String node : nodes) {
                if (keys.signer(node).isEmpty()) {
                    throw new SettingsException(NODE_KEYS_FILE + ": " + file + " holds no key for hosted node " + node
                            + " (from " + s.origin(NODE_KEYS_FILE) + ")");
                }
            }
            return keys;
        } catch (SettingsException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            String name = key.isBlank() ? NODE_KEYS_FILE : NODE_KEY;
            throw new SettingsException(name + ": " + e.getMessage() + " (from " + s.origin(name) + ")");
        }
    }

    /** The directory of {@code node}'s data. */
    public Path nodeDir(String node) {
        return dataDir.resolve(node);
    }

    /** Where {@code node}'s RocksDB store lives: {@code <data-dir>/<node>/store}. */
    public Path storeDir(String node) {
        return nodeDir(node).resolve("store");
    }

    /** {@code node}'s state file: {@code <data-dir>/<node>/agent.state}. */
    public Path stateFile(String node) {
        return nodeDir(node).resolve("agent.state");
    }

    /** The settings of {@code node}'s command agent: its state file is {@link #stateFile}. */
    public AgentSettings agentSettings(String node) {
        // one map for the agent's consumer, producer and serdes (AgentSettings takes one): each client
        // ignores, with a warning, the keys only the other knows
        Map<String, Object> kafka = new HashMap<>();
        settings.clientProperties(ClientType.CONSUMER).forEach((k, v) -> kafka.put(k.toString(), v));
        settings.clientProperties(ClientType.PRODUCER).forEach((k, v) -> kafka.put(k.toString(), v));
        kafka.putAll(serdeConfig());
        return new AgentSettings(cluster, node, slotCount, topics, stateFile(node), pollTimeout,
                progressInterval, kafka, epochs, keepFinished, keys);
    }

    /** The settings of {@code node}'s reporter. */
    public ReporterSettings reporterSettings(String node) {
        return new ReporterSettings(cluster, node, slotCount, topics, flushInterval, capacityInterval, serdeConfig(), keys);
    }

    /** Properties of a client of {@code type}. */
    public Map<String, Object> clientConfig(ClientType type) {
        Map<String, Object> config = new HashMap<>();
        settings.clientProperties(type).forEach((k, v) -> config.put(k.toString(), v));
        return config;
    }

    /** The serdes' configuration. */
    public Map<String, Object> serdeConfig() {
        return settings.serdeConfig();
    }

    /** The rack reported, or null when unknown. */
    public String rackOrNull() {
        return rack.isBlank() ? null : rack;
    }

    /** The kinds of store a hosted node can keep its keys in. */
    public enum StoreKind {
        /** {@code RocksDbNodeStore} in {@code <data-dir>/<node>/store}: survives a kill. */
        ROCKSDB,
        /** {@code InMemoryNodeStore}: the keys are lost when the process ends (the state file is kept). */
        MEMORY;

        /** The store used unless told otherwise. */
        public static final StoreKind DEFAULT = ROCKSDB;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        public static String[] labels() {
            return java.util.Arrays.stream(values()).map(StoreKind::label).toArray(String[]::new);
        }

        public static StoreKind of(String label) {
            return valueOf(label.trim().toUpperCase(Locale.ROOT));
        }
    }
}
