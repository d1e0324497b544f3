package io.skewguard.schemas.serde;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;

/**
 * The serde's settings, parsed once from the Kafka-style configuration map.
 *
 * <p>Keys follow Confluent's serializer so that an existing client configuration works unchanged;
 * values may be strings (from a properties file) or typed (Boolean, Number).
 *
 * <ul>
 *   <li>{@value #URL}: one or more comma-separated base URLs, all {@code mock://scope} or all
 *       {@code http(s)://host:port[/path]}; required.
 *   <li>{@value #AUTO_REGISTER}: register the writer schema on first use (default {@code true});
 *       when {@code false}, the latest version of the subject must be exactly the writer schema.
 *   <li>{@value #BASIC_AUTH_SOURCE}: {@code USER_INFO} (use {@value #BASIC_AUTH_USER_INFO}) or
 *       {@code URL} (use the user info of the URL); unset means no authentication unless
 *       {@value #BASIC_AUTH_USER_INFO} is given.
 *   <li>{@value #BASIC_AUTH_USER_INFO}: {@code user:password} for HTTP basic authentication.
 *       Both basic-auth keys may also be given with the {@code schema.registry.} prefix, as
 *       Confluent's clients accept them.
 *   <li>{@value #CONNECT_TIMEOUT_MS}: TCP connect timeout per URL (default 5000).
 *   <li>{@value #REQUEST_TIMEOUT_MS}: whole-request timeout per URL (default 10000).
 *   <li>{@value #TRUSTSTORE_LOCATION}, {@value #TRUSTSTORE_PASSWORD}, {@value #TRUSTSTORE_TYPE}
 *       ({@code JKS}, the default, or {@code PKCS12}): the certificates an {@code https://}
 *       registry is trusted by, instead of the JDK's default CAs (a private CA, say).
 *   <li>{@value #SPECIFIC_READER}: a deserializer built without a class reads the generated class
 *       the writer schema names when {@code true}, a {@code GenericRecord} when {@code false}
 *       (default, as Confluent's).
 * </ul>
 *
 * <p>Confluent keys whose other values this serde cannot honour fail instead of being ignored,
 * because ignoring them would silently write under other subjects or with other schemas:
 * {@value #USE_LATEST_VERSION}{@code =true}, a {@value #KEY_SUBJECT_STRATEGY} or
 * {@value #VALUE_SUBJECT_STRATEGY} other than the topic-name strategy, a client keystore
 * ({@code schema.registry.ssl.keystore.*}, mutual TLS) and an empty
 * {@value #ENDPOINT_IDENTIFICATION} (turning hostname verification off).
 *
 * @param urls registry base URLs, tried in turn
 * @param autoRegister whether the serializer registers its schema
 * @param basicAuthUserInfo {@code user:password}, if the registry needs it
 * @param connectTimeout connect timeout of the HTTP client
 * @param requestTimeout timeout of each HTTP request
 * @param truststore the certificates to trust for https, if not the JDK's default ones
 * @param specificReader whether a class-less deserializer reads generated classes
 */
