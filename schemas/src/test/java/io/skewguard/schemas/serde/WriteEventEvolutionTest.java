package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.WriteEvent;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * WriteEvent moves to a version 2 with one optional field (src/test/resources/evolution): both
 * versions stay readable in both directions through the serde, whichever side moves first, and a
 * change that would break readers is refused by the registry, in-process and over HTTP.
 */
class WriteEventEvolutionTest {

  private static final String TOPIC = "skew.node-writes";
  private static final String SUBJECT = "skew.node-writes-value";
  private static final Schema V1 = WriteEvent.getClassSchema();
  private static final Schema V2 = load("/evolution/WriteEvent-v2.avsc");

  private final String scope = "write-event-evolution-" + UUID.randomUUID();
  private final Map<String, Object> config = Map.of(SchemaRegistrySerdeConfig.URL, "mock://" + scope);

  @AfterEach
  void dropScope() {
    MockSchemaRegistry.drop(scope);
  }

  @Test
  void version2IsBothBackwardAndForwardCompatibleWithVersion1() {
    assertThat(SchemaCompatibility.checkReaderWriterCompatibility(V2, V1).getType())
        .as("BACKWARD: a v2 reader reads v1 data").isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
    assertThat(SchemaCompatibility.checkReaderWriterCompatibility(V1, V2).getType())
        .as("FORWARD: a v1 reader reads v2 data").isEqualTo(SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE);
  }

  @Test
  void aVersion1ConsumerReadsWhatAVersion2ProducerWroteWithoutTheNewField() {
    SchemaRegistrySerde.of(WriteEvent.class, config, false).serializer().serialize(TOPIC, SampleRecords.writeEvent());
    byte[] bytes = v2Serializer().serialize(TOPIC, v2Record("tenant-7"));

    WriteEvent read = SchemaRegistrySerde.of(WriteEvent.class, config, false).deserializer().deserialize(TOPIC, bytes);

    assertThat(read).isEqualTo(SampleRecords.writeEvent());
    assertThat(MockSchemaRegistry.scope(scope).latest(SUBJECT).version())
        .as("v2 registered as the subject's second version").isEqualTo(2);
  }

  @Test
  void oneReadingReadsVersion1AndVersion2RecordsInTurnEachAsWritten() {
    var serde = SchemaRegistrySerde.of(WriteEvent.class, config, false);
    byte[] v1 = serde.serializer().serialize(TOPIC, SampleRecords.writeEvent());
    GenericRecord other = v2Record("tenant-7");
    other.put("node", "node-other");
    other.put("bytes", 77L);
    byte[] v2 = v2Serializer().serialize(TOPIC, other);
    var deserializer = (SchemaRegistryDeserializer<WriteEvent>) serde.deserializer();
    var reading = deserializer.reading();

    for (int i = 0; i < 3; i++) { // the wire format's own reader and Avro's resolving one fill the same record in turn
      assertThat(deserializer.deserialize(TOPIC, v1, reading)).isEqualTo(SampleRecords.writeEvent());
      WriteEvent read = deserializer.deserialize(TOPIC, v2, reading);
      assertThat(read.getNode()).isEqualTo("node-other");
      assertThat(read.getBytes()).isEqualTo(77L);
      assertThat(read.getCluster()).isEqualTo(SampleRecords.writeEvent().getCluster());
    }
  }

  @Test
  void aVersion2ConsumerReadsWhatAVersion1ProducerWroteWithTheNewFieldsDefault() {
    byte[] bytes = SchemaRegistrySerde.of(WriteEvent.class, config, false).serializer()
        .serialize(TOPIC, SampleRecords.writeEvent());

    GenericRecord read = v2Deserializer().deserialize(TOPIC, bytes);

    assertThat(read.getSchema()).isEqualTo(V2);
    assertThat(read.get("tenant")).isNull();
    assertThat(read.get("node")).isEqualTo(SampleRecords.writeEvent().getNode());
    assertThat(read.get("bytes")).isEqualTo(SampleRecords.writeEvent().getBytes());
  }

  @Test
  void aVersion2ConsumerReadsVersion2RecordsWithTheNewField() {
    byte[] bytes = v2Serializer().serialize(TOPIC, v2Record("tenant-7"));
    assertThat(v2Deserializer().deserialize(TOPIC, bytes).get("tenant")).isEqualTo("tenant-7");
  }

