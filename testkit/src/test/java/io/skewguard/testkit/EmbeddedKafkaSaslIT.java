package io.skewguard.testkit;

import io.skewguard.embedded.EmbeddedKafka;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** A broker whose client listener is SASL_PLAINTEXT; one broker for the class, each test its own topics. */
class EmbeddedKafkaSaslIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** How long a refused client may try before it must have given up; bounds the refusal tests. */
    private static final Duration REFUSAL_BOUND = Duration.ofSeconds(2);

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension(EmbeddedKafka.builder()
            .saslUser("alice", "alice-secret")
            .saslUser("bob", "bob-secret"));

    @Test
    void clientPropertiesAreExactlyTheStandardSaslKeysOfThatUser() {
        EmbeddedKafka kafka = KAFKA.broker();

        assertThat(kafka.isSasl()).isTrue();
        assertThat(kafka.clientProperties("alice")).containsExactly(
                Map.entry("bootstrap.servers", kafka.bootstrapServers()),
                Map.entry("security.protocol", "SASL_PLAINTEXT"),
                Map.entry("sasl.mechanism", "SCRAM-SHA-256"),
                Map.entry("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required"
                        + " username=\"alice\" password=\"alice-secret\";"));
        assertThat(kafka.clientProperties()).containsOnlyKeys(kafka.clientProperties("alice").keySet())
                .doesNotContainValue(kafka.clientProperties("alice").get("sasl.jaas.config"));
        assertThatThrownBy(() -> kafka.clientProperties("mallory")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mallory").hasMessageContaining("[alice, bob]");
        assertThatThrownBy(() -> kafka.clientProperties(EmbeddedKafka.INTERNAL_ADMIN_USER)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void userWithTheRightPasswordProducesAndConsumesInAGroup() {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopics(2, "alice-writes");

        try (var producer = producer(kafka.clientProperties("alice"), Map.of())) {
            sendNumbered(producer, "alice-writes", 100);
        }
        Map<String, Object> group = Map.of(ConsumerConfig.GROUP_ID_CONFIG, "bob-reads",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (var consumer = consumer(kafka.clientProperties("bob"), group)) {
            consumer.subscribe(List.of("alice-writes"));
            assertThat(pollUntil(consumer, 100)).hasSize(100)
                    .extracting(ConsumerRecord::value).contains("v-0", "v-99");
            consumer.commitSync();
        }
    }

    @Test
    void plainMechanismAcceptsTheSameUsers() {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopics(1, "plain-writes");
        Map<String, String> plain = new HashMap<>(kafka.clientProperties("bob"));
        plain.put("sasl.mechanism", "PLAIN");
        plain.put("sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"bob\" password=\"bob-secret\";");

        try (var producer = producer(plain, Map.of())) {
            sendNumbered(producer, "plain-writes", 5);
        }

        assertThat(kafka.consumeUntil("plain-writes", new StringDeserializer(), new StringDeserializer(), 5, TIMEOUT))
                .hasSize(5);
    }

    @Test
    void wrongPasswordIsRefusedWithASaslAuthenticationErrorAndWritesNothing() {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopics(1, "not-for-impostors");
        Map<String, String> impostor = new HashMap<>(kafka.clientProperties("alice"));
        impostor.put("sasl.jaas.config", impostor.get("sasl.jaas.config").replace("alice-secret", "guessed"));

        try (var producer = producer(impostor, Map.of())) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("not-for-impostors", "k", "v"))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                    .satisfies(e -> assertThat(causes(e)).hasAtLeastOneElementOfType(SaslAuthenticationException.class));
        }
        try (var consumer = consumer(impostor, Map.of())) {
            assertThatThrownBy(() -> consumer.partitionsFor("not-for-impostors", TIMEOUT))
                    .isInstanceOf(SaslAuthenticationException.class);
        }
        assertThat(endOffset(kafka, "not-for-impostors")).isZero();
    }

    @Test
    void plaintextClientIsRefusedAndWritesNothing() {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopics(1, "not-for-plaintext");
        try (var producer = kafka.producer(new StringSerializer(), new StringSerializer())) {
            sendNumbered(producer, "not-for-plaintext", 3);
        }
        // what a client configured for a plaintext broker has: the address and nothing else
        Map<String, String> plaintext = Map.of("bootstrap.servers", kafka.bootstrapServers());

        // the broker answers a plaintext request with a closed connection, so the client only ever
        // sees a broker it cannot reach: its bounded metadata wait runs out
        try (var producer = producer(plaintext, Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, REFUSAL_BOUND.toMillis()))) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("not-for-plaintext", "k", "v"))
                    .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS))
                    .satisfies(e -> assertThat(causes(e)).hasAtLeastOneElementOfType(TimeoutException.class));
        }
        try (var consumer = consumer(plaintext, Map.of())) {
            assertThatThrownBy(() -> consumer.partitionsFor("not-for-plaintext", REFUSAL_BOUND))
                    .isInstanceOf(TimeoutException.class);
            consumer.assign(List.of(new TopicPartition("not-for-plaintext", 0)));
            consumer.seekToBeginning(consumer.assignment());
            assertThat(consumer.poll(REFUSAL_BOUND)).isEmpty();
        }
        assertThat(endOffset(kafka, "not-for-plaintext")).isEqualTo(3);
    }

    @Test
    void transactionalProducerOfAUserCommitsAndAbortsAsWithoutSasl() {
        EmbeddedKafka kafka = KAFKA.broker();
        // one partition: the last record's offset is above the aborted one's
        kafka.createTopics(1, "alice-transactions");

        try (var producer = producer(kafka.clientProperties("alice"),
                Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "alice-tx"))) {
            producer.initTransactions();
            producer.beginTransaction();
            sendNumbered(producer, "alice-transactions", 10);
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("alice-transactions", "aborted", "aborted"));
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("alice-transactions", "last", "last"));
            producer.commitTransaction();
        }

        // read_committed in offset order: once the last record is read, the aborted one would have been too
        List<ConsumerRecord<String, String>> records = kafka.consumeUntil("alice-transactions",
                new StringDeserializer(), new StringDeserializer(),
                read -> read.stream().anyMatch(r -> r.key().equals("last")), TIMEOUT);
        assertThat(records).hasSize(11).extracting(ConsumerRecord::key).doesNotContain("aborted");
    }

    @Test
    void theKitsOwnHelpersWorkWithSasl() throws Exception {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopics(3, "kit-plain");
        kafka.createCompactedTopics(1, "kit-compacted");
        assertThat(kafka.adminClient().listTopics().names().get(30, TimeUnit.SECONDS))
                .contains("kit-plain", "kit-compacted");

        try (var producer = kafka.producer(new StringSerializer(), new StringSerializer())) {
            sendNumbered(producer, "kit-plain", 50);
        }
        try (var producer = kafka.transactionalProducer("kit-tx", new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("kit-compacted", "k", "v"));
            producer.commitTransaction();
        }

        assertThat(kafka.consumeUntil("kit-plain", new StringDeserializer(), new StringDeserializer(), 50, TIMEOUT))
                .hasSize(50);
        assertThat(kafka.consumeUntil("kit-compacted", new StringDeserializer(), new StringDeserializer(), 1, TIMEOUT))
                .singleElement().satisfies(r -> assertThat(r.value()).isEqualTo("v"));
    }

    @Test
    void propertiesFileAloneLetsAnApplicationConnectAsItsUser(@TempDir Path dir) throws Exception {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopics(1, "from-file");

        Path file = kafka.writeClientProperties(dir.resolve("bob.properties"), "bob");

        Properties loaded = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            loaded.load(in);
        }
        assertThat(loaded).containsExactlyInAnyOrderEntriesOf(kafka.clientProperties("bob"));
        Map<String, String> fromFile = new HashMap<>();
        loaded.stringPropertyNames().forEach(name -> fromFile.put(name, loaded.getProperty(name)));
        try (var producer = producer(fromFile, Map.of())) {
            sendNumbered(producer, "from-file", 3);
        }
        assertThat(kafka.consumeUntil("from-file", new StringDeserializer(), new StringDeserializer(), 3, TIMEOUT))
                .hasSize(3);
    }

    @Test
    void restartKeepsTheUsersAndTheirPasswords() {
        EmbeddedKafka kafka = KAFKA.broker();
        kafka.createTopics(1, "before-restart");

        kafka.restart();

        try (var producer = producer(kafka.clientProperties("alice"), Map.of())) {
            sendNumbered(producer, "before-restart", 7);
        }
        try (var consumer = consumer(kafka.clientProperties("bob"), Map.of())) {
            consumer.assign(List.of(new TopicPartition("before-restart", 0)));
            consumer.seekToBeginning(consumer.assignment());
            assertThat(pollUntil(consumer, 7)).hasSize(7);
        }
        Map<String, String> impostor = new HashMap<>(kafka.clientProperties("bob"));
        impostor.put("sasl.jaas.config", impostor.get("sasl.jaas.config").replace("bob-secret", "alice-secret"));
        try (var consumer = consumer(impostor, Map.of())) {
            assertThatThrownBy(() -> consumer.partitionsFor("before-restart", TIMEOUT))
                    .isInstanceOf(SaslAuthenticationException.class);
        }
    }

    // ---------------------------------------------------------------- clients built as an application would

    private static KafkaProducer<String, String> producer(Map<String, String> settings, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(settings);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, TIMEOUT.toMillis());
        config.putAll(extra);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(Map<String, String> settings, Map<String, Object> extra) {
        Map<String, Object> config = new HashMap<>(settings);
        config.putAll(extra);
        return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }

    /** Sends {@code count} records and waits for every one of them; closes nothing. */
    private static void sendNumbered(KafkaProducer<String, String> producer, String topic, int count) {
        var futures = IntStream.range(0, count)
                .mapToObj(i -> producer.send(new ProducerRecord<>(topic, "k-" + i, "v-" + i))).toList();
        producer.flush();
        futures.forEach(f -> {
            try {
                f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new AssertionError("record to " + topic + " not acknowledged", e);
            }
        });
    }

    private static List<ConsumerRecord<String, String>> pollUntil(KafkaConsumer<String, String> consumer, int count) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (records.size() < count && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
        }
        return records;
    }

    private static long endOffset(EmbeddedKafka kafka, String topic) {
        TopicPartition partition = new TopicPartition(topic, 0);
        try {
            return kafka.adminClient().listOffsets(Map.of(partition, OffsetSpec.latest())).partitionResult(partition)
                    .get(30, TimeUnit.SECONDS).offset();
        } catch (Exception e) {
            throw new AssertionError("end offset of " + partition + " unknown", e);
        }
    }

    private static List<Throwable> causes(Throwable e) {
        List<Throwable> chain = new ArrayList<>();
        for (Throwable t = e; t != null && !chain.contains(t); t = t.getCause()) {
            chain.add(t);
        }
        return chain;
    }
}
