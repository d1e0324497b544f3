package io.skewguard.schemas.serde;

import java.io.EOFException;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a generated Avro record from the Confluent wire format; see {@link SchemaRegistrySerde} for
 * the format and the configuration keys.
 *
 * <p>The writer schema is fetched by the id in the header (once per id) and resolved against the
 * generated class's schema as reader schema, so records written with an older BACKWARD-compatible
 * schema decode into the current class, with defaults for the fields they lack.
 *
 * <p>A record either decodes completely or fails with a {@link SerializationException} whose
 * message starts with the topic and says what was wrong: too short for the header, wrong magic
 * byte, unknown schema id, registry unreachable, body ending early, bytes left over after the
 * record, or a body that does not match the writer schema. Apps send such records to the
 * dead-letter topic with that message as the reason.
 *
 * <p>One failure is not the record's fault: when the registry cannot be reached, the exception's
 * cause is a {@link SchemaRegistryException} with {@link SchemaRegistryException#isUnreachable()}
 * true. Dead-lettering then would throw good records away; an app should rather retry or stop.
 *
 * @param <T> the generated record class
 */
public final class SchemaRegistryDeserializer<T extends SpecificRecord> implements Deserializer<T> {

  private static final Logger LOG = LoggerFactory.getLogger(SchemaRegistryDeserializer.class);

  private final Class<T> type;
  private final Schema readerSchema;
  private final SpecificData model;
  private final Map<Integer, SpecificDatumReader<T>> readersByWriterId = new ConcurrentHashMap<>();

  private volatile SchemaRegistryClient client;
  private volatile boolean ownsClient;

  /** A deserializer for {@code type}; call {@link #configure} before use. */
  public SchemaRegistryDeserializer(Class<T> type) {
    this.type = Objects.requireNonNull(type, "type");
    this.model = SpecificData.getForClass(type);
    this.readerSchema = model.getSchema(type);
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    SchemaRegistrySerdeConfig config = SchemaRegistrySerdeConfig.parse(configs);
    configure(config, SchemaRegistryClient.forConfig(config), true, isKey);
  }

  /** Configures with a client the caller owns (the serde shares one between its two halves). */
  void configure(SchemaRegistrySerdeConfig config, SchemaRegistryClient client, boolean ownsClient, boolean isKey) {
    closeOwnedClient();
    this.ownsClient = ownsClient;
    this.readersByWriterId.clear();
    this.client = client;
    LOG.debug("{} deserializer for {} configured: {}", isKey ? "key" : "value", type.getSimpleName(), config);
  }

  /**
   * The record, or null for null bytes (a tombstone).
   *
   * @throws SerializationException naming the topic and the problem, for any bytes that are not one
   *     complete record in the wire format
   */
  @Override
  public T deserialize(String topic, byte[] data) {
    if (data == null) {
      return null;
    }
    SchemaRegistryClient registry = client;
    if (registry == null) {
      throw new IllegalStateException(
          "SchemaRegistryDeserializer<" + type.getSimpleName() + "> is not configured: call configure(config, isKey)");
    }
    if (data.length < WireFormat.HEADER_SIZE) {
      throw new SerializationException(
          topic + ": truncated record: " + data.length + " bytes, the wire-format header alone needs "
              + WireFormat.HEADER_SIZE);
    }
    if (data[0] != WireFormat.MAGIC) {
      throw new SerializationException(
          topic + ": unknown magic byte " + (data[0] & 0xff) + " (expected " + WireFormat.MAGIC + ")");
    }
    int id = WireFormat.readSchemaId(data);
    SpecificDatumReader<T> reader = reader(registry, topic, id);
    int bodyLength = data.length - WireFormat.HEADER_SIZE;
    BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(data, WireFormat.HEADER_SIZE, bodyLength, null);
    T record;
    try {
      record = reader.read(null, BoundedDecoder.wrap(decoder, bodyLength));
    } catch (EOFException e) {
      throw new SerializationException(
          topic + ": truncated Avro body: " + bodyLength + " bytes end before the record of schema id " + id
              + " is complete" + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"), e);
    } catch (IOException | RuntimeException e) {
      throw new SerializationException(
          topic + ": malformed Avro body for schema id " + id + " (" + bodyLength + " bytes): " + e.getMessage(), e);
    }
    int trailing = remaining(decoder);
    if (trailing > 0) {
      throw new SerializationException(
          topic + ": " + trailing + " trailing bytes after the record of schema id " + id
              + " (" + bodyLength + "-byte body)");
    }
    return record;
  }

  private SpecificDatumReader<T> reader(SchemaRegistryClient registry, String topic, int id) {
    SpecificDatumReader<T> cached = readersByWriterId.get(id);
    if (cached != null) {
      return cached;
    }
    Schema writerSchema;
    try {
      writerSchema = registry.getById(id);
    } catch (SchemaRegistryException e) {
      if (e.isNotFound()) {
        throw new SerializationException(
            topic + ": unknown schema id " + id + " (" + registry + " has none): " + e.getMessage(), e);
      }
      throw new SerializationException(
          topic + ": cannot fetch schema id " + id + " from the schema registry: " + e.getMessage(), e);
    }
    SchemaCompatibility.SchemaPairCompatibility compatibility =
        SchemaCompatibility.checkReaderWriterCompatibility(readerSchema, writerSchema);
    if (compatibility.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
      throw new SerializationException(
          topic + ": schema id " + id + " (" + writerSchema.getFullName() + ") cannot be read as "
              + type.getSimpleName() + ": " + compatibility.getDescription());
    }
    SpecificDatumReader<T> reader = new SpecificDatumReader<>(writerSchema, readerSchema, model);
    readersByWriterId.put(id, reader);
    return reader;
  }

  private static int remaining(BinaryDecoder decoder) {
    try {
      int count = 0;
      while (!decoder.isEnd()) {
        decoder.skipFixed(1);
        count++;
      }
      return count;
    } catch (IOException e) {
      throw new SerializationException("cannot check for trailing bytes: " + e.getMessage(), e);
    }
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
