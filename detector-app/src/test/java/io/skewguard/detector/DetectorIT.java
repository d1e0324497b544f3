package io.skewguard.detector;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The detector against a real broker, exactly-once: Confluent-wire events in, reports, a
 * CONFIRMED alert and dead letters out; a restart mid-stream neither repeats a transition nor
 * loses window heat. Short settings (tick 1 s, window 4 s, grace 2 s, cooldown 6 s) keep it to
 * about 20 s; event time is a synthetic clock that runs with the producer.
 */
class DetectorIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final long COOLDOWN = 6_000;
    private static final String[] NODES = {"n1", "n2", "n3", "n4"};

    private DetectorItRig rig;

    @BeforeEach
    void setUp() throws Exception {
        rig = new DetectorItRig(KAFKA.broker(), "it", 3);
    }

    @AfterEach
    void tearDown() throws Exception {
        rig.close();
    }

    private List<SkewAlert> alertsUntil(java.util.function.Predicate<List<SkewAlert>> done) {
        return rig.alertsUntil(done, Duration.ofSeconds(60));
    }

    @Test
    void skewIsReportedAndConfirmedAcrossARestartWithoutRepeatingOrLosingAnything() throws Exception {
        DetectorApp.Running first = rig.start("first", Map.of());
        rig.produceSkew(6_000, NODES, false, true);
        alertsUntil(a -> a.stream().anyMatch(x -> x.getState() == AlertState.OBSERVING));

        // a bad record on the way: it must reach the DLQ with its original bytes
        try (KafkaProducer<byte[], byte[]> raw = KAFKA.broker().producer(new ByteArraySerializer(), new ByteArraySerializer())) {
            raw.send(new ProducerRecord<>(rig.topics.nodeWrites(), "n1".getBytes(StandardCharsets.UTF_8),
                    "garbage".getBytes(StandardCharsets.UTF_8))).get();
        }

        rig.stop(first); // orderly stop mid-stream, before the cooldown has passed
        rig.start("second", Map.of()); // an empty state dir: the stores come back from their changelogs
        rig.produceSkew(10_000, NODES, false, true);

        List<SkewAlert> alerts = alertsUntil(a -> a.stream().anyMatch(x -> x.getState() == AlertState.CONFIRMED));
        List<SkewAlert> heat = alerts.stream().filter(a -> a.getKind() == AlertKind.HEAT).toList();
        assertThat(heat).extracting(SkewAlert::getState).containsExactly(AlertState.OBSERVING, AlertState.CONFIRMED);
        long since = heat.get(0).getEventTime().toEpochMilli();
        assertThat(heat.get(1).getEventTime().toEpochMilli()).isEqualTo(since + COOLDOWN);
        assertThat(heat.get(1).getSince().toEpochMilli()).isEqualTo(since);

        long lastTick = heat.get(1).getEventTime().toEpochMilli();
        List<SkewReport> reports = rig.reportsUntil(lastTick, Duration.ofSeconds(60));
        // one report per tick, in order, none repeated; every report holds exactly the heat produced
        // in its window, across the restart too
        rig.assertOnePerTickWithExactHeat(reports);
        assertThat(reports).allSatisfy(r -> assertThat(r.getCluster()).isEqualTo("c1"));
        assertThat(reports.get(reports.size() - 1).getHeatGini()).isGreaterThan(0.4);

        List<ConsumerRecord<byte[], byte[]>> dead = KAFKA.broker().consumeUntil(rig.topics.dlq(),
                new ByteArrayDeserializer(), new ByteArrayDeserializer(), 1, Duration.ofSeconds(30));
        assertThat(dead).hasSize(1);
        assertThat(new String(dead.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("garbage");
        DeadLetter letter = DeadLetter.fromHeaders(dead.get(0).headers());
        assertThat(letter.sourceTopic()).isEqualTo(rig.topics.nodeWrites());
        assertThat(letter.reason()).startsWith("undecodable");
    }
}
