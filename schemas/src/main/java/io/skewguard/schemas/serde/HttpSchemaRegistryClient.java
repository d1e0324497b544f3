package io.skewguard.schemas.serde;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Client of the Confluent Schema Registry REST API v1, the subset the serde needs:
 *
 * <ul>
 *   <li>{@code POST /subjects/{subject}/versions} with {@code {"schema": "..."}}, answering
 *       {@code {"id": N}};
 *   <li>{@code GET /schemas/ids/{id}}, answering {@code {"schema": "..."}};
 *   <li>{@code GET /subjects/{subject}/versions/latest}, answering
 *       {@code {"subject", "version", "id", "schema"}}.
 * </ul>
 *
 * <p>Uses the JDK's {@link HttpClient} so that the schemas jar adds no HTTP dependency to every
 * app. Several base URLs are tried in turn: a URL that cannot be reached, times out, or answers as
 * {@link #isOutage} says gives way to the next; when none is left the request fails with a
 * {@link RegistryUnavailableException} (the registry is unavailable, the record is not at fault).
 * Any other 4xx answer is the registry's verdict, a {@link SchemaRegistryException} carrying the
 * URL, the HTTP status and the registry's {@code error_code} and {@code message}.
 *
 * <p>An {@code https://} registry is trusted by the JDK's default CAs, or, when the settings name a
 * truststore, by the certificates in it alone. Hostname verification stays on.
 *
 * <p>No caching here; {@link SchemaRegistryClient#forConfig} puts a {@link
 * CachingSchemaRegistryClient} in front.
 */
public final class HttpSchemaRegistryClient implements SchemaRegistryClient {

  /** Content type of the Confluent REST API v1, sent as Content-Type and Accept. */
  public static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

  private static final Logger LOG = LoggerFactory.getLogger(HttpSchemaRegistryClient.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<String> baseUrls;
  private final Optional<String> authorization;
  private final Duration requestTimeout;
  private final HttpClient http;

  /** A client of the registries named by {@code config}'s http(s) URLs. */
  public HttpSchemaRegistryClient(SchemaRegistrySerdeConfig config) {
    List<String> bases = new ArrayList<>();
    for (URI url : config.urls()) {
      bases.add(withoutUserInfo(url));
    }
    this.baseUrls = List.copyOf(bases);
    this.authorization = config.basicAuthUserInfo().map(info ->
        "Basic " + Base64.getEncoder().encodeToString(info.getBytes(StandardCharsets.UTF_8)));
    this.requestTimeout = config.requestTimeout();
    HttpClient.Builder builder = HttpClient.newBuilder()
        .connectTimeout(config.connectTimeout())
        // a redirected POST may come back as a GET and "succeed" wrongly: report 3xx as an error
        .followRedirects(HttpClient.Redirect.NEVER);
    config.truststore().ifPresent(truststore -> builder.sslContext(sslContext(truststore)));
    this.http = builder.build();
  }

  /**
   * A TLS context trusting exactly the certificates of the truststore.
   *
   * @throws ConfigException naming the truststore key, if the file cannot be read as that type
   *     with that password
   */
  static SSLContext sslContext(SchemaRegistrySerdeConfig.Truststore truststore) {
    try {
      KeyStore store = KeyStore.getInstance(truststore.type());
      char[] password = truststore.password().map(String::toCharArray).orElse(null);
      try (InputStream in = Files.newInputStream(truststore.location())) {
        store.load(in, password);
      }
      if (store.size() == 0) {
        throw new ConfigException(SchemaRegistrySerdeConfig.TRUSTSTORE_LOCATION, truststore.location().toString(),
            "the truststore holds no certificate");
      }
      TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, trust.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new ConfigException(SchemaRegistrySerdeConfig.TRUSTSTORE_LOCATION, truststore.location().toString(),
          "cannot read it as a " + truststore.type() + " truststore"
              + (truststore.password().isPresent() ? " with the given " + SchemaRegistrySerdeConfig.TRUSTSTORE_PASSWORD : "")
              + ": " + e.getMessage());
    }
  }

  @Override
  public int register(String subject, Schema schema) {
    ObjectNode body = JSON.createObjectNode().put("schema", schema.toString());
    JsonNode answer = send("POST", "/subjects/" + encode(subject) + "/versions", body.toString());
    return intField(answer, "id", "POST /subjects/" + subject + "/versions");
  }

  @Override
  public Schema getById(int id) {
    JsonNode answer = send("GET", "/schemas/ids/" + id, null);
    return schemaField(answer, "GET /schemas/ids/" + id);
  }

  @Override
  public RegisteredSchema latest(String subject) {
    String what = "GET /subjects/" + subject + "/versions/latest";
    JsonNode answer = send("GET", "/subjects/" + encode(subject) + "/versions/latest", null);
    return new RegisteredSchema(intField(answer, "id", what), intField(answer, "version", what), schemaField(answer, what));
  }

  /**
   * Asks the registry for its subjects ({@code GET /subjects}), the cheapest request that only a
   * Confluent-API registry answers with 200: the start-up check of the apps.
   *
   * @throws RegistryUnavailableException if no URL answers, or one answers 404 without a registry
   *     error code ({@link RegistryUnavailableException#wrongBasePath()})
   */
  @Override
  public void probe() {
    JsonNode answer = send("GET", "/subjects", null);
    if (answer == null || !answer.isArray()) {
      throw new RegistryUnavailableException(toString(),
          "GET /subjects answered 200 but not with a list of subjects (" + answer + "): is this a schema registry?",
          true, null);
    }
  }

  private JsonNode send(String method, String path, String body) {
    List<String> failures = new ArrayList<>();
    boolean wrongBasePath = false;
    for (String base : baseUrls) {
      URI uri = URI.create(base + path);
      HttpRequest.Builder request = HttpRequest.newBuilder(uri)
          .timeout(requestTimeout)
          .header("Accept", CONTENT_TYPE);
      authorization.ifPresent(value -> request.header("Authorization", value));
      if (body != null) {
        request.header("Content-Type", CONTENT_TYPE);
        request.method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
      } else {
        request.method(method, HttpRequest.BodyPublishers.noBody());
      }
      HttpResponse<String> response;
      try {
        response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      } catch (IOException e) {
        // one line per outage is RegistryOutage's; per request it is noise
        LOG.debug("schema registry {} {} failed: {}", method, uri, e.toString());
        failures.add(uri + ": " + e + untrustedHint(e));
        continue;
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        // a stop, not an answer about the record: it must not be dead-lettered either
        throw new RegistryUnavailableException(toString(), "interrupted during " + method + " " + uri, false, e);
      }
      int status = response.statusCode();
      if (status >= 200 && status < 300) {
        RegistryOutage.answered(toString());
        return parse(response.body(), method + " " + uri, status);
      }
      SchemaRegistryException refusal = refusal(method, uri, status, response.body());
      if (isOutage(status, refusal.errorCode())) {
        LOG.debug("{}", refusal.getMessage());
        boolean bare404 = status == 404 || (status >= 300 && status < 400);
        wrongBasePath |= bare404;
        failures.add(refusal.getMessage() + (bare404 ? WRONG_BASE_PATH_HINT : ""));
        continue;
      }
      RegistryOutage.answered(toString());
      throw refusal;
    }
    RegistryUnavailableException outage = new RegistryUnavailableException(toString(),
        "schema registry " + this + ": " + method + " " + path + " failed on every URL: " + String.join("; ", failures),
        wrongBasePath, null);
    RegistryOutage.failed(outage);
    throw outage;
  }

  private static final String WRONG_BASE_PATH_HINT =
      " (not an answer of the registry API: wrong base path in " + SchemaRegistrySerdeConfig.URL + "?)";

  /**
   * Whether an answer says the registry cannot serve now (or not at this URL), rather than
   * anything about the request: 5xx, 408 and 429 (come back later), 401 and 403 (credentials the
   * registry does not take, which an operator fixes without touching the records), a redirect, and a
   * 404 without one of the registry's "not found" error codes (something else answers there).
   */
  static boolean isOutage(int status, int errorCode) {
    if (status >= 500 || status == 408 || status == 429 || status == 401 || status == 403) {
      return true;
    }
    if (status >= 300 && status < 400) {
      return true;
    }
    return status == 404 && !SchemaRegistryException.isNotFoundCode(errorCode);
  }

  /** What to do about a certificate the client does not trust, the usual https setup mistake. */
  private static String untrustedHint(IOException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SSLHandshakeException) {
        return " (the registry's TLS certificate is not trusted or does not name the host: "
            + "set " + SchemaRegistrySerdeConfig.TRUSTSTORE_LOCATION + " to a truststore holding its CA)";
      }
    }
    return "";
  }

  private static SchemaRegistryException refusal(String method, URI uri, int status, String body) {
    int errorCode = SchemaRegistryException.NO_ANSWER;
    String message = body == null ? "" : body.strip();
    try {
      JsonNode json = JSON.readTree(body);
      if (json != null && json.isObject()) {
        if (json.path("error_code").canConvertToInt()) {
          errorCode = json.get("error_code").asInt();
        }
        if (json.hasNonNull("message")) {
          message = json.get("message").asText();
        }
      }
    } catch (IOException e) {
      // not JSON (a proxy's HTML page, say): keep the raw body as the message
    }
    if (message.length() > 500) {
      message = message.substring(0, 500) + "...";
    }
    return new SchemaRegistryException(
        "schema registry " + method + " " + uri + " answered HTTP " + status
            + (errorCode == SchemaRegistryException.NO_ANSWER ? "" : " error_code " + errorCode)
            + ": " + message,
        status, errorCode);
  }

  private static JsonNode parse(String body, String what, int status) {
    try {
      return JSON.readTree(body);
    } catch (IOException e) {
      throw new SchemaRegistryException(what + " answered HTTP " + status + " with a body that is not JSON: " + e.getMessage(),
          status, SchemaRegistryException.NO_ANSWER);
    }
  }

  private static int intField(JsonNode answer, String field, String what) {
    JsonNode node = answer == null ? null : answer.get(field);
    if (node == null || !node.canConvertToInt()) {
      throw new SchemaRegistryException(what + " answered without an integer \"" + field + "\": " + answer,
          200, SchemaRegistryException.NO_ANSWER);
    }
    return node.asInt();
  }

  private static Schema schemaField(JsonNode answer, String what) {
    JsonNode node = answer == null ? null : answer.get("schema");
    if (node == null || !node.isTextual()) {
      throw new SchemaRegistryException(what + " answered without a \"schema\" string: " + answer,
          200, SchemaRegistryException.NO_ANSWER);
    }
    try {
      return new Schema.Parser().parse(node.asText());
    } catch (SchemaParseException e) {
      throw new SchemaRegistryException(what + " answered a schema that is not Avro: " + e.getMessage(),
          200, SchemaRegistryException.NO_ANSWER);
    }
  }

  private static String encode(String subject) {
    return URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String withoutUserInfo(URI url) {
    String text = url.toString();
    if (url.getRawUserInfo() != null) {
      text = text.replace(url.getRawUserInfo() + "@", "");
    }
    while (text.endsWith("/")) {
      text = text.substring(0, text.length() - 1);
    }
    return text;
  }

  @Override
  public String toString() {
    return String.join(",", baseUrls);
  }
}
