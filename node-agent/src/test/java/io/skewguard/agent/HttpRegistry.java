package io.skewguard.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistryClient.RegisteredSchema;
import io.skewguard.schemas.serde.SchemaRegistryException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;

/**
 * A schema registry that an agent in a child JVM and the test share: the test JVM's in-process
 * {@link MockSchemaRegistry} served over the Confluent REST API v1 subset the serde uses, on
 * 127.0.0.1 and a free port. Serdes in the test use {@link #mockUrl()}, the child
 * {@link #httpUrl()}: both see the same ids.
 */
final class HttpRegistry implements AutoCloseable {

    private static final Pattern REGISTER = Pattern.compile("/subjects/([^/]+)/versions");
    private static final Pattern LATEST = Pattern.compile("/subjects/([^/]+)/versions/latest");
    private static final Pattern BY_ID = Pattern.compile("/schemas/ids/(-?\\d+)");

    private final ObjectMapper json = new ObjectMapper();
    private final String scope = "agent-http-" + UUID.randomUUID();
    private final MockSchemaRegistry registry = MockSchemaRegistry.scope(scope);
    private final HttpServer server;

    HttpRegistry() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    String mockUrl() {
        return "mock://" + scope;
    }

    String httpUrl() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getRawPath();
            String method = exchange.getRequestMethod();
            Matcher m;
            try {
                if (method.equals("POST") && (m = REGISTER.matcher(path)).matches()) {
                    JsonNode body = json.readTree(exchange.getRequestBody());
                    Schema schema = new Schema.Parser().parse(body.get("schema").asText());
                    answer(exchange, 200, json.createObjectNode().put("id", registry.register(subject(m), schema)));
                } else if (method.equals("GET") && (m = LATEST.matcher(path)).matches()) {
                    RegisteredSchema latest = registry.latest(subject(m));
                    answer(exchange, 200, json.createObjectNode().put("subject", subject(m)).put("id", latest.id())
                            .put("version", latest.version()).put("schema", latest.schema().toString()));
                } else if (method.equals("GET") && (m = BY_ID.matcher(path)).matches()) {
                    Schema schema = registry.getById(Integer.parseInt(m.group(1)));
                    answer(exchange, 200, json.createObjectNode().put("schema", schema.toString()));
                } else {
                    answer(exchange, 404, error(404, "no such resource " + method + " " + path));
                }
            } catch (SchemaRegistryException e) {
                int status = e.httpStatus() > 0 ? e.httpStatus() : 500;
                answer(exchange, status, error(e.errorCode(), e.getMessage()));
            }
        }
    }

    private static String subject(Matcher m) {
        return URLDecoder.decode(m.group(1), StandardCharsets.UTF_8);
    }

    private ObjectNode error(int code, String message) {
        return json.createObjectNode().put("error_code", code).put("message", message);
    }

    private void answer(HttpExchange exchange, int status, ObjectNode body) throws IOException {
        byte[] bytes = json.writeValueAsBytes(body);
        exchange.getResponseHeaders().set("Content-Type", "application/vnd.schemaregistry.v1+json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        MockSchemaRegistry.drop(scope);
    }
}
