package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.WriteEvent;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

class DirectCodersTest {

  private static final String[] IDS = {"c1", "node-007", "", "rack-é", "节点-3", "a".repeat(300), "n\u0000x"};

  private static String id(SplittableRandom random) {
    return random.nextInt(4) == 0 ? "id-" + random.nextInt(100_000) : IDS[random.nextInt(IDS.length)];
  }

  /** Longs of every varint length: the extremes, small ones, powers of two (a length's edges), any. */
  static long anyLong(SplittableRandom random) {
    return switch (random.nextInt(6)) {
      case 0 -> Long.MIN_VALUE;
      case 1 -> Long.MAX_VALUE;
      case 2 -> random.nextLong(-200, 200);
      case 3 -> -1L << random.nextInt(64);
      case 4 -> 1L << random.nextInt(63);
      default -> random.nextLong();
    };
  }

  private static WriteEvent writeEvent(SplittableRandom random) {
    return new WriteEvent(id(random), id(random), random.nextInt(), anyLong(random), anyLong(random),
        Instant.ofEpochMilli(random.nextLong(-1L << 40, 1L << 42)));
  }

  private static CapacityEvent capacityEvent(SplittableRandom random) {
    List<ShardUsage> shards = new ArrayList<>();
    int n = random.nextInt(4) == 0 ? 0 : random.nextInt(300);
    for (int i = 0; i < n; i++) {
      shards.add(new ShardUsage(random.nextInt(), anyLong(random)));
    }
    return new CapacityEvent(id(random), id(random), anyLong(random), anyLong(random),
        random.nextBoolean() ? null : id(random), shards, Instant.ofEpochMilli(random.nextLong(0, 1L << 42)));
  }

  private static <T> byte[] encode(DatumWriter<T> writer, T record) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
    writer.write(record, encoder);
    encoder.flush();
    return out.toByteArray();
  }

  /** Decoded by Avro's decoder and by ours (the deserializer's, which reads ids where they lie): both the same. */
  private static <T> T decode(DatumReader<T> reader, byte[] bytes) throws IOException {
    T avros = reader.read(null, DecoderFactory.get().binaryDecoder(bytes, null));
    T ours = reader.read(null, BoundedDecoder.over(bytes, 0, bytes.length));
    assertThat(ours).isEqualTo(avros);
    return ours;
  }

  private static <T> void sameAsAvro(Class<T> type, T record) throws IOException {
    var schema = SpecificData.getForClass(type).getSchema(type);
    byte[] avro = encode(new SpecificDatumWriter<T>(schema, SpecificData.getForClass(type)), record);
    byte[] direct = encode(DirectCoders.writerFor(type), record);
    assertThat(direct).as("bytes of %s", record).isEqualTo(avro);
    T read = decode(DirectCoders.readerFor(type, schema), avro);
    assertThat(read).isEqualTo(decode(new SpecificDatumReader<T>(schema, schema, SpecificData.getForClass(type)), avro));
    assertThat(read).isEqualTo(record);
  }

  @Test
  void writeEventsEncodeToAvrosBytesAndDecodeToAvrosRecords() throws IOException {
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 20_000; i++) {
      sameAsAvro(WriteEvent.class, writeEvent(random));
    }
  }

  @Test
  void capacityEventsEncodeToAvrosBytesAndDecodeToAvrosRecords() throws IOException {
    SplittableRandom random = new SplittableRandom(4);
    for (int i = 0; i < 3_000; i++) {
      sameAsAvro(CapacityEvent.class, capacityEvent(random));
    }
  }

  @Test
  void shardsWrittenInSeveralBlocksAreReadWhole() throws IOException {
    // a writer may split an array into blocks (Avro's blocking encoder does): the reader takes every block
    SplittableRandom random = new SplittableRandom(5);
    var schema = CapacityEvent.getClassSchema();
    for (int i = 0; i < 200; i++) {
      CapacityEvent record = capacityEvent(random);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      BinaryEncoder blocking = new EncoderFactory().configureBlockSize(64).blockingBinaryEncoder(out, null);
      new SpecificDatumWriter<CapacityEvent>(schema, SpecificData.getForClass(CapacityEvent.class)).write(record, blocking);
      blocking.flush();
      assertThat(decode(DirectCoders.readerFor(CapacityEvent.class, schema), out.toByteArray())).isEqualTo(record);
    }
  }

  @Test
  void idsReadTwiceAreTheSameStringAndAnIdOverTheLimitIsStillReadExactly() throws IOException {
    var reader = DirectCoders.readerFor(WriteEvent.class, WriteEvent.getClassSchema());
    var writer = DirectCoders.writerFor(WriteEvent.class);
    WriteEvent event = new WriteEvent("cluster-1", "node-1", 1, 2L, 3L, Instant.EPOCH);
    WriteEvent first = decode(reader, encode(writer, event));
    WriteEvent second = decode(reader, encode(writer, event));
    assertThat(second.getNode()).isSameAs(first.getNode());
    assertThat(second.getCluster()).isSameAs(first.getCluster());
    String longId = "x".repeat(DirectCoders.MAX_CACHED_ID_BYTES + 1);
    WriteEvent longOne = new WriteEvent("cluster-1", longId, 1, 2L, 3L, Instant.EPOCH);
    assertThat(decode(reader, encode(writer, longOne)).getNode()).isEqualTo(longId);
  }

  @Test
  void aNullInARequiredFieldIsRefusedNamingTheField() {
    WriteEvent noNode = new WriteEvent("c1", "n1", 1, 2L, 3L, Instant.EPOCH);
    noNode.setNode(null);
    assertThatThrownBy(() -> encode(DirectCoders.writerFor(WriteEvent.class), noNode))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("WriteEvent.node");
    CapacityEvent noShards = new CapacityEvent("c1", "n1", 1L, 2L, null, List.of(), Instant.EPOCH);
    noShards.setShards(null);
    assertThatThrownBy(() -> encode(DirectCoders.writerFor(CapacityEvent.class), noShards))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("CapacityEvent.shards");
  }

  @Test
  void onlyTheClassesOwnSchemaGetsADirectReader() throws IOException {
    var v2 = new org.apache.avro.Schema.Parser().parse(
        DirectCodersTest.class.getResourceAsStream("/evolution/WriteEvent-v2.avsc"));
    assertThat(DirectCoders.readerFor(WriteEvent.class, v2)).isNull();
    assertThat(DirectCoders.readerFor(WriteEvent.class, WriteEvent.getClassSchema())).isNotNull();
    assertThat(DirectCoders.readerFor(CapacityEvent.class, WriteEvent.getClassSchema())).isNull();
    assertThat(DirectCoders.writerFor(ShardUsage.class)).isNull();
  }
}
