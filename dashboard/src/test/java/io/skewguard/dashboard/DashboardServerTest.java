package io.skewguard.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.AlertState;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class DashboardServerTest {

    private final ClusterViews views = new ClusterViews(ViewLimits.defaults(), null);
    private final DashboardServer server = DashboardServer.start("127.0.0.1", 0, views);
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stop() {
        server.close();
    }

    private HttpResponse<String> get(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.address().getPort() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesThePageItsFilesAndEachClustersViewAsJson() throws Exception {
        views.of("prod").orElseThrow().onReport(LoopRecords.report("prod", Instant.parse("2026-11-30T10:00:00Z"), 0.3, 0.2,
                AlertState.NORMAL, AlertState.NORMAL, 2));
        assertThat(get("/").body()).contains("<svg").contains("/static/dashboard.js");
        assertThat(get("/static/dashboard.js").headers().firstValue("Content-Type")).hasValue("text/javascript; charset=utf-8");
        assertThat(get("/api/clusters").body()).isEqualTo("[\"prod\"]");
        HttpResponse<String> prod = get("/api/clusters/prod");
        assertThat(prod.statusCode()).isEqualTo(200);
        assertThat(prod.body()).contains("\"cluster\":\"prod\"").contains("\"heatGini\":0.3").contains("\"node\":\"n2\"");
    }

    @Test
    void anUnknownClusterOrPathIsA404ThatSaysWhat() throws Exception {
        views.of("prod");
        HttpResponse<String> other = get("/api/clusters/other");
        assertThat(other.statusCode()).isEqualTo(404);
        assertThat(other.body()).isEqualTo("{\"error\":\"no record of cluster 'other' has been read (clusters: prod)\"}");
        assertThat(get("/static/../../../etc/passwd").statusCode()).isEqualTo(404);
        assertThat(get("/static/ClusterView.class").statusCode()).isEqualTo(404);
    }

    @Test
    void thePageNeedsNothingFromAnotherHost() throws Exception {
        Pattern external = Pattern.compile("(https?:)?//[a-z0-9.-]+\\.[a-z]{2,}", Pattern.CASE_INSENSITIVE);
        for (String file : List.of("index.html", "dashboard.js", "dashboard.css")) {
            String text;
            try (InputStream in = DashboardServer.class.getResourceAsStream("web/" + file)) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            // the SVG namespace is a name, not something fetched
            assertThat(external.matcher(text.replace("http://www.w3.org/2000/svg", "")).find()).as(file).isFalse();
        }
    }
}
