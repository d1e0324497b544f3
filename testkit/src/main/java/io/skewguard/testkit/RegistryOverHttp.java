package io.skewguard.testkit;

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
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.avro.Schema;

/**
 * A test's in-process schema registry ({@code mock://SCOPE}, {@link MockSchemaRegistry}) served
 * over HTTP on 127.0.0.1, in the subset of the Confluent REST API v1 that SkewGuard's
 * {@link HttpSchemaRegistryClient} uses (register a schema, fetch one by id, a subject's latest
 * version). An application under test started as a process of its own is given {@link #url()} as
 * {@code schema.registry.url}, while the test's own serdes keep using {@code mock://SCOPE}: both
 * see the same subjects and schema ids.
 *
 * <p>With {@link #serve(String, String) basic authentication}, every request must carry
 * {@code Authorization: Basic} with exactly the given {@code user:password}; any other request is
 * answered 401 (and counted, see {@link #refusedRequests()}), as a Confluent registry with basic
 * authentication answers. A test can so show that the registry credentials it configured
 * ({@code basic.auth.credentials.source=USER_INFO}, {@code basic.auth.user.info}) reach the serdes
 * of the application: without them the application gets no schema.
 *
 * <p>A test of a registry outage {@link #stop() stops} it while the application runs (every
 * connection to the port is then accepted and dropped at once, and counted, see
 * {@link #attemptsWhileStopped()}) and {@link #restart() restarts} it on the same port, with the
 * same content.
 *
 * <p>Close it to stop the server; the registry's content stays in its scope until
 * {@link MockSchemaRegistry#drop(String)}.
 */
public final class RegistryOverHttp implements AutoCloseable {

    private static final Pattern REGISTER = Pattern.compile("/subjects/([^/]+)/versions");
    private static final Pattern LATEST = Pattern.compile("/subjects/([^/]+)/versions/latest");
    private static final Pattern BY_ID = Pattern.compile("/schemas/ids/(\\d+)");

    private final ObjectMapper json = new ObjectMapper();
    private final MockSchemaRegistry registry;
    /** The expected {@code Authorization} header; null when requests need none. */
    private final byte[] authorization;
    private final ExecutorService executor = Executors.newFixedThreadPool(2);
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong attemptsWhileStopped = new AtomicLong();
    private final int port;
    private HttpServer server;
    /** While stopped: the socket that takes connections and drops them; null while serving. */
    private ServerSocket stopped;
    private Thread dropper;

    private RegistryOverHttp(String scope, String userInfo) {
        this.registry = MockSchemaRegistry.scope(scope);
        this.authorization = userInfo == null ? null
                : ("Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8)))
                        .getBytes(StandardCharsets.US_ASCII);
        try {
            this.server = listen(0);
        } catch (IOException e) {
            executor.shutdownNow();
            throw new UncheckedIOException("cannot listen on 127.0.0.1 for the registry of mock://" + scope, e);
        }
        this.port = server.getAddress().getPort();
    }

    private HttpServer listen(int onPort) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", onPort), 0);
        s.createContext("/", this::handle);
        s.setExecutor(executor);
        s.start();
        return s;
    }

    /**
     * Stops serving, as a registry that went down: from now on every connection to the port is
     * accepted and closed without an answer (the client sees an I/O error), until {@link #restart()}.
     */
    public synchronized void stop() {
        if (stopped != null) {
            return;
        }
        server.stop(0);
        try {
            ServerSocket socket = new ServerSocket();
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            stopped = socket;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot hold port " + port + " while the registry is stopped", e);
        }
        ServerSocket socket = stopped;
        dropper = new Thread(() -> {
            while (!socket.isClosed()) {
                try (Socket connection = socket.accept()) {
                    attemptsWhileStopped.incrementAndGet();
                    connection.setSoLinger(true, 0); // reset, as a dying server does
                } catch (IOException closed) {
                    // the socket was closed by restart() or close()
                }
            }
        }, "registry-over-http-stopped-" + port);
        dropper.setDaemon(true);
        dropper.start();
    }

