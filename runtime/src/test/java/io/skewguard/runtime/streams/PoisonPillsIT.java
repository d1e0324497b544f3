package io.skewguard.runtime.streams;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.runtime.lifecycle.StreamsService;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PoisonPills} under exactly_once_v2 on a real broker, through {@link StreamsService} as the
 * apps run it: a poison pill and an output too large to send each end as a dead letter with its
 * reason, and the next record is processed by the same client.
 */
class PoisonPillsIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @TempDir
    Path stateDir;

    @Test
    void aRecordWhoseProcessingAlwaysThrowsIsDeadLetteredWithItsReasonAndTheNextOneIsProcessed() throws Exception {
        KAFKA.broker().createTopics(1, "pp-in", "pp-out", "pp-dlq");
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("pp-in", Consumed.with(Serdes.String(), Serdes.String()))
                .mapValues(v -> {
                    if (v.startsWith("poison")) {
                        throw new IllegalStateException("cannot take " + v);
                    }
                    return v.toUpperCase();
                })
                .to("pp-out", Produced.with(Serdes.String(), Serdes.String()));
        send("pp-in", "before", "poison-1", "after");

        StreamsService service = new StreamsService("pp", builder.build(), properties("pp-app", "pp-dlq"));
        try {
            service.start();

            List<ConsumerRecord<String, String>> out = read("pp-out", 2);
            List<ConsumerRecord<String, String>> dlq = read("pp-dlq", 1);

            assertThat(out).extracting(ConsumerRecord::value).containsExactly("BEFORE", "AFTER");
            assertThat(dlq).hasSize(1);
            assertThat(dlq.get(0).key()).isEqualTo("k");
            assertThat(dlq.get(0).value()).isEqualTo("poison-1");
            DeadLetter letter = DeadLetter.fromHeaders(dlq.get(0).headers());
            assertThat(letter.sourceTopic()).isEqualTo("pp-in");
            assertThat(letter.sourceOffset()).isEqualTo(1);
            assertThat(letter.reason()).startsWith("poison: IllegalStateException: cannot take poison-1");
            assertThat(service.deadLetters().orElseThrow().count("poison")).isEqualTo(1);
            assertThat(service.failure()).isEmpty();
        } finally {
            service.close(Duration.ofSeconds(30));
        }
    }

    @Test
    void anOutputTooLargeToSendIsDeadLetteredWithItsReasonAndTheNextOutputIsWritten() throws Exception {
        KAFKA.broker().createTopics(1, "big-in", "big-out", "big-dlq");
        Properties p = properties("big-app", "big-dlq");
        p.put(StreamsConfig.producerPrefix(ProducerConfig.MAX_REQUEST_SIZE_CONFIG), 10_000);
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("big-in", Consumed.with(Serdes.String(), Serdes.String()))
                .mapValues(v -> v.startsWith("huge") ? "x".repeat(20_000) : v)
                .to("big-out", Produced.with(Serdes.String(), OutputLimit.of(p).bound(Serdes.String())));
        send("big-in", "small-1", "huge", "small-2");

        StreamsService service = new StreamsService("big", builder.build(), p);
        try {
            service.start();

            List<ConsumerRecord<String, String>> out = read("big-out", 2);
            List<ConsumerRecord<String, String>> dlq = read("big-dlq", 1);

            assertThat(out).extracting(ConsumerRecord::value).containsExactly("small-1", "small-2");
            assertThat(dlq).hasSize(1);
            assertThat(dlq.get(0).key()).isEqualTo("k");
            assertThat(dlq.get(0).value()).as("the input whose output could not be written").isEqualTo("huge");
            DeadLetter letter = DeadLetter.fromHeaders(dlq.get(0).headers());
            assertThat(letter.sourceTopic()).isEqualTo("big-in");
            assertThat(letter.sourceOffset()).isEqualTo(1);
            assertThat(letter.reason()).startsWith("unserializable: RecordTooLargeException: a 20000-byte value for big-out");
            assertThat(service.failure()).isEmpty();
        } finally {
            service.close(Duration.ofSeconds(30));
        }
    }

    private Properties properties(String applicationId, String deadLetterTopic) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        // as every app's settings model fixes them
        p.put(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, PoisonPills.Processing.class.getName());
        p.put(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, PoisonPills.Deserialization.class.getName());
        p.put(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, PoisonPills.Production.class.getName());
        return PoisonPills.routedTo(p, deadLetterTopic);
    }

    private static void send(String topic, String... values) throws Exception {
        try (KafkaProducer<String, String> producer = KAFKA.broker().producer(new StringSerializer(), new StringSerializer())) {
            for (String v : values) {
                producer.send(new ProducerRecord<>(topic, "k", v)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static List<ConsumerRecord<String, String>> read(String topic, int count) {
        return KAFKA.broker().consumeUntil(topic, new StringDeserializer(), new StringDeserializer(), count, DEADLINE);
    }
}