public record SchemaRegistrySerdeConfig(
    List<URI> urls,
    boolean autoRegister,
    Optional<String> basicAuthUserInfo,
    Duration connectTimeout,
    Duration requestTimeout,
    Optional<Truststore> truststore,
    boolean specificReader) {

  public static final String URL = "schema.registry.url";
  public static final String AUTO_REGISTER = "auto.register.schemas";
  public static final String BASIC_AUTH_SOURCE = "basic.auth.credentials.source";
  public static final String BASIC_AUTH_USER_INFO = "basic.auth.user.info";
  public static final String CONNECT_TIMEOUT_MS = "schema.registry.connect.timeout.ms";
  public static final String REQUEST_TIMEOUT_MS = "schema.registry.request.timeout.ms";
  public static final String TRUSTSTORE_LOCATION = "schema.registry.ssl.truststore.location";
  public static final String TRUSTSTORE_PASSWORD = "schema.registry.ssl.truststore.password";
  public static final String TRUSTSTORE_TYPE = "schema.registry.ssl.truststore.type";
  public static final String SPECIFIC_READER = "specific.avro.reader";
  public static final String USE_LATEST_VERSION = "use.latest.version";
  public static final String KEY_SUBJECT_STRATEGY = "key.subject.name.strategy";
  public static final String VALUE_SUBJECT_STRATEGY = "value.subject.name.strategy";
  public static final String ENDPOINT_IDENTIFICATION = "schema.registry.ssl.endpoint.identification.algorithm";

  /** Prefix under which Confluent's clients also accept the registry client's own keys. */
  static final String CLIENT_PREFIX = "schema.registry.";
  static final String KEYSTORE_PREFIX = "schema.registry.ssl.keystore.";

  /**
   * Every key the serde reads or refuses with a reason: what an app hands its serdes (and not its
   * Kafka clients) from its settings.
   */
  public static final List<String> KEYS = List.of(URL, AUTO_REGISTER, BASIC_AUTH_SOURCE, BASIC_AUTH_USER_INFO,
      CLIENT_PREFIX + BASIC_AUTH_SOURCE, CLIENT_PREFIX + BASIC_AUTH_USER_INFO, CONNECT_TIMEOUT_MS, REQUEST_TIMEOUT_MS,
      TRUSTSTORE_LOCATION, TRUSTSTORE_PASSWORD, TRUSTSTORE_TYPE, SPECIFIC_READER, USE_LATEST_VERSION,
      KEY_SUBJECT_STRATEGY, VALUE_SUBJECT_STRATEGY, ENDPOINT_IDENTIFICATION,
      KEYSTORE_PREFIX + "location", KEYSTORE_PREFIX + "password", KEYSTORE_PREFIX + "type");

  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** Keeps the record's invariants whichever way it is built. */
  public SchemaRegistrySerdeConfig {
    urls = List.copyOf(urls);
    if (urls.isEmpty()) {
      throw new ConfigException(URL, "", "at least one schema registry URL is required");
    }
    if (connectTimeout.isNegative() || connectTimeout.isZero()) {
      throw new ConfigException(CONNECT_TIMEOUT_MS, connectTimeout.toMillis(), "must be > 0");
    }
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new ConfigException(REQUEST_TIMEOUT_MS, requestTimeout.toMillis(), "must be > 0");
    }
    basicAuthUserInfo = basicAuthUserInfo == null ? Optional.empty() : basicAuthUserInfo;
    truststore = truststore == null ? Optional.empty() : truststore;
  }

  /**
   * A truststore file of the certificates to trust.
   *
   * @param location the file
   * @param password its password, if it has one
   * @param type {@code JKS} or {@code PKCS12}
   */
  public record Truststore(Path location, Optional<String> password, String type) {

    /** The types {@link java.security.KeyStore} reads on every JDK. */
    public static final List<String> TYPES = List.of("JKS", "PKCS12");

    /** Keeps the type to one of {@link #TYPES}. */
    public Truststore {
      if (!TYPES.contains(type)) {
        throw new ConfigException(TRUSTSTORE_TYPE, type, "supported types are " + String.join(" and ", TYPES));
      }
      password = password == null ? Optional.empty() : password;
    }

    /** Never prints the password. */
    @Override
    public String toString() {
      return "Truststore[" + location + ", " + type + (password.isPresent() ? ", password ***" : "") + "]";
    }
  }

  /**
   * Parses the serde settings out of a client configuration, ignoring keys it does not know (the
   * same map usually also holds the producer's or the Streams app's own keys).
   *
   * @throws ConfigException naming the key and value that are wrong
   */
  public static SchemaRegistrySerdeConfig parse(Map<String, ?> config) {
    Object rawUrl = config.get(URL);
    if (rawUrl == null || rawUrl.toString().isBlank()) {
      throw new ConfigException(URL, rawUrl, "the schema registry URL is required (mock://scope or http(s)://host:port)");
    }
    List<URI> urls = new ArrayList<>();
    for (String part : rawUrl.toString().split(",")) {
      String trimmed = part.trim();
      if (trimmed.isEmpty()) {
        continue;
      }
      urls.add(uri(trimmed, rawUrl));
    }
    checkSchemes(urls, rawUrl);

    boolean autoRegister = bool(config, AUTO_REGISTER, true);
    Optional<String> userInfo = userInfo(config, urls);
    Duration connect = millis(config, CONNECT_TIMEOUT_MS, DEFAULT_CONNECT_TIMEOUT);
    Duration request = millis(config, REQUEST_TIMEOUT_MS, DEFAULT_REQUEST_TIMEOUT);
    Optional<Truststore> truststore = truststore(config);
    boolean specificReader = bool(config, SPECIFIC_READER, false);
    refuseWhatCannotBeHonoured(config);
    return new SchemaRegistrySerdeConfig(urls, autoRegister, userInfo, connect, request, truststore, specificReader);
  }

  /** True when the URLs name an in-process {@link MockSchemaRegistry} scope. */
  public boolean isMock() {
    return "mock".equals(urls.get(0).getScheme());
  }

  /** Hides the user info and every password so the settings can be logged. */
  @Override
  public String toString() {
    return "SchemaRegistrySerdeConfig[urls=" + urls.stream().map(SchemaRegistrySerdeConfig::redact).toList()
        + ", autoRegister=" + autoRegister
        + ", basicAuth=" + (basicAuthUserInfo.isPresent() ? "yes" : "no")
        + ", connectTimeout=" + connectTimeout
        + ", requestTimeout=" + requestTimeout
        + ", truststore=" + truststore.map(Truststore::toString).orElse("JDK default")
        + ", specificReader=" + specificReader + "]";
  }

  static String redact(URI url) {
    if (url.getRawUserInfo() == null) {
      return url.toString();
    }
    return url.toString().replace(url.getRawUserInfo() + "@", "***@");
  }

  private static URI uri(String text, Object whole) {
    URI uri;
    try {
      uri = URI.create(text);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(URL, whole, "'" + text + "' is not a URL: " + e.getMessage());
    }
    String scheme = uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT);
    if (scheme == null || !(scheme.equals("mock") || scheme.equals("http") || scheme.equals("https"))) {
      throw new ConfigException(URL, whole,
          "unsupported URL scheme '" + uri.getScheme() + "' in '" + text + "': use mock://scope, http:// or https://");
    }
    if (scheme.equals("mock")) {
      if (uri.getAuthority() == null || uri.getAuthority().isBlank()) {
        throw new ConfigException(URL, whole, "'" + text + "' names no scope: use mock://<scope>");
      }
    } else if (uri.getHost() == null) {
      throw new ConfigException(URL, whole, "'" + text + "' names no host");
    }
    return uri;
  }

  private static void checkSchemes(List<URI> urls, Object whole) {
    if (urls.isEmpty()) {
      throw new ConfigException(URL, whole, "no URL given");
    }
    long mocks = urls.stream().filter(u -> "mock".equalsIgnoreCase(u.getScheme())).count();
    if (mocks > 0 && mocks < urls.size()) {
      throw new ConfigException(URL, whole, "cannot mix mock:// and http(s):// URLs");
    }
    if (mocks > 1) {
      throw new ConfigException(URL, whole, "give one mock:// scope, not several");
    }
  }

  private static Optional<String> userInfo(Map<String, ?> config, List<URI> urls) {
    Object source = valueOrPrefixed(config, BASIC_AUTH_SOURCE);
    Object info = valueOrPrefixed(config, BASIC_AUTH_USER_INFO);
    String sourceText = source == null ? "" : source.toString().trim().toUpperCase(Locale.ROOT);
    switch (sourceText) {
      case "", "USER_INFO" -> {
        if (info == null || info.toString().isEmpty()) {
          if (sourceText.equals("USER_INFO")) {
            throw new ConfigException(BASIC_AUTH_USER_INFO, null, "required when " + BASIC_AUTH_SOURCE + "=USER_INFO");
          }
          return Optional.empty();
        }
        String text = info.toString();
        if (!text.contains(":")) {
          throw new ConfigException(BASIC_AUTH_USER_INFO, "***", "must be user:password");
        }
        return Optional.of(text);
      }
      case "URL" -> {
        String fromUrl = urls.get(0).getUserInfo();
        if (fromUrl == null) {
          throw new ConfigException(URL, redact(urls.get(0)), "has no user:password@ although " + BASIC_AUTH_SOURCE + "=URL");
        }
        return Optional.of(fromUrl);
      }
      default -> throw new ConfigException(BASIC_AUTH_SOURCE, source, "supported sources are USER_INFO and URL");
    }
  }

  /** The key's value, else the value of {@code schema.registry.<key>}. */
  private static Object valueOrPrefixed(Map<String, ?> config, String key) {
    Object value = config.get(key);
    return value != null ? value : config.get(CLIENT_PREFIX + key);
  }

  private static Optional<Truststore> truststore(Map<String, ?> config) {
    Object location = config.get(TRUSTSTORE_LOCATION);
    Object password = config.get(TRUSTSTORE_PASSWORD);
    Object type = config.get(TRUSTSTORE_TYPE);
    if (location == null || location.toString().isBlank()) {
      if (password != null || type != null) {
        throw new ConfigException(TRUSTSTORE_LOCATION, location,
            "required when " + (password != null ? TRUSTSTORE_PASSWORD : TRUSTSTORE_TYPE) + " is set");
      }
      return Optional.empty();
    }
    Path path;
    try {
      path = Path.of(location.toString().trim());
    } catch (InvalidPathException e) {
      throw new ConfigException(TRUSTSTORE_LOCATION, location, "is not a file path: " + e.getMessage());
    }
    if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
      throw new ConfigException(TRUSTSTORE_LOCATION, location, "is not a readable file");
    }
    String typeText = type == null || type.toString().isBlank() ? "JKS" : type.toString().trim().toUpperCase(Locale.ROOT);
    Optional<String> passwordText =
        password == null || password.toString().isEmpty() ? Optional.empty() : Optional.of(passwordText(password));
    return Optional.of(new Truststore(path, passwordText, typeText));
  }

  /** Kafka's typed configs hand passwords over as {@code Password}, whose toString hides them. */
  private static String passwordText(Object password) {
    return password instanceof org.apache.kafka.common.config.types.Password p ? p.value() : password.toString();
  }

  private static void refuseWhatCannotBeHonoured(Map<String, ?> config) {
    if (bool(config, USE_LATEST_VERSION, false)) {
      throw new ConfigException(USE_LATEST_VERSION, config.get(USE_LATEST_VERSION),
          "not supported: the writer schema is always the record's own; with " + AUTO_REGISTER
              + "=false the subject's latest version must already be that schema");
    }
    for (String key : List.of(KEY_SUBJECT_STRATEGY, VALUE_SUBJECT_STRATEGY)) {
      Object strategy = config.get(key);
      String name = strategy instanceof Class<?> c ? c.getName() : strategy == null ? null : strategy.toString().trim();
      if (name != null && !name.equals("TopicNameStrategy") && !name.endsWith(".TopicNameStrategy")) {
        throw new ConfigException(key, strategy,
            "only the topic-name strategy (subjects <topic>-key and <topic>-value) is supported");
      }
    }
    for (String key : config.keySet()) {
      if (key.startsWith(KEYSTORE_PREFIX) || key.equals("schema.registry.ssl.key.password")) {
        throw new ConfigException(key, "***",
            "client certificates (mutual TLS) to the schema registry are not supported; use basic authentication");
      }
    }
    Object identification = config.get(ENDPOINT_IDENTIFICATION);
    if (identification != null && !identification.toString().trim().equalsIgnoreCase("https")) {
      throw new ConfigException(ENDPOINT_IDENTIFICATION, identification,
          "hostname verification cannot be turned off: give the registry a certificate that names its host");
    }
  }

  private static boolean bool(Map<String, ?> config, String key, boolean fallback) {
    Object value = config.get(key);
    if (value == null) {
      return fallback;
    }
    if (value instanceof Boolean b) {
      return b;
    }
    String text = value.toString().trim();
    if (text.equalsIgnoreCase("true")) {
      return true;
    }
    if (text.equalsIgnoreCase("false")) {
      return false;
    }
    throw new ConfigException(key, value, "must be true or false");
  }

  private static Duration millis(Map<String, ?> config, String key, Duration fallback) {
    Object value = config.get(key);
    if (value == null) {
      return fallback;
    }
    long ms;
    if (value instanceof Number n) {
      ms = n.longValue();
    } else {
      try {
        ms = Long.parseLong(value.toString().trim());
      } catch (NumberFormatException e) {
        throw new ConfigException(key, value, "must be a whole number of milliseconds");
      }
    }
    if (ms <= 0) {
      throw new ConfigException(key, value, "must be > 0 milliseconds");
    }
    return Duration.ofMillis(ms);
  }
}
