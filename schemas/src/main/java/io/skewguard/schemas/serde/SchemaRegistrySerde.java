package io.skewguard.schemas.serde;

import java.util.Map;
import java.util.Objects;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Kafka serde of one generated Avro record class in the Confluent Schema Registry wire format, the
 * format of every SkewGuard topic.
 *
 * <h2>Wire format</h2>
 *
 * <pre>
 *   byte 0      magic byte, always 0
 *   bytes 1..4  schema id, big-endian int (id 258 is 00 00 01 02)
 *   bytes 5..   Avro binary encoding of the record with that schema
 * </pre>
 *
 * A null record is written as null bytes and null bytes read as a null record, so tombstones on
 * the compacted topics pass through. The subject of a schema follows the topic-name strategy:
 * {@code <topic>-value}, or {@code <topic>-key} when configured with {@code isKey=true}. Readers
 * resolve the writer schema of the id against the generated class's schema, so data written with
 * an older BACKWARD-compatible schema reads into the current class.
 *
 * <h2>Configuration (the keys of Confluent's serde)</h2>
 *
 * <ul>
 *   <li>{@code schema.registry.url} (required): {@code mock://<scope>} for the in-process
 *       {@link MockSchemaRegistry} shared by every serde of the JVM with that scope, or one or more
 *       comma-separated {@code http(s)://host:port[/path]} base URLs of a Confluent REST API v1
 *       registry (Confluent, Karapace, Redpanda, Apicurio's ccompat API), tried in turn;
 *   <li>{@code auto.register.schemas} (default true): register the class's schema on first write;
 *       when false the subject's latest version must be that schema;
 *   <li>{@code basic.auth.credentials.source} ({@code USER_INFO} or {@code URL}) and
 *       {@code basic.auth.user.info} ({@code user:password}): HTTP basic authentication;
 *   <li>{@code schema.registry.connect.timeout.ms} (default 5000) and
 *       {@code schema.registry.request.timeout.ms} (default 10000);
 *   <li>{@code schema.registry.ssl.truststore.location}, {@code .password} and {@code .type}
 *       ({@code JKS} or {@code PKCS12}): the truststore an {@code https://} registry is checked
 *       against instead of the JDK's default CAs;
 *   <li>{@code specific.avro.reader} (default false): only for a deserializer built without a class,
 *       see {@link SchemaRegistryDeserializer}.
 * </ul>
 *
 * See {@link SchemaRegistrySerdeConfig} for the Confluent keys that are refused rather than
 * ignored. Any other key in the map is ignored, so the producer's, consumer's or Streams app's own
 * configuration can be passed as it is. An unknown URL scheme or a malformed value fails in
 * {@link #configure} with a {@link org.apache.kafka.common.config.ConfigException}.
 *
 * <h2>Errors</h2>
 *
 * Bytes that are not one complete record (short header, wrong magic byte, unknown schema id, body
 * ending early, trailing bytes) and an unreachable registry raise
 * {@link org.apache.kafka.common.errors.SerializationException} whose message starts with the topic
 * and names the problem, e.g. {@code "skew.node-writes: unknown magic byte 7 (expected 0)"}; never a
 * null or partly read record.
 *
 * <h2>Use</h2>
 *
 * <pre>{@code
 * Serde<WriteEvent> serde = SchemaRegistrySerde.of(WriteEvent.class, config, false);
 * }</pre>
 *
 * Kafka Streams does not configure serdes passed to {@code Consumed.with} or {@code Produced.with},
 * so configure them yourself, as above. A plain producer or consumer can instead name
 * {@link SchemaRegistrySerializer} and {@link SchemaRegistryDeserializer} as its
 * {@code value.serializer} / {@code value.deserializer} (or key) classes and pass these keys among
 * its own properties. The serializer and the deserializer of one serde share one
 * registry client and its cache; {@link #close()} releases it.
 *
 * @param <T> the generated record class
 */
public final class SchemaRegistrySerde<T extends SpecificRecord> implements Serde<T> {

  private final Class<T> type;
  private final SchemaRegistrySerializer<T> serializer;
  private final SchemaRegistryDeserializer<T> deserializer;
  private volatile SchemaRegistryClient client;

  /** A serde of {@code type}; call {@link #configure} before use. */
  public SchemaRegistrySerde(Class<T> type) {
    this.type = Objects.requireNonNull(type, "type");
    this.serializer = new SchemaRegistrySerializer<>(type);
    this.deserializer = new SchemaRegistryDeserializer<>(type);
  }

  /** A serde of {@code type}; call {@link #configure} before use. */
  public static <T extends SpecificRecord> SchemaRegistrySerde<T> of(Class<T> type) {
    return new SchemaRegistrySerde<>(type);
  }

  /** A serde of {@code type}, configured as a key serde if {@code isKey}, else as a value serde. */
  public static <T extends SpecificRecord> SchemaRegistrySerde<T> of(
      Class<T> type, Map<String, ?> config, boolean isKey) {
    SchemaRegistrySerde<T> serde = new SchemaRegistrySerde<>(type);
    serde.configure(config, isKey);
    return serde;
  }

  /**
   * Reads the settings and connects both halves to one registry client.
   *
   * @throws org.apache.kafka.common.config.ConfigException if a setting is missing or malformed
   */
  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    SchemaRegistrySerdeConfig config = SchemaRegistrySerdeConfig.parse(configs);
    SchemaRegistryClient fresh = SchemaRegistryClient.forConfig(config);
    serializer.configure(config, fresh, false, isKey);
    deserializer.configure(config, fresh, false, isKey);
    SchemaRegistryClient old = client;
    client = fresh;
    if (old != null) {
      old.close();
    }
  }

  /** The generated class this serde reads and writes. */
  public Class<T> type() {
    return type;
  }

  @Override
  public Serializer<T> serializer() {
    return serializer;
  }

  @Override
  public Deserializer<T> deserializer() {
    return deserializer;
  }

  @Override
  public void close() {
    SchemaRegistryClient old = client;
    client = null;
    if (old != null) {
      old.close();
    }
  }
}
