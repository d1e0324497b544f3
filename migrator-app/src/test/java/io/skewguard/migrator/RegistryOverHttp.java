package io.skewguard.migrator;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.skewguard.schemas.serde.HttpSchemaRegistryClient;
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
 * The test's in-process registry ({@code mock://scope}) served on 127.0.0.1 in the Confluent REST
 * API subset SkewGuard's client uses, so that an app running in its own JVM and the test's serdes
 * see the same schema ids.
 */
final class RegistryOverHttp implements AutoCloseable {

    private static final Pattern REGISTER = Pattern.compile("/subjects/([^/]+)/versions");
    private static final Pattern LATEST = Pattern.compile("/subjects/([^/]+)/versions/latest");
    private static final Pattern BY_ID = Pattern.compile("/schemas/ids/(\\d+)");

    private final ObjectMapper json = new ObjectMapper();
    private final MockSchemaRegistry registry;
    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(2);

    RegistryOverHttp(String scope) throws IOException {
        this.registry = MockSchemaRegistry.scope(scope);
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    /** The URL the app is given as {@code schema.registry.url}. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getRawPath();
            String method = exchange.getRequestMethod();
            Matcher m;
            try {
                if (method.equals("POST") && (m = REGISTER.matcher(path)).matches()) {
                    String schema = json.readTree(exchange.getRequestBody()).get("schema").asText();
                    int id = registry.register(subject(m), new Schema.Parser().parse(schema));
                    answer(exchange, 200, json.createObjectNode().put("id", id));
                } else if (method.equals("GET") && (m = LATEST.matcher(path)).matches()) {
                    SchemaRegistryClient.RegisteredSchema latest = registry.latest(subject(m));
                    answer(exchange, 200, json.createObjectNode().put("subject", subject(m)).put("version", latest.version())
                            .put("id", latest.id()).put("schema", latest.schema().toString()));
                } else if (method.equals("GET") && (m = BY_ID.matcher(path)).matches()) {
                    answer(exchange, 200, json.createObjectNode()
                            .put("schema", registry.getById(Integer.parseInt(m.group(1))).toString()));
                } else {
                    answer(exchange, 404, error(404, "no route " + method + " " + path));
                }
            } catch (SchemaRegistryException e) {
                answer(exchange, e.httpStatus(), error(e.errorCode(), e.getMessage()));
            }
        }
    }

    private static String subject(Matcher m) {
        return URLDecoder.decode(m.group(1), StandardCharsets.UTF_8);
    }

    private ObjectNode error(int code, String message) {
        return json.createObjectNode().put("error_code", code).put("message", message);
    }

    private static void answer(HttpExchange exchange, int status, ObjectNode body) throws IOException {
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", HttpSchemaRegistryClient.CONTENT_TYPE);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
