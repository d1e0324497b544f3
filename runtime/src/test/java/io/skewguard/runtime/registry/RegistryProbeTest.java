package io.skewguard.runtime.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.runtime.lifecycle.StartRefused;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerdeConfig;
import io.skewguard.testkit.RegistryOverHttp;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The start-up check of the schema registry URL. */
class RegistryProbeTest {

    private final String scope = "registry-probe-" + UUID.randomUUID();

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.drop(scope);
    }

    private static RegistryProbe probe(String url) {
        return new RegistryProbe(Map.of(SchemaRegistrySerdeConfig.URL, url));
    }

    @Test
    void aRegistryThatAnswersLetsTheProcessStart() {
        try (RegistryOverHttp http = RegistryOverHttp.serve(scope)) {
            RegistryProbe probe = probe(http.url());
            probe.start();
            assertThat(probe.ready()).isTrue();
        }
    }

    @Test
    void theInProcessRegistryIsNotProbed() {
        RegistryProbe probe = probe("mock://" + scope);
        probe.start();
        assertThat(probe.ready()).isTrue();
    }

    @Test
    void aUrlWhereSomethingElseAnswers404IsRefusedNamingTheUrlAndTheLikelyMistake() {
        try (RegistryOverHttp http = RegistryOverHttp.serve(scope)) {
            String wrong = http.url() + "/api/v1";
            assertThatThrownBy(() -> probe(wrong).start())
                    .isInstanceOf(StartRefused.class)
                    .hasMessageContaining(wrong)
                    .hasMessageContaining("wrong base path?")
                    .hasMessageNotContaining("\n");
        }
    }

    @Test
    void aRegistryThatIsDownAtStartIsWaitedForNotRefused() throws Exception {
        try (RegistryOverHttp http = RegistryOverHttp.serve(scope)) {
            http.stop();
            RegistryProbe probe = probe(http.url());
            CompletableFuture<Void> start = CompletableFuture.runAsync(probe::start);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (http.attemptsWhileStopped() < 2 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(http.attemptsWhileStopped()).as("asked again after the first failure").isGreaterThanOrEqualTo(2);
            assertThat(start).isNotDone();

            http.restart();
            start.get(60, TimeUnit.SECONDS);
            assertThat(probe.ready()).isTrue();
        }
    }

    @Test
    void aStopRequestEndsTheWaitForARegistryThatIsDown() throws Exception {
        try (RegistryOverHttp http = RegistryOverHttp.serve(scope)) {
            http.stop();
            RegistryProbe probe = probe(http.url());
            CompletableFuture<Void> start = CompletableFuture.runAsync(probe::start);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (http.attemptsWhileStopped() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            probe.stopStarting();
            start.get(30, TimeUnit.SECONDS);
        }
    }
}
