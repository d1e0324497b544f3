package io.skewguard.schemas.serde;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-process schema registry, one per scope name, for tests and the embedded stack
 * ({@code schema.registry.url=mock://<scope>}).
 *
 * <p>Every serde configured with the same scope in the same JVM shares one registry, the way every
 * app of a deployment shares one real registry: what a producer registers, a consumer can fetch.
 * Different scopes are fully apart, so parallel tests use different scopes and
 * {@link #drop(String)} theirs when done.
 *
 * <p>Behaves like Confluent's registry where the serde can tell: ids are unique within the scope and
 * start at 1; the same schema gets the same id in every subject; registering it again under the
 * same subject returns the existing id and adds no version; a new version must be BACKWARD
 * compatible with the latest one (the compatibility SkewGuard's topics keep), else error 409; unknown ids and subjects
 * give Confluent's error codes 40403 and 40401.
 */
public final class MockSchemaRegistry implements SchemaRegistryClient {

  private static final Logger LOG = LoggerFactory.getLogger(MockSchemaRegistry.class);
  private static final ConcurrentMap<String, MockSchemaRegistry> SCOPES = new ConcurrentHashMap<>();

  private final String scope;
  private final Map<String, Integer> idsBySchemaText = new HashMap<>();
  private final Map<Integer, Schema> schemasById = new HashMap<>();
  private final Map<String, List<Integer>> versionsBySubject = new HashMap<>();
  private final AtomicLong requests = new AtomicLong();

  private MockSchemaRegistry(String scope) {
    this.scope = scope;
  }

  /** The registry of this scope, created empty on first use. */
  public static MockSchemaRegistry scope(String scope) {
    Objects.requireNonNull(scope, "scope");
    return SCOPES.computeIfAbsent(scope, MockSchemaRegistry::new);
  }

  /**
   * Forgets the registry of this scope. Clients still holding it keep working on the old content;
   * the next {@link #scope(String)} starts empty.
   */
  public static void drop(String scope) {
    SCOPES.remove(scope);
  }

  @Override
  public synchronized int register(String subject, Schema schema) {
    requests.incrementAndGet();
    String text = schema.toString();
    List<Integer> versions = versionsBySubject.computeIfAbsent(subject, s -> new ArrayList<>());
    Integer known = idsBySchemaText.get(text);
    if (known != null && versions.contains(known)) {
      return known;
    }
    if (!versions.isEmpty()) {
      Schema latest = schemasById.get(versions.get(versions.size() - 1));
      SchemaCompatibility.SchemaPairCompatibility result =
          SchemaCompatibility.checkReaderWriterCompatibility(schema, latest);
      if (result.getType() != SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE) {
        throw new SchemaRegistryException(
            "mock://" + scope + ": schema being registered under subject " + subject
                + " is not BACKWARD compatible with version " + versions.size() + ": " + result.getDescription(),
            409, SchemaRegistryException.INCOMPATIBLE_SCHEMA);
      }
    }
    int id = known != null ? known : schemasById.size() + 1;
    idsBySchemaText.put(text, id);
    schemasById.put(id, schema);
    versions.add(id);
    LOG.debug("mock://{}: registered schema id {} as version {} of subject {}", scope, id, versions.size(), subject);
    return id;
  }

  @Override
  public synchronized Schema getById(int id) {
    requests.incrementAndGet();
    Schema schema = schemasById.get(id);
    if (schema == null) {
      throw new SchemaRegistryException(
          "mock://" + scope + ": schema " + id + " not found", 404, SchemaRegistryException.SCHEMA_NOT_FOUND);
    }
    return schema;
  }

  @Override
  public synchronized RegisteredSchema latest(String subject) {
    requests.incrementAndGet();
    List<Integer> versions = versionsBySubject.get(subject);
    if (versions == null || versions.isEmpty()) {
      throw new SchemaRegistryException(
          "mock://" + scope + ": subject " + subject + " not found", 404, SchemaRegistryException.SUBJECT_NOT_FOUND);
    }
    int id = versions.get(versions.size() - 1);
    return new RegisteredSchema(id, versions.size(), schemasById.get(id));
  }

  /** Subjects registered so far, for assertions in tests. */
  public synchronized List<String> subjects() {
    return versionsBySubject.entrySet().stream()
        .filter(e -> !e.getValue().isEmpty())
        .map(Map.Entry::getKey)
        .sorted()
        .toList();
  }

  /**
   * How many requests reached this registry, so tests can prove that the client-side cache spares
   * it the repeated ones.
   */
  public long requestCount() {
    return requests.get();
  }

  @Override
  public String toString() {
    return "mock://" + scope;
  }
}
