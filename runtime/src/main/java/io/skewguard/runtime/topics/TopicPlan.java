package io.skewguard.runtime.topics;

import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Durations;
import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsException;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.runtime.settings.Validator;
import io.skewguard.runtime.topics.TopicSpec.Kind;
import io.skewguard.schemas.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.kafka.common.config.TopicConfig;

/**
 * What every SkewGuard topic must look like, from a few parameters (docs/design.md §4):
 *
 * <ul>
 *   <li>partitions: topics keyed by node (node-writes, node-capacity, the two command topics,
 *       migration-status, dlq) get {@code node-partitions}; topics keyed by cluster (reports,
 *       alerts, proposals, decisions, and the compacted tables node-weights, slot-table, membership and control)
 *       get {@code cluster-partitions},
 *       so reports and alerts always have the same count, which the balancer needs because it
 *       handles both per cluster in one task;</li>
 *   <li>cleanup: node-weights, slot-table, membership and control are compacted ({@link Topics#compacted()}), every other
 *       topic is a delete-policy log;</li>
 *   <li>retention: {@code event-retention} on node-writes, node-capacity, reports, alerts, proposals and decisions;
 *       {@code command-retention} on weight-commands, migration-commands and migration-status, which
 *       must outlive an agent's (or the migrator's) downtime because a restarted one resumes from
 *       its committed offsets; {@code dead-letter-retention} on dlq; none on the compacted tables.
 *       A retention of 0 keeps records forever ({@code retention.ms=-1});</li>
 *   <li>replication factor: {@code replication-factor}, or min(3, brokers) when it is 0; from three
 *       replicas on, {@code min.insync.replicas=2}, so that one broker may be down without losing an
 *       acknowledged write or stopping the producers.</li>
 * </ul>
 *
 * Pure: {@link #topics(int)} needs only the number of brokers.
 *
 * @param prefix the topic-name prefix ({@link Topics})
 * @param nodePartitions partitions of the node-keyed topics
 * @param clusterPartitions partitions of the cluster-keyed topics
 * @param replicationFactor replicas per partition; 0 means min(3, brokers)
 * @param eventRetention retention of the event topics; zero means forever
 * @param commandRetention retention of the command and status topics; zero means forever
 * @param deadLetterRetention retention of the dead-letter topic; zero means forever
 */
