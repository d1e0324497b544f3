package io.skewguard.schemas.serde;

import java.net.URI;
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
 *   <li>{@value #CONNECT_TIMEOUT_MS}: TCP connect timeout per URL (default 5000).
 *   <li>{@value #REQUEST_TIMEOUT_MS}: whole-request timeout per URL (default 10000).
 * </ul>
 *
 * @param urls registry base URLs, tried in turn
 * @param autoRegister whether the serializer registers its schema
 * @param basicAuthUserInfo {@code user:password}, if the registry needs it
 * @param connectTimeout connect timeout of the HTTP client
 * @param requestTimeout timeout of each HTTP request
 */
public record SchemaRegistrySerdeConfig(
    List<URI> urls,
    boolean autoRegister,
    Optional<String> basicAuthUserInfo,
    Duration connectTimeout,
    Duration requestTimeout) {

  public static final String URL = "schema.registry.url";
  public static final String AUTO_REGISTER = "auto.register.schemas";
  public static final String BASIC_AUTH_SOURCE = "basic.auth.credentials.source";
  public static final String BASIC_AUTH_USER_INFO = "basic.auth.user.info";
  public static final String CONNECT_TIMEOUT_MS = "schema.registry.connect.timeout.ms";
  public static final String REQUEST_TIMEOUT_MS = "schema.registry.request.timeout.ms";

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
    return new SchemaRegistrySerdeConfig(urls, autoRegister, userInfo, connect, request);
  }

  /** True when the URLs name an in-process {@link MockSchemaRegistry} scope. */
  public boolean isMock() {
    return "mock".equals(urls.get(0).getScheme());
  }

  /** Hides the password of the user info so the settings can be logged. */
  @Override
  public String toString() {
    return "SchemaRegistrySerdeConfig[urls=" + urls.stream().map(SchemaRegistrySerdeConfig::redact).toList()
        + ", autoRegister=" + autoRegister
        + ", basicAuth=" + (basicAuthUserInfo.isPresent() ? "yes" : "no")
        + ", connectTimeout=" + connectTimeout
        + ", requestTimeout=" + requestTimeout + "]";
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
    Object source = config.get(BASIC_AUTH_SOURCE);
    Object info = config.get(BASIC_AUTH_USER_INFO);
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
