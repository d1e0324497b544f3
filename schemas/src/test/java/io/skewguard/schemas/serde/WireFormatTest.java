package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.WriteEvent;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class WireFormatTest {

  private final String scope = "wire-" + UUID.randomUUID();

  @AfterEach
  void dropScope() {
    MockSchemaRegistry.drop(scope);
  }

  /** A registry that gives every schema one chosen id, so the header bytes can be predicted. */
  private record FixedIdRegistry(int id, Map<Integer, Schema> schemas) implements SchemaRegistryClient {
    FixedIdRegistry(int id) {
      this(id, new HashMap<>());
    }

    @Override
    public int register(String subject, Schema schema) {
      schemas.put(id, schema);
      return id;
    }

    @Override
    public Schema getById(int wanted) {
      return schemas.get(wanted);
    }

    @Override
    public RegisteredSchema latest(String subject) {
      throw new UnsupportedOperationException();
    }
  }

  private static byte[] serializeWithId(int id) {
    SchemaRegistrySerializer<WriteEvent> serializer = new SchemaRegistrySerializer<>(WriteEvent.class);
    SchemaRegistrySerdeConfig config = SchemaRegistrySerdeConfig.parse(Map.of(SchemaRegistrySerdeConfig.URL, "mock://unused"));
    serializer.configure(config, new FixedIdRegistry(id), true, false);
    return serializer.serialize("skew.node-writes", SampleRecords.writeEvent());
  }

  @Test
  void headerIsMagicZeroThenTheSchemaIdBigEndian() {
    assertThat(Arrays.copyOf(serializeWithId(258), 5)).containsExactly(0x00, 0x00, 0x00, 0x01, 0x02);
    assertThat(Arrays.copyOf(serializeWithId(0x7f_a1_b2_c3), 5))
        .containsExactly(0x00, 0x7f, 0xa1, 0xb2, 0xc3);
  }

  @Test
  void bodyAfterTheHeaderIsThePlainAvroBinaryEncoding() throws Exception {
    byte[] bytes = serializeWithId(258);
    var out = new java.io.ByteArrayOutputStream();
    var encoder = org.apache.avro.io.EncoderFactory.get().binaryEncoder(out, null);
    new org.apache.avro.specific.SpecificDatumWriter<>(WriteEvent.class).write(SampleRecords.writeEvent(), encoder);
    encoder.flush();
    assertThat(Arrays.copyOfRange(bytes, 5, bytes.length)).containsExactly(out.toByteArray());
  }

  @Test
  void firstSchemaOfAMockScopeGetsIdOneInTheHeader() {
    var serde = SchemaRegistrySerde.of(WriteEvent.class, Map.of(SchemaRegistrySerdeConfig.URL, "mock://" + scope), false);
    byte[] bytes = serde.serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    assertThat(Arrays.copyOf(bytes, 5)).containsExactly(0, 0, 0, 0, 1);
  }

  @Test
  void valueSerdeUsesTopicValueSubjectAndKeySerdeUsesTopicKeySubject() {
    Map<String, Object> config = Map.of(SchemaRegistrySerdeConfig.URL, "mock://" + scope);
    SchemaRegistrySerde.of(WriteEvent.class, config, false).serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    SchemaRegistrySerde.of(WriteEvent.class, config, true).serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    assertThat(MockSchemaRegistry.scope(scope).subjects())
        .isEqualTo(List.of("skew.node-writes-key", "skew.node-writes-value"));
  }
}