    /** Serves again, on the same port and with the same content, after {@link #stop()}. */
    public synchronized void restart() {
        if (stopped == null) {
            return;
        }
        try {
            stopped.close();
            stopped = null;
            // the port is released only once the thread blocked in accept() has left it
            dropper.join(10_000);
            server = listen(port);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while restarting the registry on port " + port, e);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on 127.0.0.1:" + port + " again", e);
        }
    }

    /** Connections made to the port while it was {@link #stop() stopped}. */
    public long attemptsWhileStopped() {
        return attemptsWhileStopped.get();
    }

    /** Serves the registry of {@code mock://scope} to anyone, on a free port of 127.0.0.1. */
    public static RegistryOverHttp serve(String scope) {
        return new RegistryOverHttp(Objects.requireNonNull(scope, "scope"), null);
    }

    /**
     * Serves the registry of {@code mock://scope} on a free port of 127.0.0.1 only to requests with
     * HTTP basic authentication as {@code userInfo}; others get 401.
     *
     * @param userInfo {@code user:password}, what a client is given as {@code basic.auth.user.info}
     * @throws IllegalArgumentException if {@code userInfo} has no {@code ':'} or an empty user
     */
    public static RegistryOverHttp serve(String scope, String userInfo) {
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(userInfo, "userInfo");
        if (userInfo.indexOf(':') < 1) {
            throw new IllegalArgumentException("userInfo must be user:password with a non-empty user");
        }
        return new RegistryOverHttp(scope, userInfo);
    }

    /** {@code http://127.0.0.1:PORT}: what the application is given as {@code schema.registry.url}. */
    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** How many requests were answered 401 because they lacked the right credentials. */
    public long refusedRequests() {
        return refused.get();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!authorized(exchange)) {
                refused.incrementAndGet();
                exchange.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"SchemaRegistry\"");
                answer(exchange, 401, error(401, "Unauthorized"));
                return;
            }
            String path = exchange.getRequestURI().getRawPath();
            String method = exchange.getRequestMethod();
            Matcher m;
            try {
                if (method.equals("POST") && (m = REGISTER.matcher(path)).matches()) {
                    String schema = json.readTree(exchange.getRequestBody()).get("schema").asText();
                    int id = registry.register(subject(m), new Schema.Parser().parse(schema));
                    answer(exchange, 200, json.createObjectNode().put("id", id));
                } else if (method.equals("GET") && path.equals("/subjects")) {
                    var subjects = json.createArrayNode();
                    registry.subjects().forEach(subjects::add);
                    answer(exchange, 200, subjects);
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

    private boolean authorized(HttpExchange exchange) {
        if (authorization == null) {
            return true;
        }
        String given = exchange.getRequestHeaders().getFirst("Authorization");
        return given != null && MessageDigest.isEqual(authorization, given.getBytes(StandardCharsets.US_ASCII));
    }

    private static String subject(Matcher m) {
        return URLDecoder.decode(m.group(1), StandardCharsets.UTF_8);
    }

    private ObjectNode error(int code, String message) {
        return json.createObjectNode().put("error_code", code).put("message", message);
    }

    private static void answer(HttpExchange exchange, int status, com.fasterxml.jackson.databind.JsonNode body)
            throws IOException {
        byte[] bytes = body.toString().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", HttpSchemaRegistryClient.CONTENT_TYPE);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** Stops the server; the scope's content stays. */
    @Override
    public synchronized void close() {
        server.stop(0);
        if (stopped != null) {
            try {
                stopped.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        executor.shutdownNow();
    }

    @Override
    public String toString() {
        return "RegistryOverHttp{" + url() + ", basicAuth=" + (authorization == null ? "no" : "yes") + "}";
    }
}
