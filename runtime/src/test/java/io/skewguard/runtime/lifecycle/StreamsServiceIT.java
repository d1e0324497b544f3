package io.skewguard.runtime.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@link StreamsService} against a real broker (one for the class; each test has its own topic and application id). */
class StreamsServiceIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @TempDir
    Path stateDir;

    @Test
    void startsWithItsListenersInPlaceAndIsReadyOnceRunning() throws Exception {
        KAFKA.broker().createTopics(1, "start-in");
        StreamsService service = new StreamsService("start", countingTopology("start-in", new AtomicInteger()),
                properties("lifecycle-start"));
        try {
            // Kafka Streams refuses a state listener once started: this would throw if it were set late
            assertThatCode(service::start).doesNotThrowAnyException();

            awaitTrue(service::ready, "the service to be ready");
            assertThat(service.streams().state()).isIn(KafkaStreams.State.RUNNING, KafkaStreams.State.REBALANCING);
            assertThat(service.failure()).isEmpty();
        } finally {
            service.close(Duration.ofSeconds(30));
        }
    }

    @Test
    void closeCommitsAndLeavesTheConsumerGroup() throws Exception {
        KAFKA.broker().createTopics(1, "leave-in");
        String applicationId = "lifecycle-leave";
        StreamsService service = new StreamsService("leave", countingTopology("leave-in", new AtomicInteger()),
                properties(applicationId));
        service.start();
        awaitTrue(service::ready, "the service to be ready");
        awaitTrue(() -> !members(applicationId).isEmpty(), "the group to have a member");

        boolean closedInTime = service.close(Duration.ofSeconds(30));

        assertThat(closedInTime).isTrue();
        // no waiting: a member that merely stopped heartbeating would stay for the 45 s session timeout
        // (which is what Kafka Streams 4.1's own leaveGroup(true) leaves a dynamic member to)
        assertThat(members(applicationId)).isEmpty();
        assertThat(service.streams().state()).isEqualTo(KafkaStreams.State.NOT_RUNNING);
        assertThat(service.failure()).as("an asked-for close is not a failure").isEmpty();
        assertThat(service.ready()).isFalse();
        assertThat(service.close(Duration.ofSeconds(30))).as("a second close changes nothing").isTrue();
    }

    @Test
    void aThreadFailingOnAPoisonRecordIsReplacedUpToTheLimitThenTheServiceFails() throws Exception {
        KAFKA.broker().createTopics(1, "poison-in");
        try (KafkaProducer<String, String> producer = KAFKA.broker().producer(new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>("poison-in", "k", "good")).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>("poison-in", "k", "poison")).get(30, TimeUnit.SECONDS);
        }
        AtomicInteger poisonAttempts = new AtomicInteger();
        StreamsService service = new StreamsService("poison", countingTopology("poison-in", poisonAttempts),
                properties("lifecycle-poison"));
        try {
            service.start();

            awaitTrue(() -> service.failure().isPresent(), "the service to fail");

            // the first thread and its three replacements each met the poison record
            assertThat(poisonAttempts).hasValue(1 + ThreadReplacementPolicy.DEFAULT_MAX_REPLACEMENTS);
            assertThat(service.failure().orElseThrow()).hasRootCauseMessage("poison record");
            awaitTrue(() -> service.streams().state() == KafkaStreams.State.ERROR, "Kafka Streams to be in ERROR");
            assertThat(service.ready()).isFalse();
        } finally {
            service.close(Duration.ofSeconds(30));
        }
    }

    @Test
    void aThreadFailingBecauseTheBrokerDidNotAnswerInTimeIsReplacedWithoutUsingUpTheLimitAndTheServiceGoesOn() throws Exception {
        KAFKA.broker().createTopics(1, "timeout-in");
        try (KafkaProducer<String, String> producer = KAFKA.broker().producer(new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>("timeout-in", "k", "slow")).get(30, TimeUnit.SECONDS);
        }
        // the broker "does not answer" twice running: more than the one replacement the policy allows
        AtomicInteger attempts = new AtomicInteger();
        AtomicInteger processed = new AtomicInteger();
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("timeout-in", Consumed.with(Serdes.String(), Serdes.String()))
                .process(() -> new Processor<String, String, Void, Void>() {
                    @Override
                    public void process(Record<String, String> record) {
                        if (attempts.incrementAndGet() <= 2) {
                            throw new org.apache.kafka.common.errors.TimeoutException("Task 0_0 did not make progress within 5000 ms");
                        }
                        processed.incrementAndGet();
                    }
                });
        StreamsService service = new StreamsService("timeout", builder.build(), properties("lifecycle-timeout"),
                new ThreadReplacementPolicy(1, Duration.ofMinutes(10)), java.time.Clock.systemUTC());
        try {
            service.start();

            awaitTrue(() -> processed.get() == 1, "the record to be processed after the timeouts");
            assertThat(attempts).hasValue(3);
            assertThat(service.failure()).as("a broker timeout is not a failure").isEmpty();
            awaitTrue(service::ready, "the service to be ready again");
        } finally {
            service.close(Duration.ofSeconds(30));
        }
    }

    /** Reads {@code topic}; counts and throws on the value "poison". */
    private static Topology countingTopology(String topic, AtomicInteger poisonAttempts) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(topic, Consumed.with(Serdes.String(), Serdes.String()))
                .process(() -> new Processor<String, String, Void, Void>() {
                    @Override
                    public void process(Record<String, String> record) {
                        if ("poison".equals(record.value())) {
                            poisonAttempts.incrementAndGet();
                            throw new IllegalStateException("poison record");
                        }
                    }
                });
        return builder.build();
    }

    private Properties properties(String applicationId) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        return p;
    }

    private static Collection<MemberDescription> members(String groupId) throws Exception {
        ConsumerGroupDescription group = KAFKA.broker().adminClient().describeConsumerGroups(List.of(groupId))
                .describedGroups().get(groupId).get(30, TimeUnit.SECONDS);
        return group.members();
    }

    private static void awaitTrue(Check check, String what) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited " + DEADLINE + " for " + what);
            }
            Thread.sleep(50);
        }
    }

    @FunctionalInterface
    private interface Check {
        boolean holds() throws Exception;
    }
}
