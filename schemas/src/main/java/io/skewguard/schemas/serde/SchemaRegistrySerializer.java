package io.skewguard.schemas.serde;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a generated Avro record in the Confluent wire format; see {@link SchemaRegistrySerde} for
 * the format and the configuration keys.
 *
 * <p>The writer schema is the generated class's schema. With {@code auto.register.schemas=true} it
 * is registered under the subject on first use; otherwise the subject's latest version must be that
 * very schema (same parsing canonical form), because an id naming any other schema would make every
 * reader decode our bytes wrongly. The id is resolved once per subject.
 *
 * @param <T> the generated record class
 */
public final class SchemaRegistrySerializer<T extends SpecificRecord> implements Serializer<T> {

  private static final Logger LOG = LoggerFactory.getLogger(SchemaRegistrySerializer.class);

  private final Class<T> type;
  private final Schema schema;
  private final SpecificDatumWriter<T> writer;
  private final Map<String, Integer> idsBySubject = new ConcurrentHashMap<>();

  private volatile SchemaRegistryClient client;
  private volatile boolean ownsClient;
  private volatile boolean autoRegister;
  private volatile boolean isKey;

  /** A serializer for {@code type}; call {@link #configure} before use. */
  public SchemaRegistrySerializer(Class<T> type) {
    this.type = Objects.requireNonNull(type, "type");
    SpecificData model = SpecificData.getForClass(type);
    this.schema = model.getSchema(type);
    this.writer = new SpecificDatumWriter<>(schema, model);
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
    this.idsBySubject.clear();
    this.client = client;
    LOG.debug("{} serializer for {} configured: {}", isKey ? "key" : "value", type.getSimpleName(), config);
  }

  /**
   * The record in the Confluent wire format, or null for a null record (a tombstone).
   *
   * @throws SerializationException naming the topic, if the registry fails or the record cannot be
   *     encoded (e.g. a null in a non-nullable field)
   */
  @Override
  public byte[] serialize(String topic, T data) {
    if (data == null) {
      return null;
    }
    int id = schemaId(topic);
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream(128);
      out.write(new byte[WireFormat.HEADER_SIZE]);
      BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null); // no 2 KB buffer per record
      writer.write(data, encoder);
      encoder.flush();
      byte[] bytes = out.toByteArray();
      WireFormat.writeHeader(bytes, id);
      return bytes;
    } catch (IOException | RuntimeException e) {
      throw new SerializationException(
          topic + ": cannot encode " + type.getSimpleName() + " with schema id " + id + ": " + e, e);
    }
  }

  private int schemaId(String topic) {
    SchemaRegistryClient registry = client;
    if (registry == null) {
      throw new IllegalStateException(
          "SchemaRegistrySerializer<" + type.getSimpleName() + "> is not configured: call configure(config, isKey)");
    }
    String subject = WireFormat.subject(topic, isKey);
    Integer cached = idsBySubject.get(subject);
    if (cached != null) {
      return cached;
    }
    int id = autoRegister ? register(registry, topic, subject) : latest(registry, topic, subject);
    idsBySubject.put(subject, id);
    return id;
  }

  private int register(SchemaRegistryClient registry, String topic, String subject) {
    try {
      int id = registry.register(subject, schema);
      LOG.info("{}: {} writes with schema id {} (subject {}, registry {})",
          topic, type.getSimpleName(), id, subject, registry);
      return id;
    } catch (SchemaRegistryException e) {
      throw new SerializationException(
          topic + ": cannot register the schema of " + type.getSimpleName() + " under subject " + subject
              + ": " + e.getMessage(), e);
    }
  }

  private int latest(SchemaRegistryClient registry, String topic, String subject) {
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
              + " is not the schema of " + type.getSimpleName()
              + "; register it or set auto.register.schemas=true");
    }
    LOG.info("{}: {} writes with schema id {} (latest version {} of subject {})",
        topic, type.getSimpleName(), latest.id(), latest.version(), subject);
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
