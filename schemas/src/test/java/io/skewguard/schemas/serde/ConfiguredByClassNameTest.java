package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.WriteEvent;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A storage team's own producer and consumer, configured with nothing but properties: the serde
 * classes are named, built and configured the way {@code KafkaProducer} and {@code KafkaConsumer}
 * build and configure them (instance from the class name via the client's config, then
 * {@code configure(originals, isKey)}).
 */
class ConfiguredByClassNameTest {

  private static final String TOPIC = "skew.node-writes";

  private final String scope = "by-class-name-" + UUID.randomUUID();

  @AfterEach
  void dropScope() {
    MockSchemaRegistry.drop(scope);
  }

  private Properties producerProperties() {
    Properties props = new Properties();
    props.put("bootstrap.servers", "127.0.0.1:9092");
    props.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
    props.put("value.serializer", "io.skewguard.schemas.serde.SchemaRegistrySerializer");
    props.put("schema.registry.url", "mock://" + scope);
    return props;
  }

  private Properties consumerProperties(boolean specific) {
    Properties props = new Properties();
    props.put("bootstrap.servers", "127.0.0.1:9092");
    props.put("group.id", "storage-team");
    props.put("key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer");
    props.put("value.deserializer", "io.skewguard.schemas.serde.SchemaRegistryDeserializer");
    props.put("schema.registry.url", "mock://" + scope);
    props.put("specific.avro.reader", Boolean.toString(specific));
    return props;
  }

  /** What KafkaProducer does with value.serializer. */
  @SuppressWarnings("unchecked")
  private static Serializer<Object> valueSerializer(Properties props) {
    ProducerConfig config = new ProducerConfig(props);
    Serializer<Object> serializer = config.getConfiguredInstance(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, Serializer.class);
    serializer.configure(config.originals(), false);
    return serializer;
  }

  /** What KafkaConsumer does with value.deserializer. */
  @SuppressWarnings("unchecked")
  private static Deserializer<Object> valueDeserializer(Properties props) {
    ConsumerConfig config = new ConsumerConfig(props);
    Deserializer<Object> deserializer =
        config.getConfiguredInstance(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, Deserializer.class);
    deserializer.configure(config.originals(), false);
    return deserializer;
  }

  @Test
  void aProducerAndConsumerConfiguredByClassNameRoundTripAGeneratedRecord() {
    try (var serializer = valueSerializer(producerProperties());
        var deserializer = valueDeserializer(consumerProperties(true))) {
      assertThat(serializer).isInstanceOf(SchemaRegistrySerializer.class);
      byte[] bytes = serializer.serialize(TOPIC, SampleRecords.writeEvent());

      assertThat(bytes[0]).as("magic byte").isZero();
      assertThat(deserializer.deserialize(TOPIC, bytes)).isInstanceOf(WriteEvent.class).isEqualTo(SampleRecords.writeEvent());
      assertThat(MockSchemaRegistry.scope(scope).subjects()).containsExactly(TOPIC + "-value");
    }
  }

  @Test
  void theClassNamedByTheWriterSchemaIsReadSoOneConsumerServesEveryRecordType() {
    try (var serializer = valueSerializer(producerProperties());
        var deserializer = valueDeserializer(consumerProperties(true))) {
      byte[] write = serializer.serialize(TOPIC, SampleRecords.writeEvent());
      byte[] capacity = serializer.serialize("skew.node-capacity", SampleRecords.capacityFull());

      assertThat(deserializer.deserialize(TOPIC, write)).isEqualTo(SampleRecords.writeEvent());
      assertThat(deserializer.deserialize("skew.node-capacity", capacity)).isEqualTo(SampleRecords.capacityFull());
      assertThat(MockSchemaRegistry.scope(scope).subjects())
          .containsExactly("skew.node-capacity-value", TOPIC + "-value");
    }
  }

  @Test
  void withoutSpecificAvroReaderTheConsumerGetsAGenericRecordOfTheWriterSchema() {
    try (var serializer = valueSerializer(producerProperties());
        var deserializer = valueDeserializer(consumerProperties(false))) {
      Object read = deserializer.deserialize(TOPIC, serializer.serialize(TOPIC, SampleRecords.writeEvent()));

      assertThat(read).isInstanceOf(GenericData.Record.class).isNotInstanceOf(WriteEvent.class);
      GenericRecord record = (GenericRecord) read;
      assertThat(record.getSchema()).isEqualTo(WriteEvent.getClassSchema());
      assertThat(record.get("cluster")).as("SkewGuard's schemas say avro.java.string=String").isEqualTo("eu-1");
      assertThat(record.get("slot")).isEqualTo(4095);
      assertThat(record.get("bytes")).isEqualTo(9_876_543_210L);
      assertThat(record.get("eventTime")).as("timestamp-millis as Confluent's generic reader gives it")
          .isEqualTo(SampleRecords.T0.toEpochMilli());
    }
  }

  @Test
  void specificReadingIsOffByDefaultAsInConfluentsDeserializer() {
    Properties props = consumerProperties(false);
    props.remove("specific.avro.reader");
    try (var serializer = valueSerializer(producerProperties()); var deserializer = valueDeserializer(props)) {
      assertThat(deserializer.deserialize(TOPIC, serializer.serialize(TOPIC, SampleRecords.writeEvent())))
          .isNotInstanceOf(WriteEvent.class).isInstanceOf(GenericRecord.class);
    }
  }

