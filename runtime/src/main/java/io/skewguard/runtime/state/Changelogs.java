package io.skewguard.runtime.state;

import java.util.Map;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.state.StoreBuilder;

/**
 * Whether a topology's stores are changelogged. The apps' always are: a restarted or moved task
 * restores them. Without changelogs a store cannot be restored, so that is only for a topology that
 * is never restarted and whose changelogs nobody reads: the simulator's fast mode, where Kafka's test
 * driver would otherwise capture and check a changelog record for every store write.
 */
public final class Changelogs {

    private Changelogs() {}

    /** {@code store} with a changelog of the broker's defaults, or without one. */
    public static <S extends StateStore> StoreBuilder<S> of(StoreBuilder<S> store, boolean changelogs) {
        return changelogs ? store.withLoggingEnabled(Map.of()) : store.withLoggingDisabled();
    }
}
