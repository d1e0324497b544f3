package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Records written with an older or newer compatible schema read into the current classes. */
class SchemaEvolutionTest {

  private final String scope = "evolution-" + UUID.randomUUID();
  private final Map<String, Object> config = Map.of(SchemaRegistrySerdeConfig.URL, "mock://" + scope);
  private final MockSchemaRegistry registry = MockSchemaRegistry.scope(scope);

  @AfterEach
  void dropScope() {
    MockSchemaRegistry.drop(scope);
  }

  @Test
  void recordFromAWriterWithoutDefaultedFieldsReadsWithTheDefaults() throws Exception {
    Schema old = without(MigrationStatus.getClassSchema(), Set.of("bytesCopied", "message"));
    GenericRecord written = new GenericData.Record(old);
    written.put("cluster", "eu-1");
    written.put("migrationId", "m-1");
    written.put("commandId", "m-1/COPY/node-02");
    written.put("node", "node-02");
    written.put("phase", new GenericData.EnumSymbol(old.getField("phase").schema(), "COPY"));
    written.put("outcome", new GenericData.EnumSymbol(old.getField("outcome").schema(), "DONE"));
    written.put("eventTime", SampleRecords.T0.toEpochMilli());

    byte[] bytes = frame(registry.register("skew.migration-status-value", old), old, written);
    MigrationStatus read = SchemaRegistrySerde.of(MigrationStatus.class, config, false)
        .deserializer().deserialize("skew.migration-status", bytes);

    assertThat(read.getBytesCopied()).isZero();
    assertThat(read.getMessage()).isNull();
    assertThat(read.getPhase()).isEqualTo(MigrationPhase.COPY);
    assertThat(read.getOutcome()).isEqualTo(StepResult.DONE);
    assertThat(read.getEventTime()).isEqualTo(SampleRecords.T0);
  }

  @Test
  void olderCapacityEventWithoutRackAndShardsReadsWithNullRackAndNoShards() throws Exception {
    Schema old = without(CapacityEvent.getClassSchema(), Set.of("rack", "shards"));
    GenericRecord written = new GenericData.Record(old);
    written.put("cluster", "eu-1");
    written.put("node", "node-07");
    written.put("usedBytes", 10L);
    written.put("totalBytes", 100L);
    written.put("eventTime", SampleRecords.T0.toEpochMilli());

    byte[] bytes = frame(registry.register("skew.node-capacity-value", old), old, written);
    CapacityEvent read = SchemaRegistrySerde.of(CapacityEvent.class, config, false)
        .deserializer().deserialize("skew.node-capacity", bytes);

    assertThat(read.getRack()).isNull();
    assertThat(read.getShards()).isEmpty();
    assertThat(read.getUsedBytes()).isEqualTo(10L);
  }

  @Test
  void slotTableRowOfAWriterBeforeSpreadingReadsAsASlotThatIsNotSpread() throws Exception {
    Schema old = without(io.skewguard.schemas.SlotAssignment.getClassSchema(), Set.of("spread", "spreadHeld", "spreadReason"));
    GenericRecord written = new GenericData.Record(old);
    written.put("cluster", "eu-1");
    written.put("slot", 7);
    written.put("routingEpoch", 3L);
    written.put("candidates", java.util.List.of("node-01", "node-02"));
    written.put("readOnly", java.util.List.of());
    written.put("updatedAt", SampleRecords.T0.toEpochMilli());

    byte[] bytes = frame(registry.register("skew.slot-table-value", old), old, written);
    io.skewguard.schemas.SlotAssignment read = SchemaRegistrySerde.of(io.skewguard.schemas.SlotAssignment.class, config, false)
        .deserializer().deserialize("skew.slot-table", bytes);

    assertThat(read.getSpread()).isEmpty();
    assertThat(read.getSpreadHeld()).isEmpty();
    assertThat(read.getSpreadReason()).isNull();
    assertThat(read.getCandidates()).containsExactly("node-01", "node-02");
  }

