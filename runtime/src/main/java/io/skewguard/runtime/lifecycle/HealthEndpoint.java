package io.skewguard.runtime.lifecycle;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import io.skewguard.runtime.metrics.ProcessMetrics;

/**
 * A tiny HTTP endpoint for container health checks and Prometheus (the JDK's own HTTP server):
 * <ul>
 *   <li>{@code GET /ready}: 200 when every service is ready, 503 otherwise;</li>
 *   <li>{@code GET /health} (and its older name {@code /live}): 200 unless a service has failed,
 *       503 then;</li>
 *   <li>{@code GET /metrics}: every series of the process in Prometheus text format
 *       ({@link ProcessMetrics}).</li>
 * </ul>
 * {@code HEAD} answers the same without a body; other methods get 405, other paths 404. The
 * answers are computed on each request, so they are never stale.
 */
public final class HealthEndpoint implements AutoCloseable {

    /** Where the endpoint listens unless told otherwise: this machine only. */
    public static final String DEFAULT_HOST = "127.0.0.1";

    private final HttpServer server;

    private HealthEndpoint(HttpServer server) {
        this.server = server;
    }

    /**
     * Listens on {@code address} (port 0: a free port, see {@link #address()}).
     *
     * @throws IOException if the address cannot be bound
     */
    public static HealthEndpoint start(InetSocketAddress address, BooleanSupplier ready, BooleanSupplier live)
            throws IOException {
        return start(address, ready, live, ProcessMetrics::scrape);
    }

    /** As {@link #start(InetSocketAddress, BooleanSupplier, BooleanSupplier)}, with {@code /metrics} answered by {@code metrics}. */
    public static HealthEndpoint start(InetSocketAddress address, BooleanSupplier ready, BooleanSupplier live,
            Supplier<String> metrics) throws IOException {
        Objects.requireNonNull(ready, "ready");
        Objects.requireNonNull(live, "live");
        Objects.requireNonNull(metrics, "metrics");
        HttpServer server = HttpServer.create(address, 0);
        server.createContext("/", exchange -> answer(exchange, null, false, null));
        server.createContext("/ready", exchange -> answer(exchange, "/ready", ready.getAsBoolean(), null));
        server.createContext("/health", exchange -> answer(exchange, "/health", live.getAsBoolean(), null));
        server.createContext("/live", exchange -> answer(exchange, "/live", live.getAsBoolean(), null));
        server.createContext("/metrics", exchange -> answer(exchange, "/metrics", true, metrics));
        server.start();
        return new HealthEndpoint(server);
    }

    private static void answer(HttpExchange exchange, String path, boolean ok, Supplier<String> metrics)
            throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            int status;
            String body;
            String contentType = "text/plain; charset=utf-8";
            // contexts match by prefix; only the exact path is ours
            if (path == null || !exchange.getRequestURI().getPath().equals(path)) {
                status = 404;
                body = "not found; try /ready, /health or /metrics\n";
            } else if (!method.equals("GET") && !method.equals("HEAD")) {
                status = 405;
                body = "method not allowed; use GET\n";
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
            } else if (metrics != null) {
                status = 200;
                body = metrics.get();
                contentType = ProcessMetrics.CONTENT_TYPE;
            } else if (ok) {
                status = 200;
                body = path.equals("/ready") ? "ready\n" : "live\n";
            } else {
                status = 503;
                body = path.equals("/ready") ? "not ready\n" : "failed\n";
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", contentType);
            if (method.equals("HEAD")) {
                exchange.sendResponseHeaders(status, -1);
                return;
            }
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** The address it listens on (the port actually bound when 0 was asked for). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    /** Stops listening at once; open exchanges are abandoned (they are a few bytes each). */
    @Override
    public void close() {
        server.stop(0);
    }
}
