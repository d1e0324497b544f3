package io.skewguard.schemas.serde;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * A small in-test HTTP server speaking the Confluent REST API v1 subset the client uses, on
 * 127.0.0.1 and a free port, over plain HTTP or over TLS. It records every request so tests can
 * count and inspect them, can require basic authentication, and can be told to answer 500 or to
 * hang.
 */
final class FakeConfluentRegistry implements AutoCloseable {

  record Request(String method, String path, String contentType, String accept, String authorization, String body) {}

  private static final Pattern REGISTER = Pattern.compile("/subjects/([^/]+)/versions");
  private static final Pattern LATEST = Pattern.compile("/subjects/([^/]+)/versions/latest");
  private static final Pattern BY_ID = Pattern.compile("/schemas/ids/(-?\\d+)");

  private final ObjectMapper json = new ObjectMapper();
  private final HttpServer server;
  private final List<Request> requests = new CopyOnWriteArrayList<>();
  private final Map<String, Integer> idsBySchema = new HashMap<>();
  private final Map<Integer, String> schemasById = new HashMap<>();
  private final Map<String, List<Integer>> versions = new HashMap<>();
  private final CountDownLatch released = new CountDownLatch(1);
  private volatile String requiredAuthorization;
  private volatile boolean failing;
  private volatile boolean hanging;
  private volatile boolean bare404;

  /** A registry over plain HTTP. */
  FakeConfluentRegistry() throws IOException {
    this(HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0));
  }

  /** A registry over HTTPS, presenting the certificate of {@code tls}'s key manager. */
  static FakeConfluentRegistry overTls(SSLContext tls) throws IOException {
    HttpsServer https = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    https.setHttpsConfigurator(new HttpsConfigurator(tls));
    return new FakeConfluentRegistry(https);
  }

  private FakeConfluentRegistry(HttpServer server) {
    this.server = server;
    server.createContext("/", this::handle);
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
  }

  String url() {
    return (server instanceof HttpsServer ? "https" : "http") + "://127.0.0.1:" + server.getAddress().getPort();
  }

  void requireBasicAuth(String user, String password) {
    requiredAuthorization = "Basic " + Base64.getEncoder()
        .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** Answer 500 to everything from now on. */
  void failEverything() {
    failing = true;
  }

  /** Answer everything normally again. */
  void recover() {
    failing = false;
    bare404 = false;
  }

  /** Answer 404 without a JSON body to everything, as a web server that is not the registry does. */
  void answerBare404() {
    bare404 = true;
  }

  /** Never answer until closed. */
  void hang() {
    hanging = true;
  }

  List<Request> requests() {
    return List.copyOf(requests);
  }

  long count(String method, String pathPrefix) {
    return requests.stream().filter(r -> r.method().equals(method) && r.path().startsWith(pathPrefix)).count();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
      String path = exchange.getRequestURI().getRawPath();
      var headers = exchange.getRequestHeaders();
      requests.add(new Request(exchange.getRequestMethod(), path, headers.getFirst("Content-Type"),
          headers.getFirst("Accept"), headers.getFirst("Authorization"), body));
      if (hanging) {
        released.await();
        return;
      }
      if (bare404) {
        exchange.sendResponseHeaders(404, -1);
        return;
      }
      if (failing) {
        answer(exchange, 500, error(50001, "Error in the backend data store"));
        return;
      }
      String required = requiredAuthorization;
      if (required != null && !required.equals(headers.getFirst("Authorization"))) {
        answer(exchange, 401, error(40101, "Unauthorized"));
        return;
      }
      route(exchange, path, body);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized void route(HttpExchange exchange, String path, String body) throws IOException {
    String method = exchange.getRequestMethod();
    Matcher m;
    if (method.equals("POST") && (m = REGISTER.matcher(path)).matches()) {
      if (!HttpSchemaRegistryClient.CONTENT_TYPE.equals(exchange.getRequestHeaders().getFirst("Content-Type"))) {
        answer(exchange, 415, error(415, "Unsupported Media Type"));
        return;
      }
      String subject = URLDecoder.decode(m.group(1), StandardCharsets.UTF_8);
      JsonNode request = json.readTree(body);
      if (request == null || !request.hasNonNull("schema")) {
        answer(exchange, 422, error(42201, "Invalid schema"));
        return;
      }
      String schema = request.get("schema").asText();
      List<Integer> earlier = versions.get(subject);
      if (earlier != null && !earlier.isEmpty() && !backwardCompatible(schema, schemasById.get(earlier.get(earlier.size() - 1)))) {
        answer(exchange, 409, error(409, "Schema being registered is incompatible with an earlier schema for subject \""
            + subject + "\""));
        return;
      }
      int id = idsBySchema.computeIfAbsent(schema, s -> idsBySchema.size() + 100);
      schemasById.put(id, schema);
      List<Integer> subjectVersions = versions.computeIfAbsent(subject, s -> new ArrayList<>());
      if (!subjectVersions.contains(id)) {
        subjectVersions.add(id);
      }
      answer(exchange, 200, json.createObjectNode().put("id", id).toString());
    } else if (method.equals("GET") && path.equals("/subjects")) {
      var list = json.createArrayNode();
      versions.keySet().forEach(list::add);
      answer(exchange, 200, list.toString());
    } else if (method.equals("GET") && (m = LATEST.matcher(path)).matches()) {
      String subject = URLDecoder.decode(m.group(1), StandardCharsets.UTF_8);
      List<Integer> subjectVersions = versions.get(subject);
      if (subjectVersions == null) {
        answer(exchange, 404, error(40401, "Subject '" + subject + "' not found."));
        return;
      }
      int id = subjectVersions.get(subjectVersions.size() - 1);
      answer(exchange, 200, json.createObjectNode().put("subject", subject).put("version", subjectVersions.size())
          .put("id", id).put("schema", schemasById.get(id)).toString());
    } else if (method.equals("GET") && (m = BY_ID.matcher(path)).matches()) {
      String schema = schemasById.get(Integer.parseInt(m.group(1)));
      if (schema == null) {
        answer(exchange, 404, error(40403, "Schema " + m.group(1) + " not found"));
        return;
      }
      answer(exchange, 200, json.createObjectNode().put("schema", schema).toString());
    } else {
      answer(exchange, 404, error(404, "HTTP 404 Not Found"));
    }
  }

  /** Confluent's default compatibility: the new schema reads data written with the latest one. */
  private static boolean backwardCompatible(String candidate, String latest) {
    var parser = new org.apache.avro.Schema.Parser();
    org.apache.avro.Schema reader = parser.parse(candidate);
    org.apache.avro.Schema writer = new org.apache.avro.Schema.Parser().parse(latest);
    return org.apache.avro.SchemaCompatibility.checkReaderWriterCompatibility(reader, writer).getType()
        == org.apache.avro.SchemaCompatibility.SchemaCompatibilityType.COMPATIBLE;
  }

  private String error(int code, String message) {
    return json.createObjectNode().put("error_code", code).put("message", message).toString();
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", HttpSchemaRegistryClient.CONTENT_TYPE);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    released.countDown();
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
