package io.skewguard.schemas.serde;

import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes an Avro record in the Confluent wire format; see {@link SchemaRegistrySerde} for the
 * format and the configuration keys.
 *
 * <p>Built with a generated class ({@link #SchemaRegistrySerializer(Class)}), it writes records of
 * that class with the class's schema. Built without one ({@link #SchemaRegistrySerializer()}, what
 * a producer configured with {@code value.serializer=io.skewguard.schemas.serde.SchemaRegistrySerializer}
 * calls), it writes any generated record or {@code GenericRecord} with the record's own schema.
 *
 * <p>With {@code auto.register.schemas=true} the writer schema is registered under the subject on
 * first use; otherwise the subject's latest version must be that very schema (same parsing
 * canonical form), because an id naming any other schema would make every reader decode our bytes
 * wrongly. The id is resolved once per subject and schema.
 *
 * @param <T> the record class
 */
public final class SchemaRegistrySerializer<T extends IndexedRecord> implements Serializer<T> {

  private static final Logger LOG = LoggerFactory.getLogger(SchemaRegistrySerializer.class);

  /** A writer is bound to a schema and, for generated records, to the class's logical types. */
  private record WriterKey(Class<?> recordClass, Schema schema) {}

  private record SubjectSchema(String subject, Schema schema) {}

  private final Class<T> type;
  private final Schema typeSchema;
  private final Map<WriterKey, DatumWriter<T>> writers = new ConcurrentHashMap<>();
  private final Map<SubjectSchema, Integer> ids = new ConcurrentHashMap<>();
  /**
   * The typed serializer's hot path: its one writer, and its schema's id by topic. Hashing an Avro
   * schema walks all of it, which per record cost the simulator's fast mode a factor of four.
   */
  private final DatumWriter<T> typedWriter;
  private final Map<String, Integer> typedIds = new ConcurrentHashMap<>();
  /** The id for the last record's topic (the very String object a producer passes every time). */
  private volatile TopicId lastTopicId;

  private record TopicId(String topic, int id) {}

  /**
   * Each thread's sink and encoder, reused from record to record: a record costs one array, its own
   * bytes. A sink that grew past {@link #MAX_KEPT_SINK} bytes for a large record is dropped after it,
   * so no thread keeps more than that.
   */
  private static final ThreadLocal<SinkEncoder> SCRATCH = ThreadLocal.withInitial(SchemaRegistrySerializer::newScratch);

  private static final int MAX_KEPT_SINK = 64 * 1024;

  private static SinkEncoder newScratch() {
    return new SinkEncoder(ByteSink.forRecord(256));
  }

  private volatile SchemaRegistryClient client;
  private volatile boolean ownsClient;
  private volatile boolean autoRegister;
  private volatile boolean isKey;

  /**
   * A serializer for the generated class {@code type}; call {@link #configure} before use.
   *
   * @throws IllegalArgumentException if {@code type} is not a generated (SpecificRecord) class
   */
  public SchemaRegistrySerializer(Class<T> type) {
    this.type = Objects.requireNonNull(type, "type");
    if (!SpecificRecord.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(type.getName() + " is not a generated Avro class (SpecificRecord); "
          + "use new SchemaRegistrySerializer<>() to write GenericRecords");
    }
    this.typeSchema = SpecificData.getForClass(type).getSchema(type);
    // the class's own model carries the conversions of its logical types (Instant etc.)
    DatumWriter<T> direct = DirectCoders.writerFor(type);
    this.typedWriter = direct != null ? direct : new SpecificDatumWriter<>(typeSchema, SpecificData.getForClass(type));
  }

  /**
   * A serializer of any record, each written with its own schema; call {@link #configure} before
   * use. This is the constructor Kafka calls for {@code value.serializer} or
   * {@code key.serializer} given as a class name.
   */
  public SchemaRegistrySerializer() {
    this.type = null;
    this.typeSchema = null;
    this.typedWriter = null;
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    SchemaRegistrySerdeConfig config = SchemaRegistrySerdeConfig.parse(configs);
    configure(config, SchemaRegistryClient.forConfig(config), true, isKey);
  }

  /** Configures with a client the caller owns (the serde shares one between its two halves). */
  void configure(SchemaRegistrySerdeConfig config, SchemaRegistryClient client, boolean ownsClient, boolean isKey) {
    closeOwnedClient();
    this.autoRegister = config.autoRegister();
    this.isKey = isKey;
    this.ownsClient = ownsClient;
    this.ids.clear();
    this.typedIds.clear();
    this.lastTopicId = null;
    this.client = client;
    LOG.debug("{} serializer for {} configured: {}", isKey ? "key" : "value", what(), config);
  }

  private String what() {
    return type == null ? "any record" : type.getSimpleName();
  }