  @Test
  void currentSchemaRegistersAsANewVersionAfterTheOlderOneBecauseItIsBackwardCompatible() {
    Schema old = without(CapacityEvent.getClassSchema(), Set.of("rack", "shards"));
    int oldId = registry.register("skew.node-capacity-value", old);
    var serde = SchemaRegistrySerde.of(CapacityEvent.class, config, false);
    byte[] bytes = serde.serializer().serialize("skew.node-capacity", SampleRecords.capacityFull());
    int newId = ByteBuffer.wrap(bytes, 1, 4).getInt();
    assertThat(newId).isNotEqualTo(oldId);
    assertThat(registry.latest("skew.node-capacity-value").version()).isEqualTo(2);
  }

  @Test
  void mockRegistryRefusesANewVersionThatCannotReadTheOldData() {
    Schema current = CapacityEvent.getClassSchema();
    registry.register("skew.node-capacity-value", current);
    Schema requiresAFieldOldDataLacks = withExtraRequiredLong(current, "reservedBytes");
    assertThatThrownBy(() -> registry.register("skew.node-capacity-value", requiresAFieldOldDataLacks))
        .isInstanceOfSatisfying(SchemaRegistryException.class,
            e -> assertThat(e.errorCode()).isEqualTo(SchemaRegistryException.INCOMPATIBLE_SCHEMA))
        .hasMessageContaining("not BACKWARD compatible");
  }

  @Test
  void writerWithAFieldTheReaderDoesNotKnowIsReadWithoutIt() throws Exception {
    Schema newer = withExtraRequiredLong(CapacityEvent.getClassSchema(), "reservedBytes");
    GenericRecord written = new GenericData.Record(newer);
    written.put("cluster", "eu-1");
    written.put("node", "node-07");
    written.put("usedBytes", 10L);
    written.put("totalBytes", 100L);
    written.put("rack", "r1");
    written.put("shards", new GenericData.Array<>(0, newer.getField("shards").schema()));
    written.put("eventTime", SampleRecords.T0.toEpochMilli());
    written.put("reservedBytes", 5L);

    byte[] bytes = frame(registry.register("other-subject", newer), newer, written);
    CapacityEvent read = SchemaRegistrySerde.of(CapacityEvent.class, config, false)
        .deserializer().deserialize("skew.node-capacity", bytes);
    assertThat(read.getRack()).isEqualTo("r1");
    assertThat(read.getTotalBytes()).isEqualTo(100L);
  }

  @Test
  void writerSchemaTheClassCannotReadIsRejectedNamingBoth() throws Exception {
    Schema unrelated = new Schema.Parser().parse(
        "{\"type\":\"record\",\"name\":\"CapacityEvent\",\"namespace\":\"io.skewguard.schemas\","
            + "\"fields\":[{\"name\":\"cluster\",\"type\":\"int\"}]}");
    GenericRecord written = new GenericData.Record(unrelated);
    written.put("cluster", 3);
    byte[] bytes = frame(registry.register("skew.node-capacity-value-x", unrelated), unrelated, written);
    assertThatThrownBy(() -> SchemaRegistrySerde.of(CapacityEvent.class, config, false)
            .deserializer().deserialize("skew.node-capacity", bytes))
        .isInstanceOf(SerializationException.class)
        .hasMessageStartingWith("skew.node-capacity: schema id")
        .hasMessageContaining("cannot be read as CapacityEvent");
  }

  private static byte[] frame(int id, Schema schema, GenericRecord record) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(ByteBuffer.allocate(5).put((byte) 0).putInt(id).array());
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<GenericRecord>(schema).write(record, encoder);
    encoder.flush();
    return out.toByteArray();
  }

  private static Schema without(Schema current, Set<String> fields) {
    try {
      ObjectMapper json = new ObjectMapper();
      ObjectNode tree = (ObjectNode) json.readTree(current.toString());
      ArrayNode kept = json.createArrayNode();
      tree.withArray("fields").forEach(f -> {
        if (!fields.contains(f.get("name").asText())) {
          kept.add(f);
        }
      });
      tree.set("fields", kept);
      return new Schema.Parser().parse(tree.toString());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static Schema withExtraRequiredLong(Schema current, String field) {
    try {
      ObjectMapper json = new ObjectMapper();
      ObjectNode tree = (ObjectNode) json.readTree(current.toString());
      tree.withArray("fields").addObject().put("name", field).put("type", "long");
      return new Schema.Parser().parse(tree.toString());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
