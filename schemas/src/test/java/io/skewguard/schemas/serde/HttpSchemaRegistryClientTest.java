package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.WriteEvent;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The serde against a Confluent-REST-speaking HTTP server on loopback. */
class HttpSchemaRegistryClientTest {

  private FakeConfluentRegistry registry;

  @BeforeEach
  void start() throws IOException {
    registry = new FakeConfluentRegistry();
  }

  @AfterEach
  void stop() {
    registry.close();
  }

  private Map<String, Object> config(String url) {
    Map<String, Object> config = new HashMap<>();
    config.put(SchemaRegistrySerdeConfig.URL, url);
    return config;
  }

  @Test
  void recordsRoundTripThroughARestRegistryWithOneRequestPerSchemaAndClient() {
    var producer = SchemaRegistrySerde.of(CapacityEvent.class, config(registry.url()), false);
    var consumer = SchemaRegistrySerde.of(CapacityEvent.class, config(registry.url()), false);
    for (int i = 0; i < 20; i++) {
      byte[] bytes = producer.serializer().serialize("skew.node-capacity", SampleRecords.capacityFull());
      assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(100);
      assertThat(consumer.deserializer().deserialize("skew.node-capacity", bytes)).isEqualTo(SampleRecords.capacityFull());
    }
    assertThat(registry.count("POST", "/subjects/skew.node-capacity-value/versions")).isEqualTo(1);
    assertThat(registry.count("GET", "/schemas/ids/100")).isEqualTo(1);
    assertThat(registry.requests()).hasSize(2);
  }

  @Test
  void requestsUseTheConfluentContentTypeAndSendTheSchemaAsJsonString() throws Exception {
    SchemaRegistrySerde.of(WriteEvent.class, config(registry.url()), false)
        .serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    FakeConfluentRegistry.Request post = registry.requests().get(0);
    assertThat(post.contentType()).isEqualTo("application/vnd.schemaregistry.v1+json");
    assertThat(post.accept()).isEqualTo("application/vnd.schemaregistry.v1+json");
    var body = new com.fasterxml.jackson.databind.ObjectMapper().readTree(post.body());
    assertThat(new org.apache.avro.Schema.Parser().parse(body.get("schema").asText()))
        .isEqualTo(WriteEvent.getClassSchema());
  }

  @Test
  void basicAuthUserInfoIsSentAsAuthorizationHeader() {
    registry.requireBasicAuth("skew", "s3cret:with-colon");
    Map<String, Object> config = config(registry.url());
    config.put(SchemaRegistrySerdeConfig.BASIC_AUTH_SOURCE, "USER_INFO");
    config.put(SchemaRegistrySerdeConfig.BASIC_AUTH_USER_INFO, "skew:s3cret:with-colon");
    var serde = SchemaRegistrySerde.of(WriteEvent.class, config, false);
    byte[] bytes = serde.serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    assertThat(SchemaRegistrySerde.of(WriteEvent.class, config, false).deserializer().deserialize("skew.node-writes", bytes))
        .isEqualTo(SampleRecords.writeEvent());
    assertThat(registry.requests()).allSatisfy(r ->
        assertThat(r.authorization()).isEqualTo("Basic c2tldzpzM2NyZXQ6d2l0aC1jb2xvbg=="));
  }

  @Test
  void basicAuthFromTheUrlIsSentAndTheUserInfoIsNotPartOfTheRequestUrl() {
    registry.requireBasicAuth("skew", "pw");
    Map<String, Object> config = config(registry.url().replace("http://", "http://skew:pw@"));
    config.put(SchemaRegistrySerdeConfig.BASIC_AUTH_SOURCE, "URL");
    SchemaRegistrySerde.of(WriteEvent.class, config, false).serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    assertThat(registry.requests()).singleElement().satisfies(r -> assertThat(r.authorization()).startsWith("Basic "));
  }

  @Test
  void wrongCredentialsAreAnOutageWithStatusErrorCodeAndMessageNotBadInput() {
    registry.requireBasicAuth("skew", "right");
    Map<String, Object> config = config(registry.url());
    config.put(SchemaRegistrySerdeConfig.BASIC_AUTH_USER_INFO, "skew:wrong");
    var serde = SchemaRegistrySerde.of(WriteEvent.class, config, false);
    assertThatThrownBy(() -> serde.serializer().serialize("skew.node-writes", SampleRecords.writeEvent()))
        .isInstanceOf(RegistryUnavailableException.class)
        .isNotInstanceOf(SerializationException.class)
        .hasMessageContaining("POST /subjects/skew.node-writes-value/versions")
        .hasMessageContaining("answered HTTP 401 error_code 40101: Unauthorized");
  }

