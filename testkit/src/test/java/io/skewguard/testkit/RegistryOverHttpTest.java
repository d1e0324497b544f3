package io.skewguard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.serde.HttpSchemaRegistryClient;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.RegistryUnavailableException;
import io.skewguard.schemas.serde.SchemaRegistrySerdeConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The test's mock registry over HTTP, as SkewGuard's HTTP registry client sees it. */
class RegistryOverHttpTest {

    private static final Schema SCHEMA = SchemaBuilder.record("Sample").namespace("io.skewguard.test")
            .fields().requiredString("name").endRecord();

    private final String scope = "registry-over-http-" + UUID.randomUUID();

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.drop(scope);
    }

    private static HttpSchemaRegistryClient client(RegistryOverHttp http, String userInfo) {
        Map<String, Object> config = new HashMap<>(Map.of(SchemaRegistrySerdeConfig.URL, http.url()));
        if (userInfo != null) {
            config.put(SchemaRegistrySerdeConfig.BASIC_AUTH_SOURCE, "USER_INFO");
            config.put(SchemaRegistrySerdeConfig.BASIC_AUTH_USER_INFO, userInfo);
        }
        return new HttpSchemaRegistryClient(SchemaRegistrySerdeConfig.parse(config));
    }

    @Test
    void aSchemaRegisteredOverHttpHasTheIdTheMockScopeGivesIt() {
        try (RegistryOverHttp http = RegistryOverHttp.serve(scope)) {
            HttpSchemaRegistryClient client = client(http, null);
            int id = client.register("sample-value", SCHEMA);

            assertThat(MockSchemaRegistry.scope(scope).getById(id)).isEqualTo(SCHEMA);
            assertThat(client.getById(id)).isEqualTo(SCHEMA);
            assertThat(client.latest("sample-value").id()).isEqualTo(id);
            assertThat(http.url()).startsWith("http://127.0.0.1:");
        }
    }

    @Test
    void withBasicAuthOnlyRequestsWithTheRightUserAndPasswordAreServed() {
        int id = MockSchemaRegistry.scope(scope).register("sample-value", SCHEMA);
        try (RegistryOverHttp http = RegistryOverHttp.serve(scope, "app:registry-secret")) {
            assertThat(client(http, "app:registry-secret").getById(id)).isEqualTo(SCHEMA);

            for (String wrong : new String[] {null, "app:wrong", "other:registry-secret"}) {
                assertThatThrownBy(() -> client(http, wrong).getById(id)).as("credentials %s", wrong)
                        .isInstanceOf(RegistryUnavailableException.class).hasMessageContaining("HTTP 401");
            }
            assertThat(http.refusedRequests()).isEqualTo(3);
            assertThat(http.toString()).doesNotContain("registry-secret");
        }
    }

    @Test
    void basicAuthNeedsAUserAndAColon() {
        assertThatThrownBy(() -> RegistryOverHttp.serve(scope, "no-colon")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("user:password");
        assertThatThrownBy(() -> RegistryOverHttp.serve(scope, ":password")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aStoppedRegistryDropsConnectionsAndARestartedOneServesTheSameContentOnTheSamePort() {
        int id = MockSchemaRegistry.scope(scope).register("sample-value", SCHEMA);
        try (RegistryOverHttp http = RegistryOverHttp.serve(scope)) {
            String url = http.url();
            http.stop();
            assertThatThrownBy(() -> client(http, null).getById(id)).isInstanceOf(RegistryUnavailableException.class)
                    .hasMessageContaining(url);
            assertThat(http.attemptsWhileStopped()).isPositive();

            http.restart();
            assertThat(http.url()).isEqualTo(url);
            assertThat(client(http, null).getById(id)).isEqualTo(SCHEMA);
            client(http, null).probe();
        }
    }
}