public record TopicPlan(String prefix, int nodePartitions, int clusterPartitions, int replicationFactor,
        Duration eventRetention, Duration commandRetention, Duration deadLetterRetention) {

    public static final String NODE_PARTITIONS = "node-partitions";
    public static final String CLUSTER_PARTITIONS = "cluster-partitions";
    public static final String REPLICATION_FACTOR = "replication-factor";
    public static final String EVENT_RETENTION = "event-retention";
    public static final String COMMAND_RETENTION = "command-retention";
    public static final String DEAD_LETTER_RETENTION = "dead-letter-retention";
    public static final String TIMEOUT = "timeout";

    /** The replication factor {@code replication-factor=0} stands for, when the cluster has that many brokers. */
    public static final int PREFERRED_REPLICATION_FACTOR = 3;
    /** {@code min.insync.replicas} from {@link #PREFERRED_REPLICATION_FACTOR} replicas on. */
    public static final int MIN_IN_SYNC_REPLICAS = 2;

    /** The settings of {@code skewguard topics}: where Kafka is, the prefix, and the plan's parameters. */
    public static final SettingsModel MODEL = SettingsModel.builder("topics")
            .description("Creates and checks SkewGuard's topics: partition counts, cleanup policy, retention, replication factor.")
            .add(CommonSettings.bootstrapServers(),
                    CommonSettings.topicPrefix(),
                    Setting.integer(NODE_PARTITIONS, 6,
                                    "Partitions of the node-keyed topics (node-writes, node-capacity, weight-commands, "
                                            + "migration-commands, migration-status, dlq): the parallelism of the detector's first stage.")
                            .validatedBy(Validator.atLeast(1)),
                    Setting.integer(CLUSTER_PARTITIONS, 1,
                                    "Partitions of the cluster-keyed topics (reports, alerts, node-weights, slot-table, membership, control, "
                                            + "proposals, decisions); reports "
                                            + "and alerts always get the same count, as the balancer needs. One per cluster is plenty.")
                            .validatedBy(Validator.atLeast(1)),
                    Setting.integer(REPLICATION_FACTOR, 0,
                                    "Replicas of every partition; 0 = min(3, number of brokers). From 3 on, min.insync.replicas=2.")
                            .validatedBy(Validator.between(0, Short.MAX_VALUE)),
                    Setting.duration(EVENT_RETENTION, "7d",
                                    "How long node-writes, node-capacity, reports, alerts, proposals and decisions keep records; 0 = forever.")
                            .validatedBy(Validator.notNegative()),
                    Setting.duration(COMMAND_RETENTION, "7d",
                                    "How long weight-commands, migration-commands and migration-status keep records: longer than "
                                            + "an agent or the migrator may be down, since they resume from their offsets; 0 = forever.")
                            .validatedBy(Validator.notNegative()),
                    Setting.duration(DEAD_LETTER_RETENTION, "14d", "How long the dead-letter topic keeps records; 0 = forever.")
                            .validatedBy(Validator.notNegative()),
                    Setting.duration(TIMEOUT, "30s", "How long to wait for each answer of the Kafka cluster.")
                            .validatedBy(Validator.positive()))
            .build();

    public TopicPlan {
        new Topics(prefix);
        requireAtLeastOne(NODE_PARTITIONS, nodePartitions);
        requireAtLeastOne(CLUSTER_PARTITIONS, clusterPartitions);
        if (replicationFactor < 0 || replicationFactor > Short.MAX_VALUE) {
            throw new IllegalArgumentException(REPLICATION_FACTOR + " must be from 0 to " + Short.MAX_VALUE + ", was " + replicationFactor);
        }
        requireNotNegative(EVENT_RETENTION, eventRetention);
        requireNotNegative(COMMAND_RETENTION, commandRetention);
        requireNotNegative(DEAD_LETTER_RETENTION, deadLetterRetention);
    }

    /** The plan of the defaults, under {@code prefix}. */
    public static TopicPlan defaults(String prefix) {
        return from(MODEL.with(Map.of(CommonSettings.TOPIC_PREFIX, prefix)));
    }

    /** The plan of resolved settings of {@link #MODEL} (or of any model that declares the same settings). */
    public static TopicPlan from(Settings s) {
        return new TopicPlan(s.string(CommonSettings.TOPIC_PREFIX), s.integer(NODE_PARTITIONS), s.integer(CLUSTER_PARTITIONS),
                s.integer(REPLICATION_FACTOR), s.duration(EVENT_RETENTION), s.duration(COMMAND_RETENTION),
                s.duration(DEAD_LETTER_RETENTION));
    }

    public Topics names() {
        return new Topics(prefix);
    }

    /**
     * The replication factor on a cluster of {@code brokers} brokers.
     *
     * @throws SettingsException when {@code replication-factor} asks for more replicas than brokers
     */
    public short replicationFactorOn(int brokers) {
        if (brokers < 1) {
            throw new IllegalArgumentException("a Kafka cluster has at least one broker, was " + brokers);
        }
        if (replicationFactor == 0) {
            return (short) Math.min(PREFERRED_REPLICATION_FACTOR, brokers);
        }
        if (replicationFactor > brokers) {
            throw new SettingsException(REPLICATION_FACTOR + ": " + replicationFactor + " replicas need at least " + replicationFactor
                    + " brokers, but the cluster has " + brokers + " (0 = min(3, brokers))");
        }
        return (short) replicationFactor;
    }

    /** Every topic of {@link Topics#all()}, in that order, as it must be on a cluster of {@code brokers} brokers. */
    public List<TopicSpec> topics(int brokers) {
        short rf = replicationFactorOn(brokers);
        Topics t = names();
        Map<String, Kind> kinds = new LinkedHashMap<>();
        kinds.put(t.nodeWrites(), Kind.NODE_EVENTS);
        kinds.put(t.nodeCapacity(), Kind.NODE_EVENTS);
        kinds.put(t.reports(), Kind.CLUSTER_EVENTS);
        kinds.put(t.alerts(), Kind.CLUSTER_EVENTS);
        kinds.put(t.weightCommands(), Kind.COMMANDS);
        kinds.put(t.nodeWeights(), Kind.TABLE);
        kinds.put(t.migrationCommands(), Kind.COMMANDS);
        kinds.put(t.migrationStatus(), Kind.STATUS);
        kinds.put(t.slotTable(), Kind.TABLE);
        kinds.put(t.membership(), Kind.TABLE);
        kinds.put(t.control(), Kind.TABLE);
        kinds.put(t.proposals(), Kind.CLUSTER_EVENTS);
        kinds.put(t.decisions(), Kind.CLUSTER_EVENTS);
        kinds.put(t.dlq(), Kind.DEAD_LETTER);
        Set<String> compacted = Set.copyOf(t.compacted());
        List<TopicSpec> specs = new ArrayList<>();
        for (String name : t.all()) {
            Kind kind = kinds.get(name);
            if (kind == null) {
                // a topic added to Topics must be given a place here before it can be provisioned
                throw new IllegalStateException("the topic plan does not know topic " + name);
            }
            if (compacted.contains(name) != (kind == Kind.TABLE)) {
                throw new IllegalStateException("topic " + name + " is " + (compacted.contains(name) ? "" : "not ")
                        + "compacted in Topics but planned as " + kind);
            }
            Map<String, String> configs = new LinkedHashMap<>();
            if (kind == Kind.TABLE) {
                configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
            } else {
                configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE);
                configs.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(retentionMs(retention(kind))));
            }
            if (rf >= PREFERRED_REPLICATION_FACTOR) {
                configs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(MIN_IN_SYNC_REPLICAS));
            }
            specs.add(new TopicSpec(name, kind, partitions(kind), rf, configs));
        }
        return List.copyOf(specs);
    }

    /** Groups of topics that must have the same partition count: reports and alerts. */
    public List<List<String>> coPartitioned() {
        Topics t = names();
        return List.of(List.of(t.reports(), t.alerts()));
    }

    /**
     * The command that creates these topics on {@code bootstrapServers}: the prefix always, the
     * other parameters where they are not the defaults.
     */
    public String createCommand(String bootstrapServers) {
        TopicPlan d = defaults(prefix);
        StringBuilder b = new StringBuilder("./skewguard topics create --bootstrap-servers ").append(shellWord(bootstrapServers))
                .append(" --topic-prefix ").append(shellWord(prefix));
        flagUnlessDefault(b, NODE_PARTITIONS, nodePartitions, d.nodePartitions);
        flagUnlessDefault(b, CLUSTER_PARTITIONS, clusterPartitions, d.clusterPartitions);
        flagUnlessDefault(b, REPLICATION_FACTOR, replicationFactor, d.replicationFactor);
        flagUnlessDefault(b, EVENT_RETENTION, Durations.format(eventRetention), Durations.format(d.eventRetention));
        flagUnlessDefault(b, COMMAND_RETENTION, Durations.format(commandRetention), Durations.format(d.commandRetention));
        flagUnlessDefault(b, DEAD_LETTER_RETENTION, Durations.format(deadLetterRetention), Durations.format(d.deadLetterRetention));
        return b.toString();
    }

    private int partitions(Kind kind) {
        return switch (kind) {
            case NODE_EVENTS, COMMANDS, STATUS, DEAD_LETTER -> nodePartitions;
            case CLUSTER_EVENTS, TABLE -> clusterPartitions;
        };
    }

    private Duration retention(Kind kind) {
        return switch (kind) {
            case NODE_EVENTS, CLUSTER_EVENTS -> eventRetention;
            case COMMANDS, STATUS -> commandRetention;
            case DEAD_LETTER -> deadLetterRetention;
            case TABLE -> throw new IllegalArgumentException("a compacted table is kept by key, not by time");
        };
    }

    private static long retentionMs(Duration d) {
        return d.isZero() ? -1 : d.toMillis();
    }

    private static void flagUnlessDefault(StringBuilder b, String name, Object value, Object defaultValue) {
        if (!Objects.equals(value, defaultValue)) {
            b.append(" --").append(name).append(' ').append(shellWord(value.toString()));
        }
    }

    /** {@code text} as one shell word: as it is when that is safe, in single quotes otherwise (an empty prefix is {@code ''}). */
    static String shellWord(String text) {
        if (!text.isEmpty() && text.matches("[A-Za-z0-9._,:/@+=-]+")) {
            return text;
        }
        return "'" + text.replace("'", "'\\''") + "'";
    }

    private static void requireAtLeastOne(String name, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(name + " must be at least 1, was " + value);
        }
    }

    private static void requireNotNegative(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, was " + Durations.format(d));
        }
    }
}
