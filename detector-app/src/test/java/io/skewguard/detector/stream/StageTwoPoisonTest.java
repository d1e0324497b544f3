package io.skewguard.detector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.detector.DetectorSettings;
import io.skewguard.detector.DetectorTopology;
import io.skewguard.detector.policy.BucketHeat;
import io.skewguard.detector.policy.NodeCapacity;
import io.skewguard.runtime.streams.DeadLetters;
import io.skewguard.runtime.streams.PoisonPills;
import io.skewguard.schemas.DeadLetter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.TestInputTopic;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stage two meets a record of its partials topic it cannot decode: the record goes to the
 * dead-letter topic with its reason and the next partial is processed, instead of the exception
 * killing the stream thread (and, replaced, every thread after it).
 */
class StageTwoPoisonTest {

    @TempDir
    Path stateDir;

    @Test
    void anUndecodablePartialIsDeadLetteredWithItsReasonAndTheNextPartialIsProcessed() {
        DetectorSettings settings = DetectorSettings.defaultSettings()
                .with(Map.of(DetectorSettings.SCHEMA_REGISTRY_URL, "mock://stage-two-poison"));
        List<ProducerRecord<byte[], byte[]>> dlq = new ArrayList<>();
        Properties props = settings.streamsProperties();
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        PoisonPills.writingTo(props, new DeadLetters(settings.topics().dlq(), dlq::add));
        try (TopologyTestDriver driver = new TopologyTestDriver(DetectorTopology.build(settings), props)) {
            TestInputTopic<byte[], byte[]> partials = driver.createInputTopic(settings.partialsTopic(),
                    new ByteArraySerializer(), new ByteArraySerializer());
            byte[] good = StateCodec.partialSerde().serializer().serialize(settings.partialsTopic(),
                    new PartialHeat("c1", 1_000, List.of(new BucketHeat(0, new String[] {"n1"}, new long[] {10},
                            new int[] {0}, new long[] {10})),
                            List.of(new NodeCapacity("n1", 5, 10, null, new int[0], new long[0], 1_000))));

            partials.pipeInput(bytes("c1"), new byte[] {0x7f, 0x01, 0x02});
            partials.pipeInput(bytes("c1"), good);

            assertThat(dlq).hasSize(1);
            assertThat(dlq.get(0).topic()).isEqualTo(settings.topics().dlq());
            assertThat(dlq.get(0).value()).containsExactly(0x7f, 0x01, 0x02);
            DeadLetter letter = DeadLetter.fromHeaders(dlq.get(0).headers());
            assertThat(letter.sourceTopic()).isEqualTo(settings.partialsTopic());
            assertThat(letter.sourceOffset()).isEqualTo(0);
            assertThat(letter.reason()).startsWith("undecodable: ");
            assertThat(driver.getKeyValueStore(ClusterProcessor.PROGRESS_STORE).get("c1"))
                    .as("the good partial after it reached the cluster's detector").isNotNull();
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