  @Test
  void unknownSchemaIdIsBadInputWithTheRegistrysAnswer() {
    var serde = SchemaRegistrySerde.of(WriteEvent.class, config(registry.url()), false);
    byte[] bytes = {0, 0, 0, 0, 99, 2, 'x'};
    assertThatThrownBy(() -> serde.deserializer().deserialize("skew.node-writes", bytes))
        .isInstanceOf(UnknownSchemaException.class)
        .hasMessageStartingWith("unknown-schema: skew.node-writes: schema id 99 not found")
        .hasMessageContaining("HTTP 404 error_code 40403: Schema 99 not found")
        .cause().isInstanceOfSatisfying(SchemaRegistryException.class, e -> assertThat(e.isNotFound()).isTrue());
  }

  @Test
  void anUnknownIdIsAskedForOnceWhileRememberedNotOncePerRecord() {
    var serde = SchemaRegistrySerde.of(WriteEvent.class, config(registry.url()), false);
    byte[] bytes = {0, 0, 0, 0, 99, 2, 'x'};
    for (int i = 0; i < 10; i++) {
      assertThatThrownBy(() -> serde.deserializer().deserialize("skew.node-writes", bytes))
          .isInstanceOf(UnknownSchemaException.class);
    }
    assertThat(registry.count("GET", "/schemas/ids/99")).isEqualTo(1);
  }

  @Test
  void unreachableRegistryIsAnOutageNamingTheUrlNotBadInput() throws IOException {
    String closed = "http://127.0.0.1:" + closedPort();
    var serde = SchemaRegistrySerde.of(WriteEvent.class, config(closed), false);
    assertThatThrownBy(() -> serde.serializer().serialize("skew.node-writes", SampleRecords.writeEvent()))
        .isInstanceOfSatisfying(RegistryUnavailableException.class, e -> {
          assertThat(e.registry()).isEqualTo(closed);
          assertThat(e.wrongBasePath()).isFalse();
        })
        .hasMessageContaining("failed on every URL")
        .hasMessageContaining(closed);
    byte[] bytes = {0, 0, 0, 0, 1, 2, 'x'};
    assertThatThrownBy(() -> serde.deserializer().deserialize("skew.node-writes", bytes))
        .as("transient, not the record's fault: no SerializationException, which the apps dead-letter")
        .isInstanceOf(RegistryUnavailableException.class)
        .isInstanceOf(org.apache.kafka.common.errors.RetriableException.class)
        .isNotInstanceOf(SerializationException.class)
        .hasMessageContaining("GET /schemas/ids/1");
  }

  @Test
  void anOutageIsNotRememberedSoTheIdIsFoundOnceTheRegistryAnswers() {
    byte[] bytes = SchemaRegistrySerde.of(WriteEvent.class, config(registry.url()), false)
        .serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    var consumer = SchemaRegistrySerde.of(WriteEvent.class, config(registry.url()), false);
    registry.failEverything();
    assertThatThrownBy(() -> consumer.deserializer().deserialize("skew.node-writes", bytes))
        .isInstanceOf(RegistryUnavailableException.class);
    registry.recover();
    assertThat(consumer.deserializer().deserialize("skew.node-writes", bytes)).isEqualTo(SampleRecords.writeEvent());
  }

  @Test
  void outageAnswersAreTheStatusesThatSayNothingAboutTheRecord() {
    for (int status : new int[] {500, 502, 503, 504, 408, 429, 401, 403, 301, 307}) {
      assertThat(HttpSchemaRegistryClient.isOutage(status, SchemaRegistryException.NO_ANSWER)).as("HTTP %d", status).isTrue();
    }
    assertThat(HttpSchemaRegistryClient.isOutage(404, SchemaRegistryException.NO_ANSWER)).as("bare 404").isTrue();
    assertThat(HttpSchemaRegistryClient.isOutage(404, 404)).as("404 with a non-registry code").isTrue();
    for (int code : new int[] {40401, 40402, 40403}) {
      assertThat(HttpSchemaRegistryClient.isOutage(404, code)).as("not found %d", code).isFalse();
    }
    assertThat(HttpSchemaRegistryClient.isOutage(409, 409)).as("incompatible").isFalse();
    assertThat(HttpSchemaRegistryClient.isOutage(422, 42201)).as("invalid schema").isFalse();
    assertThat(HttpSchemaRegistryClient.isOutage(400, SchemaRegistryException.NO_ANSWER)).isFalse();
  }

  @Test
  void aServerThatAnswers404WithoutARegistryErrorCodeIsAWrongBasePath() {
    registry.answerBare404();
    var serde = SchemaRegistrySerde.of(WriteEvent.class, config(registry.url()), false);
    byte[] bytes = {0, 0, 0, 0, 1, 2, 'x'};
    assertThatThrownBy(() -> serde.deserializer().deserialize("skew.node-writes", bytes))
        .isInstanceOfSatisfying(RegistryUnavailableException.class, e -> assertThat(e.wrongBasePath()).isTrue())
        .hasMessageContaining("wrong base path");
  }

