package io.skewguard.runtime.state;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;

class ChangelogsTest {

    private static StoreBuilder<KeyValueStore<String, String>> store() {
        return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("s"), Serdes.String(), Serdes.String());
    }

    @Test
    void withChangelogsTheStoreIsLoggedWithoutItIsNot() {
        assertThat(Changelogs.of(store().withLoggingDisabled(), true).loggingEnabled()).isTrue();
        assertThat(Changelogs.of(store(), false).loggingEnabled()).isFalse();
    }
}
