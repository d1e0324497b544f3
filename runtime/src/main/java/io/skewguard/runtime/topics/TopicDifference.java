package io.skewguard.runtime.topics;

import java.util.List;
import org.apache.kafka.common.config.TopicConfig;

/** One way the topics on a cluster differ from the plan; {@link #line()} says it in one line. */
public sealed interface TopicDifference {

    /** The topic it concerns (the first one, for a pair). */
    String topic();

    /** The difference in one line, for an operator. */
    String line();

    /** The topic does not exist. */
    record Missing(String topic, TopicSpec planned) implements TopicDifference {
        @Override
        public String line() {
            return topic + ": missing (planned: " + planned.summary() + ")";
        }
    }

    /** The topic has another partition count. */
    record Partitions(String topic, int actual, int planned) implements TopicDifference {
        @Override
        public String line() {
            return topic + ": " + actual + " partition" + (actual == 1 ? "" : "s") + ", the plan says " + planned;
        }
    }

    /** Some partition of the topic has another number of replicas. */
    record ReplicationFactor(String topic, int actual, int planned) implements TopicDifference {
        @Override
        public String line() {
            return topic + ": replication factor " + actual + ", the plan says " + planned;
        }
    }

    /** A topic config ({@code cleanup.policy}, {@code retention.ms}, {@code min.insync.replicas}) has another value. */
    record Config(String topic, String key, String actual, String planned) implements TopicDifference {
        @Override
        public String line() {
            return topic + ": " + key + "=" + shown(actual) + ", the plan says " + key + "=" + shown(planned);
        }

        private String shown(String value) {
            if (key.equals(TopicConfig.RETENTION_MS_CONFIG) && value != null && value.matches("-?\\d+")) {
                return value + " (" + TopicSpec.retentionText(Long.parseLong(value)) + ")";
            }
            return value == null ? "(not set)" : value;
        }
    }

    /** Topics that must have one partition count have several (reports and alerts). */
    record NotCoPartitioned(List<String> topics, List<Integer> partitions) implements TopicDifference {
        public NotCoPartitioned {
            topics = List.copyOf(topics);
            partitions = List.copyOf(partitions);
        }

        @Override
        public String topic() {
            return topics.get(0);
        }

        @Override
        public String line() {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < topics.size(); i++) {
                b.append(i == 0 ? "" : i == topics.size() - 1 ? " and " : ", ").append(topics.get(i)).append(" has ")
                        .append(partitions.get(i)).append(partitions.get(i) == 1 ? " partition" : " partitions");
            }
            return b.append(": they must have the same count, because the balancer handles both per cluster in one task").toString();
        }
    }
}
