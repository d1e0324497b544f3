package io.skewguard.schemas.serde;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.apache.avro.Schema;

/**
 * Remembers what a registry answered, so each schema is registered once and each id fetched once
 * per client, instead of one round trip per record.
 *
 * <p>Registrations and ids never change meaning in a schema registry (an id always names the same
 * schema), so these entries never expire. {@link #latest} is not cached: the latest version of a
 * subject may move; the serializer keeps the one id it resolved itself.
 *
 * <p>"No schema has this id" is remembered too, so that a stream of records with an unknown id
 * (bad input, or a producer of another registry) costs one request per id, not one per record. That
 * memory is bounded ({@value #DEFAULT_NEGATIVE_CAPACITY} ids, the oldest forgotten first) and
 * expires ({@link #DEFAULT_NEGATIVE_TTL}): an id registered a little later (a registry follower
 * that had not caught up, say) is found on a later record. An outage is never remembered: it says
 * nothing about the id.
 *
 * <p>Two threads asking for the same missing entry at once may both ask the registry; both get the
 * same answer, which is cheaper than holding a lock across a network call.
 */
public final class CachingSchemaRegistryClient implements SchemaRegistryClient {

  /** Unknown ids remembered at most, by default. */
  public static final int DEFAULT_NEGATIVE_CAPACITY = 1_000;

  /** How long an unknown id is remembered, by default. */
  public static final Duration DEFAULT_NEGATIVE_TTL = Duration.ofMinutes(1);

  private record SubjectSchema(String subject, Schema schema) {}

  private record Unknown(SchemaRegistryException answer, long until) {}

  private final SchemaRegistryClient backend;
  private final Map<SubjectSchema, Integer> ids = new ConcurrentHashMap<>();
  private final Map<Integer, Schema> schemas = new ConcurrentHashMap<>();
  private final int negativeCapacity;
  private final long negativeTtlNanos;
  private final LongSupplier nanoTime;
  /** Unknown ids in insertion order, so the oldest goes first past the capacity; guarded by itself. */
  private final LinkedHashMap<Integer, Unknown> unknown = new LinkedHashMap<>();

  /** Caches the answers of {@code backend}, unknown ids with the default bounds. */
  public CachingSchemaRegistryClient(SchemaRegistryClient backend) {
    this(backend, DEFAULT_NEGATIVE_CAPACITY, DEFAULT_NEGATIVE_TTL, System::nanoTime);
  }

  /**
   * Caches the answers of {@code backend}; at most {@code negativeCapacity} unknown ids, each for
   * {@code negativeTtl} of {@code nanoTime}.
   */
  public CachingSchemaRegistryClient(SchemaRegistryClient backend, int negativeCapacity, Duration negativeTtl,
      LongSupplier nanoTime) {
    if (negativeCapacity < 0) {
      throw new IllegalArgumentException("negative cache capacity must be 0 or more, was " + negativeCapacity);
    }
    this.backend = backend;
    this.negativeCapacity = negativeCapacity;
    this.negativeTtlNanos = negativeTtl.toNanos();
    this.nanoTime = nanoTime;
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
    forgetUnknown(id);
    return id;
  }

  @Override
  public Schema getById(int id) {
    Schema cached = schemas.get(id);
    if (cached != null) {
      return cached;
    }
    SchemaRegistryException known = knownUnknown(id);
    if (known != null) {
      throw known;
    }
    Schema schema;
    try {
      schema = backend.getById(id);
    } catch (SchemaRegistryException e) {
      if (e.isNotFound()) {
        rememberUnknown(id, e);
      }
      throw e;
    }
    schemas.put(id, schema);
    return schema;
  }

  private SchemaRegistryException knownUnknown(int id) {
    synchronized (unknown) {
      Unknown entry = unknown.get(id);
      if (entry == null) {
        return null;
      }
      if (nanoTime.getAsLong() - entry.until() >= 0) {
        unknown.remove(id);
        return null;
      }
      return entry.answer();
    }
  }

  private void rememberUnknown(int id, SchemaRegistryException answer) {
    if (negativeCapacity == 0) {
      return;
    }
    synchronized (unknown) {
      unknown.remove(id);
      unknown.put(id, new Unknown(answer, nanoTime.getAsLong() + negativeTtlNanos));
      while (unknown.size() > negativeCapacity) {
        unknown.remove(unknown.keySet().iterator().next());
      }
    }
  }

  private void forgetUnknown(int id) {
    synchronized (unknown) {
      unknown.remove(id);
    }
  }

  /** How many unknown ids are remembered now (expired ones included until next asked for). */
  int unknownIds() {
    synchronized (unknown) {
      return unknown.size();
    }
  }

  @Override
  public RegisteredSchema latest(String subject) {
    RegisteredSchema latest = backend.latest(subject);
    schemas.putIfAbsent(latest.id(), latest.schema());
    forgetUnknown(latest.id());
    return latest;
  }

  @Override
  public void probe() {
    backend.probe();
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
