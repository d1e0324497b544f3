package io.skewguard.runtime.lifecycle;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * A tiny HTTP endpoint for container health checks (the JDK's own HTTP server, no dependency):
 * <ul>
 *   <li>{@code GET /ready}: 200 when every service is ready, 503 otherwise;</li>
 *   <li>{@code GET /live}: 200 unless a service has failed, 503 then.</li>
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
        Objects.requireNonNull(ready, "ready");
        Objects.requireNonNull(live, "live");
        HttpServer server = HttpServer.create(address, 0);
        server.createContext("/", exchange -> answer(exchange, null, false));
        server.createContext("/ready", exchange -> answer(exchange, "/ready", ready.getAsBoolean()));
        server.createContext("/live", exchange -> answer(exchange, "/live", live.getAsBoolean()));
        server.start();
        return new HealthEndpoint(server);
    }

    private static void answer(HttpExchange exchange, String path, boolean ok) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            int status;
            String body;
            // contexts match by prefix; only the exact path is ours
            if (path == null || !exchange.getRequestURI().getPath().equals(path)) {
                status = 404;
                body = "not found; try /ready or /live\n";
            } else if (!method.equals("GET") && !method.equals("HEAD")) {
                status = 405;
                body = "method not allowed; use GET\n";
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
            } else if (ok) {
                status = 200;
                body = path.equals("/ready") ? "ready\n" : "live\n";
            } else {
                status = 503;
                body = path.equals("/ready") ? "not ready\n" : "failed\n";
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
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
