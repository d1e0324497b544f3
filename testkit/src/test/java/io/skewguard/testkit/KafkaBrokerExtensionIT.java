package io.skewguard.testkit;

import io.skewguard.embedded.EmbeddedKafka;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What integration tests of the apps rely on, against one broker shared by this class. */
class KafkaBrokerExtensionIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    @Test
    void injectsTheRunningBrokerOfTheClass(EmbeddedKafka injected) {
        assertThat(injected).isSameAs(KAFKA.broker());
        assertThat(injected.isRunning()).isTrue();
        assertThat(KAFKA.bootstrapServers()).isEqualTo(injected.bootstrapServers());
    }

    @Test
    void committedTransactionsAreVisibleAndAbortedOnesAreNot() {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopics(1, "tx-out");
        try (KafkaProducer<String, String> producer =
                     kafka.transactionalProducer("tx-test", new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();

            producer.beginTransaction();
            for (int i = 0; i < 100; i++) {
                producer.send(new ProducerRecord<>("tx-out", "committed-" + i, "c"));
            }
            producer.commitTransaction();

            producer.beginTransaction();
            for (int i = 0; i < 50; i++) {
                producer.send(new ProducerRecord<>("tx-out", "aborted-" + i, "a"));
            }
            producer.flush();
            producer.abortTransaction();

            producer.beginTransaction();
            producer.send(new ProducerRecord<>("tx-out", "end", "c"));
            producer.commitTransaction();
        }

        List<ConsumerRecord<String, String>> records = kafka.consumeUntil("tx-out",
                new StringDeserializer(), new StringDeserializer(),
                read -> read.stream().anyMatch(r -> r.key().equals("end")), TIMEOUT);

        assertThat(records).hasSize(101).extracting(ConsumerRecord::value).containsOnly("c");
        assertThat(records.get(100).key()).isEqualTo("end");
    }

    @Test
    void compactedTopicHasCompactCleanupPolicy() throws Exception {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createCompactedTopics(2, "compacted-a", "compacted-b");
        kafka.createTopics(1, "plain");

        assertThat(cleanupPolicy(kafka, "compacted-a")).isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
        assertThat(cleanupPolicy(kafka, "compacted-b")).isEqualTo(TopicConfig.CLEANUP_POLICY_COMPACT);
        assertThat(cleanupPolicy(kafka, "plain")).isEqualTo(TopicConfig.CLEANUP_POLICY_DELETE);
        assertThat(kafka.adminClient().describeTopics(List.of("compacted-a")).allTopicNames()
                .get(30, TimeUnit.SECONDS).get("compacted-a").partitions()).hasSize(2);
    }

    @Test
    void consumeUntilTimesOutSayingHowFarItGot() {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopics(1, "one-record");
        EmbeddedKafkaIT.sendNumbered(kafka, "one-record", 1);

        assertThatThrownBy(() -> kafka.consumeUntil("one-record", new StringDeserializer(), new StringDeserializer(),
                2, Duration.ofSeconds(2)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining("after reading 1 records");
    }

    @Test
    void consumeUntilDoesNotCreateAMissingTopic() throws Exception {
        EmbeddedKafka kafka = KAFKA.broker();

        assertThatThrownBy(() -> kafka.consumeUntil("never-created", new StringDeserializer(), new StringDeserializer(),
                1, Duration.ofSeconds(2)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining("does not exist");
        assertThat(kafka.adminClient().listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain("never-created");
    }

    @Test
    void closingTheSharedAdminDoesNotCloseItForOthers() throws Exception {
        EmbeddedKafka kafka = KAFKA.broker();
        try (var admin = kafka.adminClient()) {
            admin.listTopics().names().get(30, TimeUnit.SECONDS);
        }
        assertThat(kafka.adminClient().describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(1);
    }

    @Nested
    class NestedClass {
        @Test
        void reusesTheEnclosingClassBroker(EmbeddedKafka injected) {
            assertThat(injected).isSameAs(KAFKA.broker());
            assertThat(injected.isRunning()).isTrue();
        }
    }

    private static String cleanupPolicy(EmbeddedKafka kafka, String topic) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config config = kafka.adminClient().describeConfigs(List.of(resource)).all()
                .get(30, TimeUnit.SECONDS).get(resource);
        return config.get(TopicConfig.CLEANUP_POLICY_CONFIG).value();
    }
}
