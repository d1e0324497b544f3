package io.skewguard.benchmarks;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The nodes' two records through schemas' wire-format serde ({@code SchemaRegistrySerde}: its
 * hand-written coders, written into the record's array) against Avro's own coders of the same
 * records in the same run ({@code avro*}: {@code SpecificDatumWriter} through Avro's direct binary
 * encoder into a {@code ByteArrayOutputStream}, {@code SpecificDatumReader} through a binary decoder
 * of the body; no wire-format header, no registry). A write event per slot and step is what a
 * node sends most; a capacity report carries 43 shards (a node's share of 256 slots × 8 candidates
 * over 48 nodes).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class SerdeBenchmark {

    private static final String TOPIC = "skewguard.node.writes";
    private static final String CAPACITY_TOPIC = "skewguard.node.capacity";
    private static final int NODES = 48;

    private SchemaRegistrySerde<WriteEvent> writes;
    private SchemaRegistrySerde<CapacityEvent> capacities;
    private final SpecificDatumWriter<WriteEvent> avroWriteWriter =
            new SpecificDatumWriter<>(WriteEvent.getClassSchema(), SpecificData.getForClass(WriteEvent.class));
    private final SpecificDatumReader<WriteEvent> avroWriteReader = new SpecificDatumReader<>(
            WriteEvent.getClassSchema(), WriteEvent.getClassSchema(), SpecificData.getForClass(WriteEvent.class));
    private final SpecificDatumWriter<CapacityEvent> avroCapacityWriter =
            new SpecificDatumWriter<>(CapacityEvent.getClassSchema(), SpecificData.getForClass(CapacityEvent.class));
    private final SpecificDatumReader<CapacityEvent> avroCapacityReader = new SpecificDatumReader<>(
            CapacityEvent.getClassSchema(), CapacityEvent.getClassSchema(), SpecificData.getForClass(CapacityEvent.class));

    private WriteEvent[] writeEvents;
    private byte[][] writeRecords;
    private byte[][] writeBodies;
    private CapacityEvent capacity;
    private byte[] capacityRecord;
    private byte[] capacityBody;
    private int next;

    @Setup
    public void setUp() throws IOException {
        Map<String, Object> config = Map.of("schema.registry.url", "mock://serde-bench", "auto.register.schemas", true);
        writes = SchemaRegistrySerde.of(WriteEvent.class, config, false);
        capacities = SchemaRegistrySerde.of(CapacityEvent.class, config, false);
        String[] nodes = new String[NODES];
        for (int n = 0; n < NODES; n++) {
            nodes[n] = "node-" + (n + 1);
        }
        writeEvents = new WriteEvent[1024];
        writeRecords = new byte[writeEvents.length][];
        writeBodies = new byte[writeEvents.length][];
        long time = 1_780_000_000_000L;
        for (int i = 0; i < writeEvents.length; i++) {
            writeEvents[i] = new WriteEvent("c1", nodes[(i * 7) % NODES], i % 256, 1_000_000L + 37L * i, 1L,
                    Instant.ofEpochMilli(time + 120_000L * (i / 256)));
            writeRecords[i] = writes.serializer().serialize(TOPIC, writeEvents[i]);
            writeBodies[i] = avroBody(avroWriteWriter, writeEvents[i]);
        }
        List<ShardUsage> shards = new ArrayList<>();
        for (int s = 0; s < 43; s++) {
            shards.add(new ShardUsage(s * 6, 500_000_000_000L + 1_000_003L * s));
        }
        capacity = new CapacityEvent("c1", "node-7", 40_000_000_000_000L, 100_000_000_000_000L, "rack-3", shards,
                Instant.ofEpochMilli(time));
        capacityRecord = capacities.serializer().serialize(CAPACITY_TOPIC, capacity);
        capacityBody = avroBody(avroCapacityWriter, capacity);
    }

    private static <T> byte[] avroBody(SpecificDatumWriter<T> writer, T record) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(64);
        BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
        writer.write(record, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private int nextIndex() {
        next = (next + 1) & (writeEvents.length - 1);
        return next;
    }

    @Benchmark
    public byte[] serializeWrite() {
        return writes.serializer().serialize(TOPIC, writeEvents[nextIndex()]);
    }

    @Benchmark
    public byte[] avroSerializeWrite() throws IOException {
        return avroBody(avroWriteWriter, writeEvents[nextIndex()]);
    }

    @Benchmark
    public WriteEvent deserializeWrite() {
        return writes.deserializer().deserialize(TOPIC, writeRecords[nextIndex()]);
    }

    @Benchmark
    public WriteEvent avroDeserializeWrite() throws IOException {
        byte[] body = writeBodies[nextIndex()];
        BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(body, null);
        return avroWriteReader.read(null, decoder);
    }

    @Benchmark
    public byte[] serializeCapacity() {
        return capacities.serializer().serialize(CAPACITY_TOPIC, capacity);
    }

    @Benchmark
    public byte[] avroSerializeCapacity() throws IOException {
        return avroBody(avroCapacityWriter, capacity);
    }

    @Benchmark
    public CapacityEvent deserializeCapacity() {
        return capacities.deserializer().deserialize(CAPACITY_TOPIC, capacityRecord);
    }

    @Benchmark
    public CapacityEvent avroDeserializeCapacity() throws IOException {
        return avroCapacityReader.read(null, DecoderFactory.get().binaryDecoder(capacityBody, null));
    }
}
