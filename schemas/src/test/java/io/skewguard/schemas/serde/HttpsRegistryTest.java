package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.WriteEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A registry behind a certificate of a private CA, trusted through a configured truststore. */
class HttpsRegistryTest {

  private static final String TOPIC = "skew.node-writes";

  @TempDir static Path dir;
  private static SelfSignedRegistryCertificate certificate;

  private FakeConfluentRegistry registry;

  @BeforeAll
  static void makeCertificate() throws Exception {
    certificate = SelfSignedRegistryCertificate.generate(dir);
  }

  @BeforeEach
  void start() throws Exception {
    registry = FakeConfluentRegistry.overTls(certificate.serverContext());
  }

  @AfterEach
  void stop() {
    registry.close();
  }

  private Map<String, Object> config() {
    Map<String, Object> config = new HashMap<>();
    config.put("schema.registry.url", registry.url());
    return config;
  }

  private static WriteEvent roundTrip(Map<String, Object> config) {
    try (var serializer = new SchemaRegistrySerializer<WriteEvent>();
        var deserializer = new SchemaRegistryDeserializer<WriteEvent>()) {
      serializer.configure(config, false);
      deserializer.configure(config, false);
      return deserializer.deserialize(TOPIC, serializer.serialize(TOPIC, SampleRecords.writeEvent()));
    }
  }

  @Test
  void recordsRoundTripOverHttpsWithThePrivateCaInAJksTruststoreAndBasicAuth() {
    registry.requireBasicAuth("storage", "pw");
    Map<String, Object> config = config();
    config.put("schema.registry.ssl.truststore.location", certificate.jksTruststore().toString());
    config.put("schema.registry.ssl.truststore.password", SelfSignedRegistryCertificate.TRUST_PASSWORD);
    config.put("schema.registry.ssl.truststore.type", "JKS");
    config.put("basic.auth.credentials.source", "USER_INFO");
    config.put("basic.auth.user.info", "storage:pw");
    config.put("specific.avro.reader", "true");

    assertThat(roundTrip(config)).isEqualTo(SampleRecords.writeEvent());
    assertThat(registry.url()).startsWith("https://127.0.0.1:");
    assertThat(registry.requests()).hasSize(2).allSatisfy(r -> assertThat(r.authorization()).startsWith("Basic "));
  }

  @Test
  void aPkcs12TruststoreAndCredentialsInTheUrlWorkToo() {
    registry.requireBasicAuth("storage", "pw");
    Map<String, Object> config = config();
    config.put("schema.registry.url", registry.url().replace("https://", "https://storage:pw@"));
    config.put("basic.auth.credentials.source", "URL");
    config.put("schema.registry.ssl.truststore.location", certificate.pkcs12Truststore().toString());
    config.put("schema.registry.ssl.truststore.password", SelfSignedRegistryCertificate.TRUST_PASSWORD);
    config.put("schema.registry.ssl.truststore.type", "pkcs12");
    config.put("specific.avro.reader", true);

    assertThat(roundTrip(config)).isEqualTo(SampleRecords.writeEvent());
  }

  @Test
  void withoutTheTruststoreTheRegistryIsNotTrustedAndTheErrorNamesTheKeyToSet() {
    try (var serializer = new SchemaRegistrySerializer<WriteEvent>()) {
      serializer.configure(config(), false);
      assertThatThrownBy(() -> serializer.serialize(TOPIC, SampleRecords.writeEvent()))
          .as("no answer from the registry: an outage to wait out, not bad input")
          .isInstanceOf(RegistryUnavailableException.class)
          .hasMessageContaining("POST /subjects/skew.node-writes-value/versions")
          .hasMessageContaining("SSLHandshakeException")
          .hasMessageContaining("TLS certificate is not trusted")
          .hasMessageContaining("set schema.registry.ssl.truststore.location");
    }
    assertThat(registry.requests()).as("no request got through the handshake").isEmpty();
  }

  @Test
  void aWrongTruststorePasswordFailsAtConfigureNamingTheTruststore() {
    Map<String, Object> config = config();
    config.put("schema.registry.ssl.truststore.location", certificate.jksTruststore().toString());
    config.put("schema.registry.ssl.truststore.password", "not-the-password");
    try (var serializer = new SchemaRegistrySerializer<WriteEvent>()) {
      assertThatThrownBy(() -> serializer.configure(config, false))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("schema.registry.ssl.truststore.location")
          .hasMessageContaining("cannot read it as a JKS truststore with the given schema.registry.ssl.truststore.password")
          .hasMessageNotContaining("not-the-password");
    }
  }

  @Test
  void aKafkaProducerWithAnUnreadableTruststoreFailsToBuildAndSaysWhy() {
    Properties props = new Properties();
    props.put("bootstrap.servers", "127.0.0.1:9092");
    props.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
    props.put("value.serializer", "io.skewguard.schemas.serde.SchemaRegistrySerializer");
    props.put("schema.registry.url", registry.url());
    props.put("schema.registry.ssl.truststore.location", certificate.pkcs12Truststore().toString());
    props.put("schema.registry.ssl.truststore.type", "PKCS12");
    props.put("schema.registry.ssl.truststore.password", "not-the-password");
    assertThatThrownBy(() -> new KafkaProducer<String, Object>(props).close())
        .isInstanceOf(KafkaException.class)
        .rootCause().isInstanceOf(ConfigException.class)
        .hasMessageContaining("cannot read it as a PKCS12 truststore");
  }

  @Test
  void aFileThatIsNoTruststoreFailsAtConfigure() throws Exception {
    Path notAStore = Files.writeString(dir.resolve("not-a-store.jks"), "hello");
    Map<String, Object> config = config();
    config.put("schema.registry.ssl.truststore.location", notAStore.toString());
    try (var deserializer = new SchemaRegistryDeserializer<WriteEvent>()) {
      assertThatThrownBy(() -> deserializer.configure(config, false))
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(notAStore.toString())
          .hasMessageContaining("cannot read it as a JKS truststore");
    }
  }
}
