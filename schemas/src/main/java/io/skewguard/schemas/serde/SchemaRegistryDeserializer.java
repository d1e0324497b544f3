package io.skewguard.schemas.serde;

import java.io.EOFException;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.generic.IndexedRecord;
import org.apache.avro.io.DatumReader;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads an Avro record from the Confluent wire format; see {@link SchemaRegistrySerde} for the
 * format and the configuration keys.
 *
 * <p>The writer schema is fetched by the id in the header (once per id). What it is read into
 * depends on how the deserializer was built:
 *
 * <ul>
 *   <li>with a generated class ({@link #SchemaRegistryDeserializer(Class)}, what the apps do): that
 *       class, its schema being the reader schema;
 *   <li>without one ({@link #SchemaRegistryDeserializer()}, what a consumer configured with
 *       {@code value.deserializer=io.skewguard.schemas.serde.SchemaRegistryDeserializer} calls) and
 *       {@code specific.avro.reader=true}: the generated class the writer schema's full name names,
 *       its own schema being the reader schema;
 *   <li>without one and {@code specific.avro.reader=false} (the default, as Confluent's): a
 *       {@link org.apache.avro.generic.GenericRecord} of the writer schema (timestamps as longs;
 *       strings as {@code String} where the schema says {@code "avro.java.string": "String"}, as
 *       SkewGuard's do, else as {@link org.apache.avro.util.Utf8}).
 * </ul>
 *
 * <p>A generated class reads records written with an older BACKWARD-compatible schema, with
 * defaults for the fields they lack.
 *
 * <p>A record either decodes completely or fails with a {@link SerializationException} whose
 * message says what was wrong: too short for the header, wrong magic byte, body ending early,
 * bytes left over after the record, or a body that does not match the writer schema (the message
 * starts with the topic), or a schema id the registry does not know ({@link
 * UnknownSchemaException}, the message starting with {@code unknown-schema:}). Apps send such
 * records to the dead-letter topic with that message as the reason.
 *
 * <p>One failure is not the record's fault: when the registry cannot answer (unreachable, timeout,
 * 5xx, refused credentials, wrong base path), {@link #deserialize} throws {@link
 * RegistryUnavailableException}, which is not a {@link SerializationException}. Dead-lettering then
 * would throw good records away; the apps stop at the record and retry it.
 *
 * @param <T> the record class
 */
public final class SchemaRegistryDeserializer<T extends IndexedRecord> implements Deserializer<T> {

  private static final Logger LOG = LoggerFactory.getLogger(SchemaRegistryDeserializer.class);

  private final Class<T> type;
  /** The schema to read GenericRecords as, whatever the writer's; null to read them as written. */
  private final Schema readerSchema;
  private final Map<Integer, DatumReader<T>> readersByWriterId = new ConcurrentHashMap<>();
  /** The reader of the last record's schema id: a topic's records nearly all carry one id, so no map look-up per record. */
  private volatile IdReader<T> lastReader;

  private record IdReader<T>(int id, DatumReader<T> reader) {}

  private volatile SchemaRegistryClient client;
  private volatile boolean ownsClient;
  private volatile boolean specificReader;

  /**
   * A deserializer for the generated class {@code type}; call {@link #configure} before use.
   *
   * @throws IllegalArgumentException if {@code type} is not a generated (SpecificRecord) class
   */
  public SchemaRegistryDeserializer(Class<T> type) {
    this.type = Objects.requireNonNull(type, "type");
    this.readerSchema = null;
    if (!SpecificRecord.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(type.getName() + " is not a generated Avro class (SpecificRecord); "
          + "use new SchemaRegistryDeserializer<>() with specific.avro.reader=false to read GenericRecords");
    }
  }

  /**
   * A deserializer of whatever the writer schema names, as {@code specific.avro.reader} says; call
   * {@link #configure} before use. This is the constructor Kafka calls for
   * {@code value.deserializer} or {@code key.deserializer} given as a class name.
   */
  public SchemaRegistryDeserializer() {
    this.type = null;
    this.readerSchema = null;
  }

  /**
   * A deserializer of GenericRecords of {@code readerSchema}, whatever compatible schema they were
   * written with (Avro schema resolution: fields the writer lacks get their defaults, fields the
   * reader lacks are skipped), for a consumer that knows a newer or older version of a schema than
   * the generated class; call {@link #configure} before use.
   */
  public static SchemaRegistryDeserializer<GenericRecord> readingAs(Schema readerSchema) {
    return new SchemaRegistryDeserializer<>(Objects.requireNonNull(readerSchema, "readerSchema"));
  }

  private SchemaRegistryDeserializer(Schema readerSchema) {
    this.type = null;
    this.readerSchema = readerSchema;
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
    this.specificReader = config.specificReader();
    this.readersByWriterId.clear();
    this.lastReader = null;
    this.client = client;
    LOG.debug("{} deserializer for {} configured: {}", isKey ? "key" : "value", what(), config);
  }

  private String what() {
    if (type != null) {
      return type.getSimpleName();
    }
    if (readerSchema != null) {
      return "GenericRecord of " + readerSchema.getFullName();
    }
    return specificReader ? "the generated class the writer schema names" : "GenericRecord";
  }

  /**
   * The record, or null for null bytes (a tombstone).
   *
   * @throws SerializationException naming the topic and the problem, for any bytes that are not one
   *     complete record in the wire format
   * @throws RegistryUnavailableException if the writer schema is not cached and the registry cannot
   *     answer now
   */
  @Override
  public T deserialize(String topic, byte[] data) {
    return deserialize(topic, data, null);
  }

  /**
   * What one thread keeps to read record after record without allocating a decoder, and (where the
   * reader can fill one in place: the nodes' records, and any generated class read through Avro's
   * own reader) a record, per record. Not thread-safe: one per reading thread.
   */
  public static final class Reading<T> {
    private final BoundedDecoder decoder = BoundedDecoder.over(new byte[0], 0, 0);
    private T record;

    private Reading() {
    }
  }

  /** A new {@link Reading} for {@link #deserialize(String, byte[], Reading)}. */
  public Reading<T> reading() {
    return new Reading<>();
  }

  /**
   * Like {@link #deserialize(String, byte[])}, through {@code reading}: the record returned is the
   * one the previous call through the same {@code reading} returned, filled anew, so it is valid
   * only until the next call. {@code reading} null reads into a new record.
   */
  public T deserialize(String topic, byte[] data, Reading<T> reading) {
    if (data == null) {
      return null;
    }
    SchemaRegistryClient registry = client;
    if (registry == null) {
      throw new IllegalStateException(
          "SchemaRegistryDeserializer<" + what() + "> is not configured: call configure(config, isKey)");
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
    DatumReader<T> reader = reader(registry, topic, id);
    int bodyLength = data.length - WireFormat.HEADER_SIZE;
    BoundedDecoder decoder = reading == null
        ? BoundedDecoder.over(data, WireFormat.HEADER_SIZE, bodyLength)
        : reading.decoder.reset(data, WireFormat.HEADER_SIZE, bodyLength);
    T reuse = null;
    if (reading != null) {
      reuse = reading.record;
      reading.record = null; // a read that fails part-way leaves no half-filled record to reuse
    }
    T record;
    try {
      record = reader.read(reuse, decoder);
    } catch (EOFException e) {
      throw new SerializationException(
          topic + ": truncated Avro body: " + bodyLength + " bytes end before the record of schema id " + id
              + " is complete" + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"), e);
    } catch (IOException | RuntimeException e) {
      throw new SerializationException(
          topic + ": malformed Avro body for schema id " + id + " (" + bodyLength + " bytes): " + e.getMessage(), e);
    }
    int trailing = decoder.remaining();
    if (trailing > 0) {
      throw new SerializationException(
          topic + ": " + trailing + " trailing bytes after the record of schema id " + id
              + " (" + bodyLength + "-byte body)");
    }
    if (reading != null) {
      reading.record = record;
    }
    return record;
  }

  private DatumReader<T> reader(SchemaRegistryClient registry, String topic, int id) {
    IdReader<T> last = lastReader;
    if (last != null && last.id() == id) {
      return last.reader();
    }
    DatumReader<T> cached = readersByWriterId.get(id);
    if (cached != null) {
      lastReader = new IdReader<>(id, cached);
      return cached;
    }
    Schema writerSchema;
    try {
      writerSchema = registry.getById(id);
    } catch (SchemaRegistryException e) {
      if (e.isNotFound()) {
        throw new UnknownSchemaException(topic, id, registry + " has none (" + e.getMessage() + ")", e);
      }
      throw new SerializationException(
          topic + ": cannot fetch schema id " + id + " from the schema registry: " + e.getMessage(), e);
    }
    DatumReader<T> reader = type != null ? specific(topic, id, writerSchema, type) : classless(topic, id, writerSchema);
    readersByWriterId.put(id, reader);
    lastReader = new IdReader<>(id, reader);
    return reader;
  }

  private DatumReader<T> classless(String topic, int id, Schema writerSchema) {
    if (writerSchema.getType() != Schema.Type.RECORD) {
      throw new SerializationException(
          topic + ": schema id " + id + " is " + writerSchema.getType() + ", not a record; this serde reads records only");
    }
    if (readerSchema != null) {
      return resolving(topic, id, writerSchema, readerSchema);
    }
    if (!specificReader) {
      return new GenericDatumReader<>(writerSchema, writerSchema, GenericData.get());
    }
    Class<?> named = SpecificData.get().getClass(writerSchema);
    if (named == null || !SpecificRecord.class.isAssignableFrom(named)) {
      throw new SerializationException(
          topic + ": schema id " + id + " names " + writerSchema.getFullName() + ", but no generated Avro class "
              + writerSchema.getFullName() + " is on the classpath (" + SchemaRegistrySerdeConfig.SPECIFIC_READER
              + "=true); add the class or set " + SchemaRegistrySerdeConfig.SPECIFIC_READER + "=false to read GenericRecords");
    }
    @SuppressWarnings("unchecked") // a SpecificRecord is an IndexedRecord; T is erased to IndexedRecord
    Class<T> generated = (Class<T>) named;
    return specific(topic, id, writerSchema, generated);
  }

  private static <T> DatumReader<T> specific(String topic, int id, Schema writerSchema, Class<T> generated) {
    SpecificData model = SpecificData.getForClass(generated);
    Schema readerSchema = model.getSchema(generated);
    SchemaCompatibility.SchemaPairCompatibility compatibility =
        SchemaCompatibility.checkReaderWriterCompatibility(readerSchema, writerSchema);
    if (compatibility.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
      throw new SerializationException(
          topic + ": schema id " + id + " (" + writerSchema.getFullName() + ") cannot be read as "
              + generated.getSimpleName() + ": " + compatibility.getDescription());
    }
    DatumReader<T> direct = DirectCoders.readerFor(generated, writerSchema);
    return direct != null ? direct : new SpecificDatumReader<>(writerSchema, readerSchema, model);
  }

  private static <T> DatumReader<T> resolving(String topic, int id, Schema writerSchema, Schema readerSchema) {
    SchemaCompatibility.SchemaPairCompatibility compatibility =
        SchemaCompatibility.checkReaderWriterCompatibility(readerSchema, writerSchema);
    if (compatibility.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
      throw new SerializationException(
          topic + ": schema id " + id + " (" + writerSchema.getFullName() + ") cannot be read as the given "
              + readerSchema.getFullName() + ": " + compatibility.getDescription());
    }
    return new GenericDatumReader<>(writerSchema, readerSchema, GenericData.get());
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
