package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.WriteEvent;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Ids are stable per schema and each schema costs one registry request per client. */
class RegistryCachingTest {

  private final String scope = "caching-" + UUID.randomUUID();
  private final Map<String, Object> config = Map.of(SchemaRegistrySerdeConfig.URL, "mock://" + scope);
  private final MockSchemaRegistry registry = MockSchemaRegistry.scope(scope);

  @AfterEach
  void dropScope() {
    MockSchemaRegistry.drop(scope);
  }

  private static int idOf(byte[] bytes) {
    return ByteBuffer.wrap(bytes, 1, 4).getInt();
  }

  @Test
  void manyRecordsRegisterTheSchemaOnce() {
    var producer = SchemaRegistrySerde.of(WriteEvent.class, config, false);
    for (int i = 0; i < 100; i++) {
      producer.serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    }
    assertThat(registry.requestCount()).isEqualTo(1);
  }

  @Test
  void manyRecordsFetchTheWriterSchemaOncePerConsumer() {
    byte[] bytes = SchemaRegistrySerde.of(WriteEvent.class, config, false)
        .serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    long afterProducer = registry.requestCount();
    var consumer = SchemaRegistrySerde.of(WriteEvent.class, config, false);
    for (int i = 0; i < 100; i++) {
      assertThat(consumer.deserializer().deserialize("skew.node-writes", bytes)).isEqualTo(SampleRecords.writeEvent());
    }
    assertThat(registry.requestCount() - afterProducer).isEqualTo(1);
  }

  @Test
  void sameSchemaInTheSameSubjectGetsTheSameIdFromIndependentClients() {
    byte[] first = SchemaRegistrySerde.of(WriteEvent.class, config, false)
        .serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    byte[] second = SchemaRegistrySerde.of(WriteEvent.class, config, false)
        .serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    assertThat(idOf(second)).isEqualTo(idOf(first));
    assertThat(registry.latest("skew.node-writes-value").version()).isEqualTo(1);
  }

  @Test
  void sameSchemaUnderAnotherSubjectKeepsItsIdLikeConfluent() {
    var serde = SchemaRegistrySerde.of(WriteEvent.class, config, false);
    byte[] a = serde.serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    byte[] b = serde.serializer().serialize("test.node-writes", SampleRecords.writeEvent());
    assertThat(idOf(b)).isEqualTo(idOf(a));
    assertThat(registry.subjects()).containsExactly("skew.node-writes-value", "test.node-writes-value");
  }

  @Test
  void differentSchemasGetDifferentIdsAndScopesAreApart() {
    var writes = SchemaRegistrySerde.of(WriteEvent.class, config, false);
    var capacity = SchemaRegistrySerde.of(io.skewguard.schemas.CapacityEvent.class, config, false);
    int writeId = idOf(writes.serializer().serialize("skew.node-writes", SampleRecords.writeEvent()));
    int capacityId = idOf(capacity.serializer().serialize("skew.node-capacity", SampleRecords.capacityFull()));
    assertThat(capacityId).isNotEqualTo(writeId);

    String otherScope = scope + "-other";
    try {
      var elsewhere = SchemaRegistrySerde.of(WriteEvent.class, Map.of(SchemaRegistrySerdeConfig.URL, "mock://" + otherScope), false);
      byte[] bytes = capacity.serializer().serialize("skew.node-capacity", SampleRecords.capacityFull());
      assertThatThrownBy(() -> elsewhere.deserializer().deserialize("skew.node-capacity", bytes))
          .isInstanceOf(SerializationException.class)
          .hasMessageContaining("schema id " + capacityId + " not found");
    } finally {
      MockSchemaRegistry.drop(otherScope);
    }
  }

  @Test
  void droppedScopeStartsEmpty() {
    SchemaRegistrySerde.of(WriteEvent.class, config, false).serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    MockSchemaRegistry.drop(scope);
    assertThat(MockSchemaRegistry.scope(scope).subjects()).isEmpty();
  }

  @Test
  void withoutAutoRegisterTheLatestVersionOfTheSubjectIsUsed() {
    Map<String, Object> noAutoRegister = Map.of(
        SchemaRegistrySerdeConfig.URL, "mock://" + scope,
        SchemaRegistrySerdeConfig.AUTO_REGISTER, "false");
    var strict = SchemaRegistrySerde.of(WriteEvent.class, noAutoRegister, false);
    assertThatThrownBy(() -> strict.serializer().serialize("skew.node-writes", SampleRecords.writeEvent()))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("skew.node-writes: cannot look up the latest schema of subject skew.node-writes-value")
        .hasMessageContaining("not found");
    assertThat(registry.subjects()).isEmpty();

    int id = registry.register("skew.node-writes-value", WriteEvent.getClassSchema());
    byte[] bytes = strict.serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    assertThat(idOf(bytes)).isEqualTo(id);
  }

  @Test
  void withoutAutoRegisterALatestVersionThatIsAnotherSchemaIsRefused() {
    registry.register("skew.node-writes-value", io.skewguard.schemas.NodeWeight.getClassSchema());
    var strict = SchemaRegistrySerde.of(WriteEvent.class, Map.of(
        SchemaRegistrySerdeConfig.URL, "mock://" + scope,
        SchemaRegistrySerdeConfig.AUTO_REGISTER, false), false);
    assertThatThrownBy(() -> strict.serializer().serialize("skew.node-writes", SampleRecords.writeEvent()))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("is not the schema of WriteEvent");
  }
}
