package io.skewguard.schemas.serde;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;

/**
 * Remembers what a registry answered, so each schema is registered once and each id fetched once
 * per client, instead of one round trip per record.
 *
 * <p>Registrations and ids never change meaning in a schema registry (an id always names the same
 * schema), so these entries never expire. {@link #latest} is not cached: the latest version of a
 * subject may move; the serializer keeps the one id it resolved itself.
 *
 * <p>Two threads asking for the same missing entry at once may both ask the registry; both get the
 * same answer, which is cheaper than holding a lock across a network call.
 */
public final class CachingSchemaRegistryClient implements SchemaRegistryClient {

  private record SubjectSchema(String subject, Schema schema) {}

  private final SchemaRegistryClient backend;
  private final Map<SubjectSchema, Integer> ids = new ConcurrentHashMap<>();
  private final Map<Integer, Schema> schemas = new ConcurrentHashMap<>();

  /** Caches the answers of {@code backend}. */
  public CachingSchemaRegistryClient(SchemaRegistryClient backend) {
    this.backend = backend;
  }

  @Override
  public int register(String subject, Schema schema) {
    SubjectSchema key = new SubjectSchema(subject, schema);
    Integer cached = ids.get(key);
    if (cached != null) {
      return cached;
    }
    int id = backend.register(subject, schema);
    ids.put(key, id);
    schemas.putIfAbsent(id, schema);
    return id;
  }

  @Override
  public Schema getById(int id) {
    Schema cached = schemas.get(id);
    if (cached != null) {
      return cached;
    }
    Schema schema = backend.getById(id);
    schemas.put(id, schema);
    return schema;
  }

  @Override
  public RegisteredSchema latest(String subject) {
    RegisteredSchema latest = backend.latest(subject);
    schemas.putIfAbsent(latest.id(), latest.schema());
    return latest;
  }

  /** The registry behind the cache. */
  public SchemaRegistryClient backend() {
    return backend;
  }

  @Override
  public void close() {
    backend.close();
  }

  @Override
  public String toString() {
    return backend.toString();
  }
}