  @Test
  void theInProcessRegistryRefusesAVersionThatCannotReadTheEarlierData() {
    MockSchemaRegistry.scope(scope).register(SUBJECT, V1);
    assertThatThrownBy(() -> MockSchemaRegistry.scope(scope).register(SUBJECT, requiredTenant()))
        .isInstanceOfSatisfying(SchemaRegistryException.class, e -> assertThat(e.isIncompatible()).isTrue())
        .hasMessageContaining("subject " + SUBJECT)
        .hasMessageContaining("not BACKWARD compatible")
        .hasMessageContaining("tenant");
  }

  @Test
  void anHttpRegistrysRefusalOfAnIncompatibleVersionReachesTheProducerAsAClearError() throws IOException {
    try (FakeConfluentRegistry http = new FakeConfluentRegistry()) {
      Map<String, Object> overHttp = new HashMap<>();
      overHttp.put(SchemaRegistrySerdeConfig.URL, http.url());
      SchemaRegistrySerde.of(WriteEvent.class, overHttp, false).serializer().serialize(TOPIC, SampleRecords.writeEvent());
      SchemaRegistrySerializer<GenericRecord> incompatible = new SchemaRegistrySerializer<>();
      incompatible.configure(overHttp, false);
      GenericRecord record = v2Record("tenant-7");
      GenericRecord breaking = new GenericData.Record(requiredTenant());
      V2.getFields().forEach(f -> breaking.put(f.name(), record.get(f.name())));

      assertThatThrownBy(() -> incompatible.serialize(TOPIC, breaking))
          .isInstanceOf(SerializationException.class)
          .isNotInstanceOf(RegistryUnavailableException.class)
          .hasMessageStartingWith(TOPIC + ": cannot register the schema of WriteEvent under subject " + SUBJECT
              + " (incompatible with the subject's earlier versions)")
          .hasMessageContaining("HTTP 409 error_code 409")
          .cause().isInstanceOfSatisfying(SchemaRegistryException.class, e -> assertThat(e.isIncompatible()).isTrue());

      SchemaRegistrySerializer<GenericRecord> compatible = new SchemaRegistrySerializer<>();
      compatible.configure(overHttp, false);
      byte[] bytes = compatible.serialize(TOPIC, v2Record("tenant-7"));
      assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).as("v2 got an id of its own").isNotEqualTo(100);
    }
  }

  private SchemaRegistrySerializer<GenericRecord> v2Serializer() {
    SchemaRegistrySerializer<GenericRecord> serializer = new SchemaRegistrySerializer<>();
    serializer.configure(config, false);
    return serializer;
  }

  private SchemaRegistryDeserializer<GenericRecord> v2Deserializer() {
    SchemaRegistryDeserializer<GenericRecord> deserializer = SchemaRegistryDeserializer.readingAs(V2);
    deserializer.configure(config, false);
    return deserializer;
  }

  private static GenericRecord v2Record(String tenant) {
    WriteEvent v1 = SampleRecords.writeEvent();
    GenericRecord record = new GenericData.Record(V2);
    record.put("cluster", v1.getCluster());
    record.put("node", v1.getNode());
    record.put("slot", v1.getSlot());
    record.put("bytes", v1.getBytes());
    record.put("ops", v1.getOps());
    record.put("eventTime", v1.getEventTime().toEpochMilli());
    record.put("tenant", tenant);
    return record;
  }

  /** v2 with the new field required: a v2 reader could not read v1 data, which lacks it. */
  private static Schema requiredTenant() {
    String text = V2.toString().replace(
        "{\"name\":\"tenant\",\"type\":[\"null\",{\"type\":\"string\",\"avro.java.string\":\"String\"}],",
        "{\"name\":\"tenant\",\"type\":{\"type\":\"string\",\"avro.java.string\":\"String\"},");
    text = text.replace(",\"default\":null}]", "}]");
    Schema schema = new Schema.Parser().parse(text);
    if (schema.getField("tenant").hasDefaultValue()) {
      throw new AssertionError("the incompatible variant must have no default: " + schema);
    }
    return schema;
  }

  private static Schema load(String resource) {
    try (InputStream in = WriteEventEvolutionTest.class.getResourceAsStream(resource)) {
      return new Schema.Parser().parse(in);
    } catch (IOException | NullPointerException e) {
      throw new AssertionError("cannot read " + resource, e);
    }
  }
}