  @Test
  void aGenericRecordIsWrittenWithItsOwnSchemaAndReadsBackAsTheGeneratedClass() {
    GenericRecord generic = new GenericData.Record(WriteEvent.getClassSchema());
    generic.put("cluster", "eu-1");
    generic.put("node", "node-07");
    generic.put("slot", 4095);
    generic.put("bytes", 9_876_543_210L);
    generic.put("ops", 12_345L);
    generic.put("eventTime", SampleRecords.T0.toEpochMilli());
    try (var serializer = valueSerializer(producerProperties());
        var deserializer = valueDeserializer(consumerProperties(true))) {
      byte[] fromGeneric = serializer.serialize(TOPIC, generic);
      byte[] fromGenerated = serializer.serialize(TOPIC, SampleRecords.writeEvent());

      assertThat(fromGeneric).isEqualTo(fromGenerated);
      assertThat(deserializer.deserialize(TOPIC, fromGeneric)).isEqualTo(SampleRecords.writeEvent());
    }
  }

  @Test
  void specificReadingOfASchemaWithoutAGeneratedClassFailsNamingTheSchema() {
    Schema foreign = SchemaBuilder.record("DiskSample").namespace("com.example.storage")
        .fields().requiredString("node").requiredLong("used").endRecord();
    GenericRecord sample = new GenericData.Record(foreign);
    sample.put("node", "node-07");
    sample.put("used", 42L);
    try (var serializer = valueSerializer(producerProperties());
        var specific = valueDeserializer(consumerProperties(true));
        var generic = valueDeserializer(consumerProperties(false))) {
      byte[] bytes = serializer.serialize("storage.disk", sample);

      assertThatThrownBy(() -> specific.deserialize("storage.disk", bytes))
          .isInstanceOf(SerializationException.class)
          .hasMessageStartingWith("storage.disk: schema id ")
          .hasMessageContaining("names com.example.storage.DiskSample, but no generated Avro class com.example.storage.DiskSample is on the classpath")
          .hasMessageContaining("specific.avro.reader=false");
      GenericRecord read = (GenericRecord) generic.deserialize("storage.disk", bytes);
      assertThat(read.get("node")).as("a schema without avro.java.string reads strings as Utf8").isEqualTo(new Utf8("node-07"));
      assertThat(read).isEqualTo(sample);
    }
  }

  @Test
  void aWriterSchemaThatIsNotARecordFailsInsteadOfReturningAString() {
    int id = MockSchemaRegistry.scope(scope).register("storage.names-value", Schema.create(Schema.Type.STRING));
    byte[] bytes = {0, 0, 0, 0, (byte) id, 2, 'x'};
    try (var deserializer = valueDeserializer(consumerProperties(false))) {
      assertThatThrownBy(() -> deserializer.deserialize("storage.names", bytes))
          .isInstanceOf(SerializationException.class)
          .hasMessage("storage.names: schema id " + id + " is STRING, not a record; this serde reads records only");
    }
  }

  @Test
  void aKeySerializerWritesUnderTheKeySubject() {
    Properties props = producerProperties();
    props.put("key.serializer", "io.skewguard.schemas.serde.SchemaRegistrySerializer");
    ProducerConfig config = new ProducerConfig(props);
    try (Serializer<?> keys = config.getConfiguredInstance(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, Serializer.class)) {
      keys.configure(config.originals(), true);
      @SuppressWarnings("unchecked")
      Serializer<Object> serializer = (Serializer<Object>) keys;
      serializer.serialize(TOPIC, SampleRecords.writeEvent());
    }
    assertThat(MockSchemaRegistry.scope(scope).subjects()).containsExactly(TOPIC + "-key");
  }

  @Test
  void theTypedConstructorsStillReadAndWriteOnlyTheirClassAndRefuseNonGeneratedOnes() {
    Map<String, Object> config = Map.of("schema.registry.url", "mock://" + scope, "specific.avro.reader", "false");
    try (var typed = new SchemaRegistryDeserializer<>(WriteEvent.class); var any = valueSerializer(producerProperties())) {
      typed.configure(config, false);
      assertThat(typed.deserialize(TOPIC, any.serialize(TOPIC, SampleRecords.writeEvent())))
          .as("a typed deserializer reads its class whatever specific.avro.reader says")
          .isInstanceOf(WriteEvent.class);
      byte[] capacity = any.serialize("skew.node-capacity", SampleRecords.capacityFull());
      assertThatThrownBy(() -> typed.deserialize("skew.node-capacity", capacity))
          .isInstanceOf(SerializationException.class)
          .hasMessageContaining("(io.skewguard.schemas.CapacityEvent) cannot be read as WriteEvent");
    }
    assertThatThrownBy(() -> new SchemaRegistrySerializer<>(GenericData.Record.class))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a generated Avro class");
    assertThatThrownBy(() -> new SchemaRegistryDeserializer<>(GenericData.Record.class))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a generated Avro class");
    assertThat(new SchemaRegistrySerde<>(CapacityEvent.class).type()).isEqualTo(CapacityEvent.class);
  }
}
