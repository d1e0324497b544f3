package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.WriteEvent;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every kind of bad bytes fails with a SerializationException that names the topic and the problem. */
class SchemaRegistryDeserializerBadInputTest {

  private static final String TOPIC = "skew.node-writes";

  private final String scope = "bad-input-" + UUID.randomUUID();
  private final Map<String, Object> config = Map.of(SchemaRegistrySerdeConfig.URL, "mock://" + scope);
  private final SchemaRegistrySerde<WriteEvent> serde = SchemaRegistrySerde.of(WriteEvent.class, config, false);

  @AfterEach
  void dropScope() {
    serde.close();
    MockSchemaRegistry.drop(scope);
  }

  private byte[] valid() {
    return serde.serializer().serialize(TOPIC, SampleRecords.writeEvent());
  }

  private WriteEvent read(byte[] bytes) {
    return serde.deserializer().deserialize(TOPIC, bytes);
  }

  @Test
  void wrongMagicByteIsRejectedWithTheByteAndTheTopic() {
    byte[] bytes = valid();
    bytes[0] = 7;
    assertThatThrownBy(() -> read(bytes))
        .isInstanceOf(SerializationException.class)
        .hasMessage("skew.node-writes: unknown magic byte 7 (expected 0)");
  }

  @Test
  void magicByteAbove127IsReportedUnsigned() {
    byte[] bytes = valid();
    bytes[0] = (byte) 0xff;
    assertThatThrownBy(() -> read(bytes)).hasMessageContaining("unknown magic byte 255");
  }

  @Test
  void unknownSchemaIdIsRejectedWithTheId() {
    byte[] bytes = valid();
    ByteBuffer.wrap(bytes).putInt(1, 4242);
    assertThatThrownBy(() -> read(bytes))
        .isInstanceOf(SerializationException.class)
        .hasMessageStartingWith("unknown-schema: skew.node-writes: schema id 4242 not found");
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3, 4})
  void recordShorterThanTheHeaderIsRejected(int length) {
    byte[] bytes = Arrays.copyOf(valid(), length);
    assertThatThrownBy(() -> read(bytes))
        .isInstanceOf(SerializationException.class)
        .hasMessage("skew.node-writes: truncated record: " + length
            + " bytes, the wire-format header alone needs 5");
  }

  @Test
  void everyStrictPrefixOfAValidRecordIsRejectedAsTruncated() {
    byte[] whole = valid();
    for (int length = 5; length < whole.length; length++) {
      byte[] prefix = Arrays.copyOf(whole, length);
      assertThatThrownBy(() -> read(prefix))
          .as("prefix of %d of %d bytes", length, whole.length)
          .isInstanceOf(SerializationException.class)
          .hasMessageStartingWith("skew.node-writes: truncated Avro body");
    }
  }

  @Test
  void everyStrictPrefixOfARecordWithStringsAndArraysIsRejected() {
    var capacity = SchemaRegistrySerde.of(CapacityEvent.class, config, false);
    byte[] whole = capacity.serializer().serialize("skew.node-capacity", SampleRecords.capacityFull());
    for (int length = 0; length < whole.length; length++) {
      byte[] prefix = Arrays.copyOf(whole, length);
      assertThatThrownBy(() -> capacity.deserializer().deserialize("skew.node-capacity", prefix))
          .as("prefix of %d of %d bytes", length, whole.length)
          .isInstanceOf(SerializationException.class)
          .hasMessageStartingWith("skew.node-capacity: truncated");
    }
  }

  @Test
  void trailingBytesAfterTheRecordAreRejected() {
    byte[] whole = valid();
    byte[] longer = Arrays.copyOf(whole, whole.length + 3);
    assertThatThrownBy(() -> read(longer))
        .isInstanceOf(SerializationException.class)
        .hasMessageStartingWith("skew.node-writes: 3 trailing bytes after the record of schema id 1");
  }

  @Test
  void hugeStringLengthIsRejectedWithoutAllocatingIt() {
    // header of id 1, then the zig-zag varint of 1_000_000_000 as the length of "cluster"
    byte[] header = Arrays.copyOf(valid(), 5);
    byte[] body = {(byte) 0x80, (byte) 0xa8, (byte) 0xd6, (byte) 0xb9, 0x07, 'x'};
    byte[] bytes = ByteBuffer.allocate(header.length + body.length).put(header).put(body).array();
    assertThatThrownBy(() -> read(bytes))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("skew.node-writes: truncated Avro body")
        .hasMessageContaining("string length 1000000000 exceeds the 6-byte body");
  }

  @Test
  void hugeArrayLengthIsRejectedWithoutAllocatingIt() {
    var capacity = SchemaRegistrySerde.of(CapacityEvent.class, config, false);
    CapacityEvent sparse = SampleRecords.capacitySparse();
    byte[] valid = capacity.serializer().serialize("skew.node-capacity", sparse);
    // the sparse sample ends with: rack = null (index 0), shards = empty (0), eventTime; rewrite the
    // shards block count to 2^30 items
    int eventTimeLength = zigZagVarintLength(sparse.getEventTime().toEpochMilli());
    int countAt = valid.length - eventTimeLength - 1;
    assertThat(valid[countAt]).isEqualTo((byte) 0);
    byte[] count = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08};
    byte[] bytes = ByteBuffer.allocate(valid.length + count.length - 1)
        .put(valid, 0, countAt).put(count).put(valid, countAt + 1, eventTimeLength).array();
    assertThatThrownBy(() -> capacity.deserializer().deserialize("skew.node-capacity", bytes))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("skew.node-capacity: truncated Avro body")
        .hasMessageContaining("array block of 1073741824 items exceeds");
  }

  @Test
  void unionIndexOutOfRangeIsRejectedAsMalformed() {
    var capacity = SchemaRegistrySerde.of(CapacityEvent.class, config, false);
    CapacityEvent sparse = SampleRecords.capacitySparse();
    byte[] bytes = capacity.serializer().serialize("skew.node-capacity", sparse);
    int eventTimeLength = zigZagVarintLength(sparse.getEventTime().toEpochMilli());
    int rackIndexAt = bytes.length - eventTimeLength - 2;
    assertThat(bytes[rackIndexAt]).isEqualTo((byte) 0);
    bytes[rackIndexAt] = 0x0a; // union branch 5 of a two-branch union
    assertThatThrownBy(() -> capacity.deserializer().deserialize("skew.node-capacity", bytes))
        .isInstanceOf(SerializationException.class)
        .hasMessageStartingWith("skew.node-capacity: malformed Avro body for schema id");
  }

  @Test
  void unconfiguredDeserializerSaysSo() {
    var unconfigured = new SchemaRegistryDeserializer<>(WriteEvent.class);
    assertThatThrownBy(() -> unconfigured.deserialize(TOPIC, valid()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("not configured");
  }

  @Test
  void recordMissingARequiredFieldCannotBeSerialized() {
    WriteEvent incomplete = new WriteEvent();
    assertThatThrownBy(() -> serde.serializer().serialize(TOPIC, incomplete))
        .isInstanceOf(SerializationException.class)
        .hasMessageStartingWith("skew.node-writes: cannot encode WriteEvent");
  }

  private static int zigZagVarintLength(long value) {
    long zigZag = (value << 1) ^ (value >> 63);
    int length = 1;
    while ((zigZag & ~0x7fL) != 0) {
      zigZag >>>= 7;
      length++;
    }
    return length;
  }
}
