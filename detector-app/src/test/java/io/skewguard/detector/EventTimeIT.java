package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One event ten years ahead on a real broker (docs/detector.md, "Event time"): it reaches the
 * dead-letter topic as {@code future}, and every ordinary event after it counts — before and after a
 * restart of the app, whose stage two resumes from its changelogged stores (where, before the bound,
 * the far-future stream time was kept and the cluster stayed blind).
 */
class EventTimeIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String[] NODES = {"n1", "n2", "n3"};
    private static final long TEN_YEARS = 3652L * 86_400_000;

    private DetectorItRig rig;

    @BeforeEach
    void setUp() throws Exception {
        rig = new DetectorItRig(KAFKA.broker(), "eventtime", 1);
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
    }

    @Test
    void aFarFutureEventIsDeadLetteredAndBlindsNothingAcrossARestart() throws Exception {
        DetectorApp.Running first = rig.start("first", Map.of());
        try (KafkaProducer<String, WriteEvent> writes = KAFKA.broker().producer(new StringSerializer(),
                SchemaRegistrySerde.of(WriteEvent.class, rig.settings.serdeConfig(), false).serializer())) {
            // the record's own timestamp is ordinary (the broker refuses one an hour ahead); its event time is not
            long now = System.currentTimeMillis();
            writes.send(new ProducerRecord<>(rig.topics.nodeWrites(), null, now, "n1",
                    new WriteEvent("c1", "n1", 1, 1_000_000L, 1L, Instant.ofEpochMilli(now + TEN_YEARS)))).get();
        }
        rig.produceSkew(3_000, NODES, true, false);

        rig.stop(first);
        rig.start("second", Map.of()); // an empty state dir: stage two's stores come back from their changelogs
        rig.produceSkew(3_000, NODES, true, false);

        long lastTick = rig.t0 + 3_000; // stream time ends near t0 + 6 s; a tick closes 2 s (grace) after it
        List<SkewReport> reports = rig.reportsUntil(lastTick, Duration.ofSeconds(60));
        rig.assertOnePerTickWithExactHeat(reports);
        assertThat(reports).extracting(r -> r.getWindowEnd().toEpochMilli()).contains(rig.t0 + 1_000, lastTick);

        List<ConsumerRecord<byte[], byte[]>> dead = KAFKA.broker().consumeUntil(rig.topics.dlq(),
                new ByteArrayDeserializer(), new ByteArrayDeserializer(), 1, Duration.ofSeconds(30));
        assertThat(dead).singleElement().satisfies(d -> assertThat(DeadLetter.fromHeaders(d.headers()).reason())
                .startsWith("future: event time").contains("ahead of this process's clock"));
    }
}
