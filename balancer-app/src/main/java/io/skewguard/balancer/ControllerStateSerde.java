package io.skewguard.balancer;

import io.skewguard.balancer.policy.ControllerState;
import io.skewguard.balancer.policy.NodeControl;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary form of a cluster's {@link ControllerState} in the balancer's state store and its changelog.
 * The store is private to the balancer, so a compact versioned layout is enough:
 *
 * <pre>
 *   byte    version (2)
 *   long    epoch, long lastRoundAt, boolean repairing, boolean floorReached, long confirmedSince
 *   int     node count, then per node sorted by id:
 *           UTF node, double weight, double gain, byte direction, int reversals
 *   long    aboveTargetSince (version 2; a version 1 state reads as NEVER)
 * </pre>
 */
final class ControllerStateSerde implements Serde<ControllerState> {

    private static final byte VERSION = 2;
    private static final byte VERSION_1 = 1;

    @Override
    public Serializer<ControllerState> serializer() {
        return (topic, state) -> state == null ? null : write(state);
    }

    @Override
    public Deserializer<ControllerState> deserializer() {
        return (topic, bytes) -> bytes == null ? null : read(topic, bytes);
    }

    static byte[] write(ControllerState state) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 40 * state.nodes().size());
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeLong(state.epoch());
            out.writeLong(state.lastRoundAt());
            out.writeBoolean(state.repairing());
            out.writeBoolean(state.floorReached());
            out.writeLong(state.confirmedSince());
            out.writeInt(state.nodes().size());
            for (Map.Entry<String, NodeControl> e : state.nodes().entrySet()) {
                NodeControl control = e.getValue();
                out.writeUTF(e.getKey());
                out.writeDouble(control.weight());
                out.writeDouble(control.gain());
                out.writeByte(control.direction());
                out.writeInt(control.reversals());
            }
            out.writeLong(state.aboveTargetSince());
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a byte array stream does not fail
        }
        return bytes.toByteArray();
    }

    static ControllerState read(String topic, byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            byte version = in.readByte();
            if (version != VERSION && version != VERSION_1) {
                throw new SerializationException(topic + ": unknown controller state version " + version);
            }
            long epoch = in.readLong();
            long lastRoundAt = in.readLong();
            boolean repairing = in.readBoolean();
            boolean floorReached = in.readBoolean();
            long confirmedSince = in.readLong();
            int count = in.readInt();
            TreeMap<String, NodeControl> nodes = new TreeMap<>();
            for (int i = 0; i < count; i++) {
                String node = in.readUTF();
                nodes.put(node, new NodeControl(in.readDouble(), in.readDouble(), in.readByte(), in.readInt()));
            }
            long aboveTargetSince = version == VERSION_1 ? ControllerState.NEVER : in.readLong();
            if (in.available() > 0) {
                throw new SerializationException(topic + ": " + in.available() + " trailing bytes after controller state");
            }
            return new ControllerState(epoch, lastRoundAt, repairing, floorReached, confirmedSince, nodes, aboveTargetSince);
        } catch (IOException | IllegalArgumentException e) {
            throw new SerializationException(topic + ": corrupt controller state: " + e.getMessage(), e);
        }
    }
}
