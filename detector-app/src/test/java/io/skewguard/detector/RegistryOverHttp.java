package io.skewguard.detector;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistryClient;
import io.skewguard.schemas.serde.SchemaRegistryException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;

/**
 * The in-process registry of one {@code mock://} scope, served over HTTP on 127.0.0.1 (the
 * Confluent REST subset SkewGuard's serde uses), so that a detector started as a process of its own
 * shares the registry with the test's {@code mock://SCOPE} serdes.
 */
final class RegistryOverHttp implements AutoCloseable {

    private static final Pattern LATEST = Pattern.compile("/subjects/([^/]+)/versions/latest");
    private static final Pattern VERSIONS = Pattern.compile("/subjects/([^/]+)/versions");
    private static final Pattern BY_ID = Pattern.compile("/schemas/ids/(\\d+)");
    private static final String CONTENT_TYPE = "application/vnd.schemaregistry.v1+json";

    private final ObjectMapper json = new ObjectMapper();
    private final MockSchemaRegistry registry;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(2);

    RegistryOverHttp(String scope) throws IOException {
        this.registry = MockSchemaRegistry.scope(scope);
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            String method = exchange.getRequestMethod();
            Matcher m;
            try {
                if (method.equals("GET") && (m = LATEST.matcher(path)).matches()) {
                    String subject = decode(m.group(1));
                    SchemaRegistryClient.RegisteredSchema latest = registry.latest(subject);
                    answer(exchange, 200, json.createObjectNode().put("subject", subject).put("version", latest.version())
                            .put("id", latest.id()).put("schema", latest.schema().toString()));
                } else if (method.equals("POST") && (m = VERSIONS.matcher(path)).matches()) {
                    String schema = json.readTree(exchange.getRequestBody()).get("schema").asText();
                    int id = registry.register(decode(m.group(1)), new Schema.Parser().parse(schema));
                    answer(exchange, 200, json.createObjectNode().put("id", id));
                } else if (method.equals("GET") && (m = BY_ID.matcher(path)).matches()) {
                    Schema schema = registry.getById(Integer.parseInt(m.group(1)));
                    answer(exchange, 200, json.createObjectNode().put("schema", schema.toString()));
                } else {
                    answer(exchange, 404, json.createObjectNode().put("error_code", 404).put("message", method + " " + path));
                }
            } catch (SchemaRegistryException e) {
                answer(exchange, e.httpStatus(), json.createObjectNode().put("error_code", e.errorCode()).put("message", e.getMessage()));
            }
        }
    }

    private void answer(HttpExchange exchange, int status, ObjectNode body) throws IOException {
        byte[] bytes = json.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
