package io.skewguard.runtime.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.runtime.metrics.DeadLetterCounter;
import io.skewguard.runtime.metrics.ProcessMetrics;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HealthEndpointTest {

    private final AtomicBoolean ready = new AtomicBoolean();
    private final AtomicBoolean live = new AtomicBoolean(true);
    private final HttpClient http = HttpClient.newHttpClient();
    private HealthEndpoint endpoint;

    @BeforeEach
    void start() throws IOException {
        endpoint = HealthEndpoint.start(new InetSocketAddress("127.0.0.1", 0), ready::get, live::get);
    }

    @AfterEach
    void close() {
        endpoint.close();
    }

    @Test
    void readyAnswers503UntilEveryServiceIsReadyThen200() throws Exception {
        assertThat(get("/ready").statusCode()).isEqualTo(503);
        assertThat(get("/ready").body()).isEqualTo("not ready\n");

        ready.set(true);

        assertThat(get("/ready").statusCode()).isEqualTo(200);
        assertThat(get("/ready").body()).isEqualTo("ready\n");
    }

    @Test
    void liveAnswers200UntilAServiceFailedThen503() throws Exception {
        assertThat(get("/live").statusCode()).isEqualTo(200);

        live.set(false);

        assertThat(get("/live").statusCode()).isEqualTo(503);
        assertThat(get("/live").body()).isEqualTo("failed\n");
    }

    @Test
    void healthIsLiveUnderItsNewName() throws Exception {
        assertThat(get("/health").statusCode()).isEqualTo(200);
        assertThat(get("/health").body()).isEqualTo("live\n");

        live.set(false);

        assertThat(get("/health").statusCode()).isEqualTo(503);
    }

    @Test
    void metricsAnswersThePrometheusTextOfTheProcessRegistryWhetherReadyOrNot() throws Exception {
        DeadLetterCounter.count("poison: a record that cannot be read");

        HttpResponse<String> metrics = get("/metrics");

        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.headers().firstValue("Content-Type")).contains(ProcessMetrics.CONTENT_TYPE);
        assertThat(metrics.body()).contains("# TYPE skewguard_dead_letters_total counter")
                .containsPattern("skewguard_dead_letters_total\\{reason=\"poison\"} [1-9]")
                .contains("jvm_memory_used_bytes");
        assertThat(get("/metrics/more").statusCode()).isEqualTo(404);
    }

    @Test
    void headAnswersLikeGetWithoutABody() throws Exception {
        ready.set(true);
        HttpResponse<String> head = http.send(HttpRequest.newBuilder(uri("/ready"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
    }

    @Test
    void otherMethodsAre405AndOtherPaths404() throws Exception {
        HttpResponse<String> post = http.send(HttpRequest.newBuilder(uri("/ready"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).contains("GET, HEAD");

        assertThat(get("/").statusCode()).isEqualTo(404);
        assertThat(get("/readyz").statusCode()).isEqualTo(404);
        assertThat(get("/ready/more").statusCode()).isEqualTo(404);
    }

    @Test
    void listensOnTheLoopbackAddressItWasGiven() {
        assertThat(endpoint.address().getAddress().isLoopbackAddress()).isTrue();
        assertThat(endpoint.address().getPort()).isPositive();
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + endpoint.address().getPort() + path);
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(uri(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
