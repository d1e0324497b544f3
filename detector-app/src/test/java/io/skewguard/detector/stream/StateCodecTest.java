package io.skewguard.detector.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.detector.policy.BucketHeat;
import io.skewguard.detector.policy.ClusterDetector;
import io.skewguard.detector.policy.NodeCapacity;
import io.skewguard.schemas.AlertState;
import java.util.List;
import org.junit.jupiter.api.Test;

class StateCodecTest {

    private final BucketHeat heat = new BucketHeat(170_000_000_000L, new String[] {"n1", "nœud-2"},
            new long[] {5, Long.MAX_VALUE}, new int[] {0, 4095}, new long[] {1, 2});
    private final NodeCapacity withRack = new NodeCapacity("n1", 1, 2, "r1", new int[] {3}, new long[] {9}, 77);
    private final NodeCapacity withoutRack = new NodeCapacity("n2", 0, 1, null, new int[0], new long[0], -5);

    @Test
    void partialsSurviveTheRepartitionTopic() {
        var serde = StateCodec.partialSerde();
        PartialHeat p = new PartialHeat("c1", 123, List.of(heat, heat), List.of(withRack, withoutRack));
        PartialHeat back = serde.deserializer().deserialize("t", serde.serializer().serialize("t", p));
        assertThat(back.cluster()).isEqualTo("c1");
        assertThat(back.maxEventTime()).isEqualTo(123);
        assertThat(back.buckets()).hasSize(2).allSatisfy(b -> assertThat(b).usingRecursiveComparison().isEqualTo(heat));
        assertThat(back.capacities()).usingRecursiveFieldByFieldElementComparator()
                .containsExactly(withRack, withoutRack);
    }

    @Test
    void storeValuesRoundTrip() {
        assertThat(StateCodec.decodeBucket(StateCodec.encode(heat))).usingRecursiveComparison().isEqualTo(heat);
        assertThat(StateCodec.decodeCapacity(StateCodec.encode(withoutRack))).usingRecursiveComparison().isEqualTo(withoutRack);
        ClusterDetector.Progress p = new ClusterDetector.Progress(1, 2, AlertState.CLEARED, 3, AlertState.OBSERVING, Long.MIN_VALUE);
        assertThat(StateCodec.decodeProgress(StateCodec.encode(p))).isEqualTo(p);
    }

    @Test
    void anUnknownVersionIsRefused() {
        byte[] b = StateCodec.encode(heat);
        b[0] = 9;
        assertThatThrownBy(() -> StateCodec.decodeBucket(b)).hasMessageContaining("version 9");
    }
}
