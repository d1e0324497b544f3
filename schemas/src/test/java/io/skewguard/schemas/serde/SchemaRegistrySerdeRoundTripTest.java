package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SchemaRegistrySerdeRoundTripTest {

  private final String scope = "round-trip-" + UUID.randomUUID();

  @AfterEach
  void dropScope() {
    MockSchemaRegistry.drop(scope);
  }

  static Stream<SpecificRecord> samples() {
    return SampleRecords.all().stream();
  }

  @ParameterizedTest(name = "{index}: {0}")
  @MethodSource("samples")
  void everyRecordTypeReadsBackEqualToWhatWasWritten(SpecificRecord sample) {
    roundTrip(sample);
  }

  @Test
  void samplesCoverEveryTopLevelSchemaFile() throws Exception {
    var classes = SampleRecords.all().stream().map(r -> r.getClass().getSimpleName()).distinct().sorted().toList();
    try (var files = java.nio.file.Files.list(java.nio.file.Path.of("src/main/avro"))) {
      var schemas = files.map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".avsc"))
          .map(n -> n.substring(0, n.length() - ".avsc".length()))
          .sorted()
          .toList();
      assertThat(classes).containsExactlyElementsOf(schemas);
    }
  }

  @Test
  void nullWritesNullAndNullReadsNullForTombstones() {
    var serde = SchemaRegistrySerde.of(io.skewguard.schemas.NodeWeight.class, config(), false);
    assertThat(serde.serializer().serialize("skew.node-weights", null)).isNull();
    assertThat(serde.deserializer().deserialize("skew.node-weights", null)).isNull();
  }

  @Test
  void recordsOfEverySizeOneAfterAnotherReadBackExactlyWhateverTheSerializerLearntOfTheLastOnes() {
    var serde = SchemaRegistrySerde.of(io.skewguard.schemas.CapacityEvent.class, config(), false);
    var small = SampleRecords.capacitySparse();
    var shards = new java.util.ArrayList<io.skewguard.schemas.ShardUsage>();
    for (int slot = 0; slot < 2_000; slot++) {
      shards.add(new io.skewguard.schemas.ShardUsage(slot, 1L << 40));
    }
    var large = io.skewguard.schemas.CapacityEvent.newBuilder(SampleRecords.capacityFull()).setShards(shards).build();
    var hugeShards = new java.util.ArrayList<io.skewguard.schemas.ShardUsage>();
    for (int slot = 0; slot < 20_000; slot++) {
      hugeShards.add(new io.skewguard.schemas.ShardUsage(slot, 1L << 50)); // past the 64 KB a thread's sink keeps
    }
    var huge = io.skewguard.schemas.CapacityEvent.newBuilder(SampleRecords.capacityFull()).setShards(hugeShards).build();
    // another serializer on the same thread shares its sink: its records in between must not mix with these
    var writes = SchemaRegistrySerde.of(io.skewguard.schemas.WriteEvent.class, config(), false);
    var write = new io.skewguard.schemas.WriteEvent("c1", "node-1", 7, 4096L, 1L, java.time.Instant.ofEpochMilli(1_000));
    for (var record : java.util.List.of(small, large, small, huge, small, large, huge, small)) {
      byte[] bytes = serde.serializer().serialize("skew.node-capacity", record);
      byte[] between = writes.serializer().serialize("skew.node-writes", write);
      assertThat(serde.deserializer().deserialize("skew.node-capacity", bytes)).isEqualTo(record);
      assertThat(writes.deserializer().deserialize("skew.node-writes", between)).isEqualTo(write);
    }
    byte[] once = serde.serializer().serialize("skew.node-capacity", small);
    assertThat(serde.serializer().serialize("skew.node-capacity", small)).isEqualTo(once);
  }

  @Test
  void writeEventsReadThroughOneReadingAreEachAsWrittenAndABadOneInBetweenChangesNothing() {
    var serde = SchemaRegistrySerde.of(io.skewguard.schemas.WriteEvent.class, config(), false);
    var deserializer = (SchemaRegistryDeserializer<io.skewguard.schemas.WriteEvent>) serde.deserializer();
    var reading = deserializer.reading();
    var random = new java.util.SplittableRandom(11);
    io.skewguard.schemas.WriteEvent previous = null;
    long time = 1_000;
    for (int i = 0; i < 2_000; i++) {
      time += random.nextInt(3) == 0 ? random.nextInt(1, 50) : 0; // many writes share a millisecond
      var written = new io.skewguard.schemas.WriteEvent("c" + random.nextInt(3), "node-" + random.nextInt(40),
          random.nextInt(4096), random.nextLong(1, 1 << 20), random.nextLong(1, 9), java.time.Instant.ofEpochMilli(time));
      byte[] bytes = serde.serializer().serialize("skew.node-writes", written);
      if (i % 97 == 5) {
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 3);
        org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> deserializer.deserialize("skew.node-writes", truncated, reading))
            .isInstanceOf(org.apache.kafka.common.errors.SerializationException.class)
            .hasMessageContaining("truncated Avro body");
      }
      var read = deserializer.deserialize("skew.node-writes", bytes, reading);
      assertThat(read).isEqualTo(written);
      assertThat(read.getEventTime().toEpochMilli()).isEqualTo(time);
      if (previous != null && i % 97 != 5) {
        assertThat(read).as("the record before, filled again").isSameAs(previous);
      }
      previous = read;
    }
    assertThat(deserializer.deserialize("skew.node-writes", null, reading)).isNull();
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private void roundTrip(SpecificRecord sample) {
    Class type = sample.getClass();
    try (SchemaRegistrySerde serde = SchemaRegistrySerde.of(type, config(), false)) {
      byte[] bytes = serde.serializer().serialize("skew.any", sample);
      Object back = serde.deserializer().deserialize("skew.any", bytes);
      assertThat(back).isInstanceOf(type).isEqualTo(sample);
    }
  }

  private Map<String, Object> config() {
    return Map.of(SchemaRegistrySerdeConfig.URL, "mock://" + scope);
  }
}