  @Test
  void theProbeAcceptsARegistryAndCallsAWrongBasePathSo() {
    SchemaRegistryClient.forConfig(SchemaRegistrySerdeConfig.parse(config(registry.url()))).probe();
    assertThat(registry.count("GET", "/subjects")).isEqualTo(1);
    assertThatThrownBy(() -> SchemaRegistryClient.forConfig(
            SchemaRegistrySerdeConfig.parse(config(registry.url() + "/not-the-api"))).probe())
        .isInstanceOfSatisfying(RegistryUnavailableException.class, e -> assertThat(e.wrongBasePath()).isTrue())
        .hasMessageContaining(registry.url() + "/not-the-api");
  }

  @Test
  void laterUrlsAreTriedWhenEarlierOnesAreDownOrFailing() throws IOException {
    try (FakeConfluentRegistry broken = new FakeConfluentRegistry()) {
      broken.failEverything();
      String urls = "http://127.0.0.1:" + closedPort() + " , " + broken.url() + "," + registry.url();
      var serde = SchemaRegistrySerde.of(WriteEvent.class, config(urls), false);
      byte[] bytes = serde.serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
      assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(100);
      assertThat(broken.requests()).hasSize(1);
      assertThat(registry.requests()).hasSize(1);
    }
  }

  @Test
  void serverErrorOnEveryUrlReportsEachStatus() {
    registry.failEverything();
    var serde = SchemaRegistrySerde.of(WriteEvent.class, config(registry.url()), false);
    assertThatThrownBy(() -> serde.serializer().serialize("skew.node-writes", SampleRecords.writeEvent()))
        .isInstanceOf(RegistryUnavailableException.class)
        .hasMessageContaining("HTTP 500 error_code 50001: Error in the backend data store");
  }

  @Test
  void requestThatGetsNoAnswerWithinTheTimeoutFails() {
    registry.hang();
    Map<String, Object> config = config(registry.url());
    config.put(SchemaRegistrySerdeConfig.REQUEST_TIMEOUT_MS, "300");
    var serde = SchemaRegistrySerde.of(WriteEvent.class, config, false);
    assertThatThrownBy(() -> serde.serializer().serialize("skew.node-writes", SampleRecords.writeEvent()))
        .isInstanceOf(RegistryUnavailableException.class)
        .hasMessageContaining("HttpTimeoutException");
  }

  @Test
  void withoutAutoRegisterTheLatestVersionIsLookedUpOnceAndNothingIsPosted() {
    SchemaRegistrySerde.of(WriteEvent.class, config(registry.url()), false)
        .serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
    Map<String, Object> config = config(registry.url());
    config.put(SchemaRegistrySerdeConfig.AUTO_REGISTER, "false");
    var strict = SchemaRegistrySerde.of(WriteEvent.class, config, false);
    for (int i = 0; i < 5; i++) {
      byte[] bytes = strict.serializer().serialize("skew.node-writes", SampleRecords.writeEvent());
      assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(100);
    }
    assertThat(registry.count("GET", "/subjects/skew.node-writes-value/versions/latest")).isEqualTo(1);
    assertThat(registry.count("POST", "/")).isEqualTo(1);
  }

  @Test
  void withoutAutoRegisterAMissingSubjectFailsWithTheRegistrysAnswer() {
    Map<String, Object> config = config(registry.url());
    config.put(SchemaRegistrySerdeConfig.AUTO_REGISTER, false);
    var strict = SchemaRegistrySerde.of(WriteEvent.class, config, false);
    assertThatThrownBy(() -> strict.serializer().serialize("skew.node-writes", SampleRecords.writeEvent()))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("HTTP 404 error_code 40401: Subject 'skew.node-writes-value' not found.");
  }

  @Test
  void baseUrlWithAPathAndTrailingSlashIsHonoured() {
    var serde = SchemaRegistrySerde.of(WriteEvent.class, config(registry.url() + "/apis/ccompat/v7/"), false);
    assertThatThrownBy(() -> serde.serializer().serialize("skew.node-writes", SampleRecords.writeEvent()))
        .isInstanceOfSatisfying(RegistryUnavailableException.class, e -> assertThat(e.wrongBasePath()).isTrue())
        .hasMessageContaining("HTTP 404");
    assertThat(registry.requests()).singleElement()
        .satisfies(r -> assertThat(r.path()).isEqualTo("/apis/ccompat/v7/subjects/skew.node-writes-value/versions"));
  }

  /** A port on 127.0.0.1 nobody listens on: bound once, then released. */
  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
