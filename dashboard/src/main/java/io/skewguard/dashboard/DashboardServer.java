package io.skewguard.dashboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The dashboard's HTTP side (the JDK's server): the page and its script and style, which ship in
 * this jar (no CDN: the page works on a closed network), and the JSON the page polls.
 *
 * <ul>
 *   <li>{@code GET /} the page ({@code ?cluster=C} picks the cluster shown)</li>
 *   <li>{@code GET /api/clusters} the clusters seen so far, as a JSON array</li>
 *   <li>{@code GET /api/clusters/C} the {@link ClusterSnapshot} of cluster C; 404 with a JSON error
 *       for a cluster not seen</li>
 * </ul>
 */
final class DashboardServer implements AutoCloseable {

    /** The files under {@code web/} that are served, with their content types; nothing else is. */
    private static final Map<String, String> FILES = Map.of(
            "index.html", "text/html; charset=utf-8",
            "dashboard.js", "text/javascript; charset=utf-8",
            "dashboard.css", "text/css; charset=utf-8");

    private final HttpServer server;
    private final ExecutorService executor;
    private final ClusterViews views;
    private final ObjectMapper json = new ObjectMapper();

    private DashboardServer(HttpServer server, ExecutorService executor, ClusterViews views) {
        this.server = server;
        this.executor = executor;
        this.views = views;
    }

    /**
     * Listens on {@code host:port} (port 0: a free port) and serves.
     *
     * @throws UncheckedIOException when the address cannot be bound (naming it)
     */
    static DashboardServer start(String host, int port, ClusterViews views) {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "skewguard-dashboard-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        DashboardServer dashboard = new DashboardServer(server, executor, views);
        server.createContext("/", dashboard::handle);
        server.start();
        return dashboard;
    }

    /** The address it listens on, with the port actually bound. */
    InetSocketAddress address() {
        return server.getAddress();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                send(exchange, 405, "application/json", error("only GET is served"));
                return;
            }
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/") || path.equals("/index.html")) {
                send(exchange, 200, FILES.get("index.html"), resource("index.html"));
            } else if (path.startsWith("/static/") && FILES.containsKey(path.substring("/static/".length()))) {
                String name = path.substring("/static/".length());
                send(exchange, 200, FILES.get(name), resource(name));
            } else if (path.equals("/api/clusters")) {
                send(exchange, 200, "application/json", json.writeValueAsBytes(views.clusters()));
            } else if (path.startsWith("/api/clusters/")) {
                String cluster = cluster(exchange.getRequestURI());
                var snapshot = views.snapshot(cluster);
                if (snapshot.isPresent()) {
                    send(exchange, 200, "application/json", json.writeValueAsBytes(snapshot.get()));
                } else {
                    send(exchange, 404, "application/json", error("no record of cluster '" + cluster + "' has been read (clusters: "
                            + String.join(", ", views.clusters()) + ")"));
                }
            } else {
                send(exchange, 404, "application/json", error("nothing at " + path));
            }
        } catch (RuntimeException e) {
            // the page shows the error; the server goes on
            send(exchange, 500, "application/json", error(e.toString()));
        }
    }

    private static String cluster(URI uri) {
        String raw = uri.getRawPath().substring("/api/clusters/".length());
        return URLDecoder.decode(raw, StandardCharsets.UTF_8);
    }

    private byte[] error(String message) throws IOException {
        return json.writeValueAsBytes(Map.of("error", message));
    }

    private static byte[] resource(String name) throws IOException {
        try (InputStream in = DashboardServer.class.getResourceAsStream("web/" + name)) {
            if (in == null) {
                throw new IllegalStateException("web/" + name + " is missing from the dashboard's jar");
            }
            return in.readAllBytes();
        }
    }

    private static void send(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = "HEAD".equals(exchange.getRequestMethod());
        exchange.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