  /**
   * The record in the Confluent wire format, or null for a null record (a tombstone).
   *
   * @throws SerializationException naming the topic, if the registry refuses the schema (e.g.
   *     incompatible with the subject's earlier versions) or the record cannot be encoded (e.g. a
   *     null in a non-nullable field)
   * @throws RegistryUnavailableException if the schema's id is not cached and the registry cannot
   *     answer now
   */
  @Override
  public byte[] serialize(String topic, T data) {
    if (data == null) {
      return null;
    }
    SchemaRegistryClient registry = client;
    if (registry == null) {
      throw new IllegalStateException(
          "SchemaRegistrySerializer<" + what() + "> is not configured: call configure(config, isKey)");
    }
    Schema schema = writerSchema(topic, data);
    int id;
    if (typedWriter != null) {
      TopicId last = lastTopicId;
      if (last != null && last.topic() == topic) { // the same topic's String: no map look-up per record
        id = last.id();
      } else {
        Integer known = typedIds.get(topic);
        id = known != null ? known : typedIds.computeIfAbsent(topic, t -> schemaId(registry, t, schema));
        lastTopicId = new TopicId(topic, id);
      }
    } else {
      id = schemaId(registry, topic, schema);
    }
    try {
      SinkEncoder encoder = SCRATCH.get();
      ByteSink out = encoder.sink();
      out.restartRecord();
      try {
        writer(data, schema).write(data, encoder);
        return out.withHeader(id);
      } finally {
        if (out.capacity() > MAX_KEPT_SINK) {
          SCRATCH.set(newScratch());
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new SerializationException(
          topic + ": cannot encode " + schema.getName() + " with schema id " + id + ": " + e, e);
    }
  }

  private Schema writerSchema(String topic, T data) {
    if (typeSchema != null) {
      return typeSchema;
    }
    Schema schema = data.getSchema();
    if (schema == null || schema.getType() != Schema.Type.RECORD) {
      throw new SerializationException(topic + ": " + data.getClass().getName() + " has no record schema");
    }
    return schema;
  }

  private DatumWriter<T> writer(T data, Schema schema) {
    if (typedWriter != null) {
      return typedWriter;
    }
    Class<?> recordClass = type != null ? type : data instanceof SpecificRecord ? data.getClass() : GenericData.Record.class;
    return writers.computeIfAbsent(new WriterKey(recordClass, schema), key ->
        SpecificRecord.class.isAssignableFrom(key.recordClass())
            // the class's own model carries the conversions of its logical types (Instant etc.)
            ? new SpecificDatumWriter<>(schema, SpecificData.getForClass(key.recordClass()))
            : new GenericDatumWriter<>(schema, GenericData.get()));
  }

  private int schemaId(SchemaRegistryClient registry, String topic, Schema schema) {
    String subject = WireFormat.subject(topic, isKey);
    SubjectSchema key = new SubjectSchema(subject, schema);
    Integer cached = ids.get(key);
    if (cached != null) {
      return cached;
    }
    int id = autoRegister ? register(registry, topic, subject, schema) : latest(registry, topic, subject, schema);
    ids.put(key, id);
    return id;
  }

  private int register(SchemaRegistryClient registry, String topic, String subject, Schema schema) {
    try {
      int id = registry.register(subject, schema);
      LOG.info("{}: {} writes with schema id {} (subject {}, registry {})",
          topic, schema.getName(), id, subject, registry);
      return id;
    } catch (SchemaRegistryException e) {
      throw new SerializationException(
          topic + ": cannot register the schema of " + schema.getName() + " under subject " + subject
              + (e.isIncompatible() ? " (incompatible with the subject's earlier versions)" : "")
              + ": " + e.getMessage(), e);
    }
  }

  private int latest(SchemaRegistryClient registry, String topic, String subject, Schema schema) {
    SchemaRegistryClient.RegisteredSchema latest;
    try {
      latest = registry.latest(subject);
    } catch (SchemaRegistryException e) {
      throw new SerializationException(
          topic + ": cannot look up the latest schema of subject " + subject + " (auto.register.schemas=false): "
              + e.getMessage(), e);
    }
    if (!SchemaNormalization.toParsingForm(latest.schema()).equals(SchemaNormalization.toParsingForm(schema))) {
      throw new SerializationException(
          topic + ": the latest version " + latest.version() + " (id " + latest.id() + ") of subject " + subject
              + " is not the schema of " + schema.getName()
              + "; register it or set auto.register.schemas=true");
    }
    LOG.info("{}: {} writes with schema id {} (latest version {} of subject {})",
        topic, schema.getName(), latest.id(), latest.version(), subject);
    return latest.id();
  }

  @Override
  public void close() {
    closeOwnedClient();
  }

  private void closeOwnedClient() {
    SchemaRegistryClient old = client;
    if (old != null && ownsClient) {
      old.close();
    }
  }
}
