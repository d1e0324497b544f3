package io.skewguard.runtime.topics;

import io.skewguard.runtime.settings.Durations;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;

/**
 * One topic as the plan wants it.
 *
 * @param name the full name, prefix included
 * @param kind what flows through it, which decides its partitions and retention
 * @param partitions the partition count
 * @param replicationFactor replicas of each partition
 * @param configs the topic configs SkewGuard sets ({@code cleanup.policy} always; {@code retention.ms}
 *     on delete-policy topics; {@code min.insync.replicas} from three replicas on)
 */
public record TopicSpec(String name, Kind kind, int partitions, short replicationFactor, Map<String, String> configs) {

    /** What a topic carries; its key in the words of docs/design.md §4. */
    public enum Kind {
        /** Reporters' events keyed by node (node-writes, node-capacity). */
        NODE_EVENTS("node id"),
        /** The detector's output keyed by cluster (reports, alerts); joined per cluster by the balancer. */
        CLUSTER_EVENTS("cluster"),
        /** Commands keyed by the node that must act; an agent that was down resumes from them. */
        COMMANDS("node id"),
        /** Agents' answers to migration steps; the migrator that was down resumes from them. */
        STATUS("migration id"),
        /** Compacted tables: the latest row per key is the state, read whole by writers. */
        TABLE("<cluster>/<node> or <cluster>/<slot>"),
        /** Rejected records of every app, for operators. */
        DEAD_LETTER("the rejected record's key");

        private final String key;

        Kind(String key) {
            this.key = key;
        }

        /** What the topic is keyed by. */
        public String key() {
            return key;
        }
    }

    public TopicSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        if (partitions < 1) {
            throw new IllegalArgumentException(name + ": partitions must be at least 1, was " + partitions);
        }
        if (replicationFactor < 1) {
            throw new IllegalArgumentException(name + ": replication factor must be at least 1, was " + replicationFactor);
        }
        configs = Collections.unmodifiableMap(new LinkedHashMap<>(configs));
        if (!configs.containsKey(TopicConfig.CLEANUP_POLICY_CONFIG)) {
            throw new IllegalArgumentException(name + ": the plan must say the cleanup policy");
        }
    }

    public String cleanupPolicy() {
        return configs.get(TopicConfig.CLEANUP_POLICY_CONFIG);
    }

    public boolean compacted() {
        return TopicConfig.CLEANUP_POLICY_COMPACT.equals(cleanupPolicy());
    }

    /** How long records are kept; empty for a compacted table (kept by key, not by time). */
    public Optional<Duration> retention() {
        String ms = configs.get(TopicConfig.RETENTION_MS_CONFIG);
        return ms == null ? Optional.empty() : Optional.of(Duration.ofMillis(Long.parseLong(ms)));
    }

    /** The request that creates it. */
    public NewTopic newTopic() {
        return new NewTopic(name, partitions, replicationFactor).configs(configs);
    }

    /** {@code 6 partitions, replication factor 1, cleanup.policy=delete, retention.ms=604800000 (7d)}. */
    public String summary() {
        StringBuilder b = new StringBuilder().append(partitions).append(partitions == 1 ? " partition" : " partitions")
                .append(", replication factor ").append(replicationFactor);
        configs.forEach((k, v) -> b.append(", ").append(k).append('=').append(v)
                .append(k.equals(TopicConfig.RETENTION_MS_CONFIG) ? " (" + retentionText(Long.parseLong(v)) + ")" : ""));
        return b.toString();
    }

    /** A {@code retention.ms} value in words: {@code 7d}, {@code forever}. */
    static String retentionText(long ms) {
        return ms < 0 ? "forever" : Durations.format(Duration.ofMillis(ms));
    }
}
