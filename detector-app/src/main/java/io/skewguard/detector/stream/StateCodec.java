package io.skewguard.detector.stream;

import io.skewguard.detector.policy.BucketHeat;
import io.skewguard.detector.policy.ClusterDetector;
import io.skewguard.detector.policy.NodeCapacity;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.serde.ByteSink;
import io.skewguard.schemas.serde.ByteSource;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Binary encoding of the detector's internal data: the {@link PartialHeat}s of the partials topic and the
 * values of its state stores. Internal topics and changelogs only (never a public contract), so a
 * compact hand-written format with a leading version byte instead of Avro.
 */
public final class StateCodec {

    private static final byte VERSION = 1;

    private StateCodec() {}

    /** Serde of {@link PartialHeat} for the partials topic ({@code <application-id>-partials}). */
    public static Serde<PartialHeat> partialSerde() {
        Serializer<PartialHeat> ser = (topic, p) -> p == null ? null : encode(sizeOf(p), out -> writePartial(out, p));
        Deserializer<PartialHeat> de = (topic, b) -> b == null ? null : decode(b, StateCodec::readPartial);
        return Serdes.serdeFrom(ser, de);
    }

    public static byte[] encode(BucketHeat h) {
        return encode(sizeOf(h), out -> writeBucket(out, h));
    }

    public static BucketHeat decodeBucket(byte[] b) {
        return decode(b, StateCodec::readBucket);
    }

    public static byte[] encode(NodeCapacity c) {
        return encode(sizeOf(c), out -> writeCapacity(out, c));
    }

    public static NodeCapacity decodeCapacity(byte[] b) {
        return decode(b, StateCodec::readCapacity);
    }

    public static byte[] encode(ClusterDetector.Progress p) {
        return encode(64, out -> {
            out.writeLong(p.watermark());
            out.writeLong(p.nextTick());
            out.writeByte(p.heatState().ordinal());
            out.writeLong(p.heatSince());
            out.writeByte(p.capacityState().ordinal());
            out.writeLong(p.capacitySince());
        });
    }

    public static ClusterDetector.Progress decodeProgress(byte[] b) {
        return decode(b, in -> new ClusterDetector.Progress(
                in.readLong(), in.readLong(),
                AlertState.values()[in.readByte()], in.readLong(),
                AlertState.values()[in.readByte()], in.readLong()));
    }

    private static void writePartial(DataOutputStream out, PartialHeat p) throws IOException {
        out.writeUTF(p.cluster());
        out.writeLong(p.maxEventTime());
        out.writeInt(p.buckets().size());
        for (BucketHeat h : p.buckets()) {
            writeBucket(out, h);
        }
        out.writeInt(p.capacities().size());
        for (NodeCapacity c : p.capacities()) {
            writeCapacity(out, c);
        }
    }

    private static PartialHeat readPartial(DataInputStream in) throws IOException {
        String cluster = in.readUTF();
        long max = in.readLong();
        int nb = in.readInt();
        List<BucketHeat> buckets = new ArrayList<>(nb);
        for (int i = 0; i < nb; i++) {
            buckets.add(readBucket(in));
        }
        int nc = in.readInt();
        List<NodeCapacity> caps = new ArrayList<>(nc);
        for (int i = 0; i < nc; i++) {
            caps.add(readCapacity(in));
        }
        return new PartialHeat(cluster, max, buckets, caps);
    }

    private static void writeBucket(DataOutputStream out, BucketHeat h) throws IOException {
        out.writeLong(h.bucket());
        out.writeInt(h.nodes().length);
        for (int i = 0; i < h.nodes().length; i++) {
            out.writeUTF(h.nodes()[i]);
            out.writeLong(h.nodeBytes()[i]);
        }
        out.writeInt(h.slots().length);
        for (int i = 0; i < h.slots().length; i++) {
            out.writeInt(h.slots()[i]);
            out.writeLong(h.slotBytes()[i]);
        }
    }

    private static BucketHeat readBucket(DataInputStream in) throws IOException {
        long bucket = in.readLong();
        int n = in.readInt();
        String[] nodes = new String[n];
        long[] nodeBytes = new long[n];
        for (int i = 0; i < n; i++) {
            nodes[i] = in.readUTF();
            nodeBytes[i] = in.readLong();
        }
        int s = in.readInt();
        int[] slots = new int[s];
        long[] slotBytes = new long[s];
        for (int i = 0; i < s; i++) {
            slots[i] = in.readInt();
            slotBytes[i] = in.readLong();
        }
        return new BucketHeat(bucket, nodes, nodeBytes, slots, slotBytes);
    }

    private static void writeCapacity(DataOutputStream out, NodeCapacity c) throws IOException {
        out.writeUTF(c.node());
        out.writeLong(c.usedBytes());
        out.writeLong(c.totalBytes());
        out.writeBoolean(c.rack() != null);
        if (c.rack() != null) {
            out.writeUTF(c.rack());
        }
        out.writeInt(c.shardSlots().length);
        for (int i = 0; i < c.shardSlots().length; i++) {
            out.writeInt(c.shardSlots()[i]);
            out.writeLong(c.shardUsedBytes()[i]);
        }
        out.writeLong(c.eventTime());
    }

    private static NodeCapacity readCapacity(DataInputStream in) throws IOException {
        String node = in.readUTF();
        long used = in.readLong();
        long total = in.readLong();
        String rack = in.readBoolean() ? in.readUTF() : null;
        int n = in.readInt();
        int[] slots = new int[n];
        long[] bytes = new long[n];
        for (int i = 0; i < n; i++) {
            slots[i] = in.readInt();
            bytes[i] = in.readLong();
        }
        return new NodeCapacity(node, used, total, rack, slots, bytes, in.readLong());
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private interface Reader<T> {
        T read(DataInputStream in) throws IOException;
    }

    // what the writers below write, ids counted at two bytes a char (their modified UTF-8 is at most three)
    private static int sizeOf(PartialHeat p) {
        int size = 16 + 2 * p.cluster().length();
        for (BucketHeat h : p.buckets()) {
            size += sizeOf(h);
        }
        for (NodeCapacity c : p.capacities()) {
            size += sizeOf(c);
        }
        return size;
    }

    private static int sizeOf(BucketHeat h) {
        int size = 16 + 12 * h.slots().length;
        for (String node : h.nodes()) {
            size += 10 + 2 * node.length();
        }
        return size;
    }

    private static int sizeOf(NodeCapacity c) {
        return 40 + 2 * c.node().length() + (c.rack() == null ? 0 : 2 * c.rack().length()) + 12 * c.shardSlots().length;
    }

    /** The bytes {@code w} writes after the version byte; {@code expectedSize} sizes the buffer (it grows if short). */
    private static byte[] encode(int expectedSize, Writer w) {
        try {
            ByteSink bytes = new ByteSink(expectedSize + 1); // no lock per write, as ByteArrayOutputStream takes
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(VERSION);
            w.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static <T> T decode(byte[] b, Reader<T> r) {
        try {
            DataInputStream in = new DataInputStream(new ByteSource(b));
            byte version = in.readByte();
            if (version != VERSION) {
                throw new IllegalStateException("unknown detector state version " + version);
            }
            return r.read(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
