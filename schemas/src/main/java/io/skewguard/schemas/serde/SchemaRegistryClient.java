package io.skewguard.schemas.serde;

import org.apache.avro.Schema;

/**
 * The three registry operations the serde needs: register a writer schema, fetch a writer schema by
 * id, and look up a subject's latest version.
 *
 * <p>Two implementations, chosen by URL scheme in {@link #forConfig}: {@link MockSchemaRegistry}
 * ({@code mock://scope}, in-process) and {@link HttpSchemaRegistryClient} ({@code http(s)://},
 * Confluent REST API v1). Both are wrapped in a {@link CachingSchemaRegistryClient} so that a
 * schema is registered or fetched once per client, not once per record.
 *
 * <p>Implementations are thread-safe: a Kafka producer calls its serializer from any thread.
 */
public interface SchemaRegistryClient extends AutoCloseable {

  /**
   * Registers {@code schema} under {@code subject} (or finds it already there) and returns its id.
   *
   * @throws SchemaRegistryException if the registry refuses (e.g. incompatible: {@link
   *     SchemaRegistryException#isIncompatible()})
   * @throws RegistryUnavailableException if no registry can answer now
   */
  int register(String subject, Schema schema);

  /**
   * The schema with this id.
   *
   * @throws SchemaRegistryException with {@link SchemaRegistryException#isNotFound()} if no schema
   *     has this id
   * @throws RegistryUnavailableException if no registry can answer now
   */
  Schema getById(int id);

  /**
   * The latest version registered under {@code subject}.
   *
   * @throws SchemaRegistryException with {@link SchemaRegistryException#isNotFound()} if the
   *     subject does not exist
   * @throws RegistryUnavailableException if no registry can answer now
   */
  RegisteredSchema latest(String subject);

  /**
   * Checks that the registry answers the registry API at its URL; the in-process one always does.
   *
   * @throws RegistryUnavailableException if it does not answer now, or answers as something else
   *     ({@link RegistryUnavailableException#wrongBasePath()})
   */
  default void probe() {}

  /** Releases connections, if any; the in-process registry keeps its content. */
  @Override
  default void close() {}

  /**
   * One version of a subject.
   *
   * @param id global schema id (what goes into the wire-format header)
   * @param version version number within the subject, from 1
   * @param schema the schema
   */
  record RegisteredSchema(int id, int version, Schema schema) {}

  /** The client the URLs of {@code config} ask for, with a cache in front of it. */
  static SchemaRegistryClient forConfig(SchemaRegistrySerdeConfig config) {
    SchemaRegistryClient backend =
        config.isMock()
            ? MockSchemaRegistry.scope(config.urls().get(0).getAuthority())
            : new HttpSchemaRegistryClient(config);
    return new CachingSchemaRegistryClient(backend);
  }
}
