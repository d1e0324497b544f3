package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.WriteEvent;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SchemaRegistrySerdeConfigTest {

  private static Map<String, Object> with(Object... keysAndValues) {
    Map<String, Object> map = new HashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      map.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return map;
  }

  @Test
  void defaultsAreAutoRegisterNoAuthFiveAndTenSeconds() {
    var config = SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "http://registry:8081", "acks", "all"));
    assertThat(config.urls()).containsExactly(URI.create("http://registry:8081"));
    assertThat(config.autoRegister()).isTrue();
    assertThat(config.basicAuthUserInfo()).isEmpty();
    assertThat(config.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
    assertThat(config.requestTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.isMock()).isFalse();
  }

  @Test
  void severalCommaSeparatedUrlsKeepTheirOrder() {
    var config = SchemaRegistrySerdeConfig.parse(with("schema.registry.url", " https://a:8081, http://b:8081/ccompat ,"));
    assertThat(config.urls()).containsExactly(URI.create("https://a:8081"), URI.create("http://b:8081/ccompat"));
  }

  @Test
  void typedAndTextualValuesAreBothAccepted() {
    var typed = SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://x",
        "auto.register.schemas", false, "schema.registry.connect.timeout.ms", 250,
        "schema.registry.request.timeout.ms", 2_000L));
    var text = SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://x",
        "auto.register.schemas", "FALSE", "schema.registry.connect.timeout.ms", "250",
        "schema.registry.request.timeout.ms", "2000"));
    assertThat(typed).isEqualTo(text);
    assertThat(typed.autoRegister()).isFalse();
    assertThat(typed.connectTimeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(typed.isMock()).isTrue();
  }

  @Test
  void unknownUrlSchemeFailsAtConfigureTimeNamingTheScheme() {
    var serde = SchemaRegistrySerde.of(WriteEvent.class);
    assertThatThrownBy(() -> serde.configure(with("schema.registry.url", "ftp://registry:21"), false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("unsupported URL scheme 'ftp'")
        .hasMessageContaining("mock://scope, http:// or https://");
  }

  @Test
  void missingOrEmptyUrlFails() {
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(Map.of()))
        .isInstanceOf(ConfigException.class).hasMessageContaining("schema.registry.url");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", " , ")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("no URL given");
  }

  @Test
  void urlWithoutSchemeOrScopeOrHostFails() {
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "registry:8081x")))
        .isInstanceOf(ConfigException.class);
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("is not a URL");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock:///scope")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("names no scope");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "http:///path")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("names no host");
  }

  @Test
  void mockAndHttpUrlsCannotBeMixed() {
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://a,http://b:1")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("cannot mix");
  }

  @Test
  void malformedValuesFailNamingTheKey() {
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://a", "auto.register.schemas", "yes")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("auto.register.schemas");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://a", "schema.registry.request.timeout.ms", "0")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("schema.registry.request.timeout.ms");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://a", "schema.registry.connect.timeout.ms", "5s")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("schema.registry.connect.timeout.ms");
  }

  @Test
  void basicAuthSources() {
    var userInfo = SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "http://r:1",
        "basic.auth.credentials.source", "USER_INFO", "basic.auth.user.info", "u:p"));
    assertThat(userInfo.basicAuthUserInfo()).isEqualTo(Optional.of("u:p"));

    var fromUrl = SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "http://u:p@r:1",
        "basic.auth.credentials.source", "URL"));
    assertThat(fromUrl.basicAuthUserInfo()).isEqualTo(Optional.of("u:p"));

    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "http://r:1",
        "basic.auth.credentials.source", "USER_INFO")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("basic.auth.user.info");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "http://r:1",
        "basic.auth.credentials.source", "SASL_INHERIT")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("USER_INFO and URL");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "http://r:1",
        "basic.auth.user.info", "no-colon")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("user:password");
  }

  @Test
  void printedSettingsHideThePassword() {
    var config = SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "http://u:secret@r:1",
        "basic.auth.credentials.source", "URL"));
    assertThat(config.toString()).doesNotContain("secret").contains("***@r:1");
  }

  @Test
  void printedSettingsShowNeitherTheUserInfoNorTheTruststorePassword(@TempDir Path dir) throws Exception {
    Path store = Files.writeString(dir.resolve("truststore.p12"), "not read by parse");
    var config = SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "https://r:1",
        "basic.auth.credentials.source", "USER_INFO", "basic.auth.user.info", "storage-team:hunter2",
        "schema.registry.ssl.truststore.location", store.toString(),
        "schema.registry.ssl.truststore.password", new Password("tr-pw-123"),
        "schema.registry.ssl.truststore.type", "PKCS12"));
    assertThat(config.truststore()).hasValueSatisfying(t -> {
      assertThat(t.password()).contains("tr-pw-123");
      assertThat(t.type()).isEqualTo("PKCS12");
    });
    assertThat(config.toString())
        .doesNotContain("storage-team").doesNotContain("hunter2").doesNotContain("tr-pw-123")
        .contains("basicAuth=yes").contains("truststore.p12").contains("password ***");
  }

  @Test
  void basicAuthKeysAreAlsoReadWithTheRegistryClientPrefix() {
    var config = SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "http://r:1",
        "schema.registry.basic.auth.credentials.source", "USER_INFO",
        "schema.registry.basic.auth.user.info", "u:p"));
    assertThat(config.basicAuthUserInfo()).contains("u:p");
  }

  @Test
  void truststoreDefaultsToJksAndNeedsAReadableFile(@TempDir Path dir) throws Exception {
    Path store = Files.writeString(dir.resolve("truststore.jks"), "x");
    var config = SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "https://r:1",
        "schema.registry.ssl.truststore.location", store.toString()));
    assertThat(config.truststore()).hasValueSatisfying(t -> {
      assertThat(t.type()).isEqualTo("JKS");
      assertThat(t.password()).isEmpty();
    });
    assertThat(SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "https://r:1")).truststore()).isEmpty();

    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "https://r:1",
        "schema.registry.ssl.truststore.location", dir.resolve("missing.jks").toString())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("schema.registry.ssl.truststore.location").hasMessageContaining("is not a readable file");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "https://r:1",
        "schema.registry.ssl.truststore.location", store.toString(), "schema.registry.ssl.truststore.type", "PEM")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("supported types are JKS and PKCS12");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "https://r:1",
        "schema.registry.ssl.truststore.password", "pw")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("schema.registry.ssl.truststore.location")
        .hasMessageContaining("required when schema.registry.ssl.truststore.password is set")
        .hasMessageNotContaining("pw\"");
  }

  @Test
  void specificAvroReaderDefaultsToFalse() {
    assertThat(SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://a")).specificReader()).isFalse();
    assertThat(SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://a", "specific.avro.reader", "true"))
        .specificReader()).isTrue();
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://a", "specific.avro.reader", "1")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("specific.avro.reader");
  }

  @Test
  void confluentKeysWhoseValuesCannotBeHonouredAreRefusedNotIgnored() {
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://a", "use.latest.version", "true")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("use.latest.version").hasMessageContaining("not supported");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://a",
        "value.subject.name.strategy", "io.confluent.kafka.serializers.subject.RecordNameStrategy")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("only the topic-name strategy");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "https://r:1",
        "schema.registry.ssl.keystore.location", "/etc/client.p12")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("mutual TLS").hasMessageContaining("not supported");
    assertThatThrownBy(() -> SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "https://r:1",
        "schema.registry.ssl.endpoint.identification.algorithm", "")))
        .isInstanceOf(ConfigException.class).hasMessageContaining("hostname verification cannot be turned off");

    var accepted = SchemaRegistrySerdeConfig.parse(with("schema.registry.url", "mock://a", "use.latest.version", "false",
        "key.subject.name.strategy", "io.confluent.kafka.serializers.subject.TopicNameStrategy",
        "value.subject.name.strategy", "io.confluent.kafka.serializers.subject.TopicNameStrategy",
        "schema.registry.ssl.endpoint.identification.algorithm", "https"));
    assertThat(accepted.urls()).containsExactly(URI.create("mock://a"));
  }

  @Test
  void unconfiguredSerializerSaysSo() {
    var serializer = new SchemaRegistrySerializer<>(WriteEvent.class);
    assertThatThrownBy(() -> serializer.serialize("skew.node-writes", SampleRecords.writeEvent()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("not configured");
  }

  @Test
  void serializerAndDeserializerCanBeConfiguredOnTheirOwn() {
    Map<String, Object> config = with("schema.registry.url", "mock://standalone-halves");
    try (var serializer = new SchemaRegistrySerializer<>(WriteEvent.class);
        var deserializer = new SchemaRegistryDeserializer<>(WriteEvent.class)) {
      serializer.configure(config, false);
      deserializer.configure(config, false);
      byte[] bytes = serializer.serialize("skew.node-writes", SampleRecords.writeEvent());
      assertThat(deserializer.deserialize("skew.node-writes", bytes)).isEqualTo(SampleRecords.writeEvent());
    } finally {
      MockSchemaRegistry.drop("standalone-halves");
    }
  }
}
