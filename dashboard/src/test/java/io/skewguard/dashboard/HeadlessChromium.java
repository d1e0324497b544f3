package io.skewguard.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Debian's headless Chromium, driven over the DevTools protocol with the JDK's WebSocket client (no
 * WebDriver library needed): one page, navigate, evaluate JavaScript, take a screenshot. A fresh
 * profile directory per instance, the debugging port on 127.0.0.1 only, and the flags without which
 * a browser on a closed network keeps trying to reach Google's services.
 */
final class HeadlessChromium implements AutoCloseable {

    private static final Duration START = Duration.ofSeconds(30);
    private static final Duration CALL = Duration.ofSeconds(30);
    /** Where Debian's package puts it; {@code -Dskewguard.chromium=PATH} names another. */
    private static final String DEFAULT_BINARY = "/usr/bin/chromium";

    private final Process process;
    private final Path profile;
    private final WebSocket socket;
    private final ObjectMapper json = new ObjectMapper();
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();

    private HeadlessChromium(Process process, Path profile, WebSocket socket) {
        this.process = process;
        this.profile = profile;
        this.socket = socket;
    }

    /**
     * The browser's binary; fails (never skips) with how to install it when it is missing.
     */
    static Path binary() {
        Path binary = Path.of(System.getProperty("skewguard.chromium", DEFAULT_BINARY));
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException("the dashboard's browser test needs Chromium at " + binary
                    + ", which is missing: install it with 'apt-get install -y chromium chromium-driver' (as .ci/run does), "
                    + "or name another binary with -Dskewguard.chromium=PATH");
        }
        return binary;
    }

    static HeadlessChromium start(int width, int height) throws IOException, InterruptedException {
        Path binary = binary();
        Path profile = Files.createTempDirectory("skewguard-chromium-");
        Process process = new ProcessBuilder(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--user-data-dir=" + profile, "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0", "--window-size=" + width + "," + height, "about:blank")
                .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
        try {
            // Chromium writes its debugging port (and the browser's path) once it listens
            Path active = profile.resolve("DevToolsActivePort");
            long deadline = System.nanoTime() + START.toNanos();
            while (!(Files.exists(active) && Files.readAllLines(active).size() >= 2)) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new IllegalStateException("Chromium did not start: " + log(profile));
                }
                Thread.sleep(50);
            }
            int port = Integer.parseInt(Files.readAllLines(active).get(0).strip());
            HttpClient http = HttpClient.newHttpClient();
            String list = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            String page = null;
            for (JsonNode target : new ObjectMapper().readTree(list)) {
                if ("page".equals(target.path("type").asText())) {
                    page = target.path("webSocketDebuggerUrl").asText();
                    break;
                }
            }
            if (page == null) {
                throw new IllegalStateException("Chromium has no page to drive: " + list);
            }
            HeadlessChromium[] self = new HeadlessChromium[1];
            Listener listener = new Listener(message -> self[0].receive(message));
            WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(page), listener).get(CALL.toSeconds(), TimeUnit.SECONDS);
            self[0] = new HeadlessChromium(process, profile, socket);
            return self[0];
        } catch (RuntimeException | IOException | InterruptedException e) {
            process.destroyForcibly();
            throw e;
        } catch (Exception e) {
            process.destroyForcibly();
            throw new IllegalStateException("cannot drive Chromium: " + e + "; " + log(profile), e);
        }
    }

    private static String log(Path profile) {
        try {
            return Files.readString(profile.resolve("chromium.log"));
        } catch (IOException e) {
            return "(no log)";
        }
    }

    /** Collects a message's frames and hands over each whole message. */
    private record Listener(java.util.function.Consumer<String> onMessage, StringBuilder buffer) implements WebSocket.Listener {
        Listener(java.util.function.Consumer<String> onMessage) {
            this(onMessage, new StringBuilder());
        }

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            buffer.append(data);
            if (last) {
                String message = buffer.toString();
                buffer.setLength(0);
                onMessage.accept(message);
            }
            webSocket.request(1);
            return null;
        }
    }

    private void receive(String message) {
        try {
            JsonNode node = json.readTree(message);
            if (node.has("id")) {
                CompletableFuture<JsonNode> answer = pending.remove(node.get("id").asInt());
                if (answer != null) {
                    answer.complete(node);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Calls a DevTools method and returns its result; an error answer is an exception naming it. */
    JsonNode call(String method, Map<String, ?> params) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<JsonNode> answer = new CompletableFuture<>();
        pending.put(id, answer);
        ObjectNode request = json.createObjectNode().put("id", id).put("method", method);
        request.set("params", json.valueToTree(params));
        socket.sendText(json.writeValueAsString(request), true).get(CALL.toSeconds(), TimeUnit.SECONDS);
        JsonNode reply = answer.get(CALL.toSeconds(), TimeUnit.SECONDS);
        if (reply.has("error")) {
            throw new IllegalStateException(method + " failed: " + reply.get("error"));
        }
        return reply.get("result");
    }

    void navigate(String url) throws Exception {
        call("Page.navigate", Map.of("url", url));
    }

    /** The value of a JavaScript expression in the page (promises awaited); an exception thrown there is one here. */
    JsonNode evaluate(String expression) throws Exception {
        JsonNode result = call("Runtime.evaluate", Map.of("expression", expression, "returnByValue", true, "awaitPromise", true));
        if (result.has("exceptionDetails")) {
            throw new IllegalStateException("the page threw on '" + expression + "': " + result.get("exceptionDetails"));
        }
        return result.path("result").path("value");
    }

    /**
     * Evaluates {@code expression} until {@code accept} takes its value, at most {@code timeout};
     * returns the accepted value, or fails with the last one.
     */
    JsonNode awaitValue(String expression, Predicate<JsonNode> accept, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        JsonNode value;
        do {
            value = evaluate(expression);
            if (accept.test(value)) {
                return value;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("'" + expression + "' was still " + value + " after " + timeout.toSeconds() + " s");
    }

    /** A PNG of the page as it is drawn now. */
    void screenshot(Path png) throws Exception {
        JsonNode shot = call("Page.captureScreenshot", Map.of("format", "png"));
        Files.write(png, Base64.getDecoder().decode(shot.get("data").asText()));
    }

    @Override
    public void close() {
        socket.abort();
        List<ProcessHandle> children = process.descendants().toList(); // renderers, GPU process: gone with the browser
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        children.forEach(ProcessHandle::destroyForcibly);
        try (Stream<Path> files = Files.walk(profile)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            // a profile file still held by a dying renderer: the temporary directory is left behind
        }
    }

}
