package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.WriteEvent;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The caching client remembers "no schema has this id", bounded in size and in time. */
class UnknownIdMemoryTest {

  private final String scope = "unknown-ids-" + UUID.randomUUID();
  private final MockSchemaRegistry registry = MockSchemaRegistry.scope(scope);
  private final AtomicLong now = new AtomicLong();

  @AfterEach
  void dropScope() {
    MockSchemaRegistry.drop(scope);
  }

  @Test
  void anUnknownIdIsAskedForOnceWhileRemembered() {
    var client = new CachingSchemaRegistryClient(registry, 10, Duration.ofMinutes(1), now::get);
    for (int i = 0; i < 100; i++) {
      assertThatThrownBy(() -> client.getById(42))
          .isInstanceOfSatisfying(SchemaRegistryException.class, e -> assertThat(e.isNotFound()).isTrue());
    }
    assertThat(registry.requestCount()).isEqualTo(1);
  }

  @Test
  void anIdRegisteredLaterIsFoundOnceTheMemoryOfItExpires() {
    var client = new CachingSchemaRegistryClient(registry, 10, Duration.ofMinutes(1), now::get);
    assertThatThrownBy(() -> client.getById(1)).isInstanceOf(SchemaRegistryException.class);
    registry.register("skew.node-writes-value", WriteEvent.getClassSchema()); // gets id 1

    now.addAndGet(Duration.ofSeconds(59).toNanos());
    assertThatThrownBy(() -> client.getById(1)).as("still remembered").isInstanceOf(SchemaRegistryException.class);
    now.addAndGet(Duration.ofSeconds(1).toNanos());
    assertThat(client.getById(1)).isEqualTo(WriteEvent.getClassSchema());
  }

  @Test
  void theOldestUnknownIdIsForgottenPastTheCapacity() {
    var client = new CachingSchemaRegistryClient(registry, 3, Duration.ofMinutes(1), now::get);
    for (int id = 100; id < 110; id++) {
      int unknown = id;
      assertThatThrownBy(() -> client.getById(unknown)).isInstanceOf(SchemaRegistryException.class);
    }
    assertThat(client.unknownIds()).isEqualTo(3);
    long before = registry.requestCount();
    assertThatThrownBy(() -> client.getById(109)).isInstanceOf(SchemaRegistryException.class);
    assertThat(registry.requestCount()).as("a recent one is remembered").isEqualTo(before);
    assertThatThrownBy(() -> client.getById(100)).isInstanceOf(SchemaRegistryException.class);
    assertThat(registry.requestCount()).as("the oldest was forgotten and asked for again").isEqualTo(before + 1);
  }

  @Test
  void registeringAnIdThroughTheClientForgetsThatItWasUnknown() {
    var client = new CachingSchemaRegistryClient(registry, 10, Duration.ofMinutes(1), now::get);
    assertThatThrownBy(() -> client.getById(1)).isInstanceOf(SchemaRegistryException.class);
    int id = client.register("skew.node-writes-value", WriteEvent.getClassSchema());
    assertThat(id).isEqualTo(1);
    assertThat(client.getById(1)).isEqualTo(WriteEvent.getClassSchema());
  }
}
