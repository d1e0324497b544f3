package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.balancer.policy.ControllerState;
import io.skewguard.balancer.policy.NodeControl;
import java.util.Arrays;
import java.util.TreeMap;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.common.errors.SerializationException;

class ControllerStateSerdeTest {

    private final ControllerStateSerde serde = new ControllerStateSerde();

    @Provide
    Arbitrary<ControllerState> states() {
        Arbitrary<NodeControl> control = Combinators.combine(
                Arbitraries.doubles().between(0.5, 2.0),
                Arbitraries.doubles().between(0, 0.5),
                Arbitraries.integers().between(-1, 1),
                Arbitraries.integers().between(0, 50))
                .as(NodeControl::new);
        Arbitrary<TreeMap<String, NodeControl>> nodes = Arbitraries.maps(
                        Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(12), control)
                .ofMaxSize(60).map(TreeMap::new);
        return Combinators.combine(
                Arbitraries.longs().between(0, Long.MAX_VALUE),
                Arbitraries.longs(),
                Arbitraries.of(true, false),
                Arbitraries.of(true, false),
                Arbitraries.longs(),
                nodes,
                Arbitraries.longs())
                .as(ControllerState::new);
    }

    @Property
    void everyStateReadsBackEqual(@ForAll("states") ControllerState state) {
        byte[] bytes = serde.serializer().serialize("changelog", state);

        assertThat(serde.deserializer().deserialize("changelog", bytes)).isEqualTo(state);
    }

    @org.junit.jupiter.api.Test
    void aStateOfTheFirstVersionReadsWithNoFollowUpPending() throws java.io.IOException {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.io.DataOutputStream out = new java.io.DataOutputStream(bytes)) {
            out.writeByte(1);
            out.writeLong(7);
            out.writeLong(120_000);
            out.writeBoolean(false);
            out.writeBoolean(false);
            out.writeLong(60_000);
            out.writeInt(1);
            out.writeUTF("n1");
            out.writeDouble(0.8);
            out.writeDouble(0.25);
            out.writeByte(-1);
            out.writeInt(2);
        }
        TreeMap<String, NodeControl> nodes = new TreeMap<>();
        nodes.put("n1", new NodeControl(0.8, 0.25, -1, 2));

        assertThat(serde.deserializer().deserialize("changelog", bytes.toByteArray()))
                .isEqualTo(new ControllerState(7, 120_000, false, false, 60_000, nodes, ControllerState.NEVER));
    }

    @Property
    void truncatedOrExtendedBytesAreRefused(@ForAll("states") ControllerState state) {
        byte[] bytes = serde.serializer().serialize("changelog", state);

        assertThatThrownBy(() -> serde.deserializer().deserialize("changelog", Arrays.copyOf(bytes, bytes.length - 1)))
                .isInstanceOf(SerializationException.class);
        assertThatThrownBy(() -> serde.deserializer().deserialize("changelog", Arrays.copyOf(bytes, bytes.length + 1)))
                .isInstanceOf(SerializationException.class);
    }
}
