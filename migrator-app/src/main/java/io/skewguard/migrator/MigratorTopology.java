package io.skewguard.migrator;

import io.skewguard.schemas.Topics;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import java.util.function.Function;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;

/**
 * The migrator's Kafka Streams wiring. Nothing here decides anything; the decisions are in
 * {@code io.skewguard.migrator.policy}.
 *
 * <pre>
 *  skew.alerts ─┐
 *  skew.reports ├─ decode + validate ──bad──▶ skew.dlq (headers: source topic, partition, offset, reason)
 *  skew.node-capacity                 │
 *  skew.migration-status ─┘           └─good─▶ repartition by cluster ─▶ coordinator (4 stores, punctuation)
 *                                                                           │
 *              skew.migration-commands (key node) ◀── command ─────────────┤
 *              skew.slot-table (key cluster/slot, compacted) ◀── row ──────┤
 *              skew.migration-status (key cluster/repair) ◀── repair status┘
 * </pre>
 */
public final class MigratorTopology {

    private MigratorTopology() {}

    /** The topology for {@code settings}, with RocksDB state stores. */
    public static Topology build(MigratorSettings settings) {
        return build(settings, Stores::persistentKeyValueStore);
    }

    /**
     * The topology with any kind of state store (the simulator's fast mode uses
     * {@code Stores::inMemoryKeyValueStore}, whose test driver would otherwise flush RocksDB after
     * every record). The stores stay changelogged either way.
     */
    public static Topology build(MigratorSettings settings, Function<String, KeyValueBytesStoreSupplier> stores) {
        Topics topics = settings.topics();
        MigratorSerdes serdes = new MigratorSerdes(settings.serdeConfig());
        StreamsBuilder builder = new StreamsBuilder();

        builder.addStateStore(store(stores, CoordinatorProcessor.REPAIR_STORE, serdes.repairState()));
        builder.addStateStore(store(stores, CoordinatorProcessor.CAPACITY_STORE, serdes.capacity()));
        builder.addStateStore(store(stores, CoordinatorProcessor.REPORT_STORE, serdes.report()));
        builder.addStateStore(store(stores, CoordinatorProcessor.SLOT_STORE, serdes.assignment()));

        KStream<String, MigratorInput> decoded = builder
                .stream(List.of(topics.alerts(), topics.reports(), topics.nodeCapacity(), topics.migrationStatus()),
                        Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("inputs"))
                .process(() -> new InputDecoder(topics, serdes, settings.slotCount()), Named.as("decode"));

        Map<String, KStream<String, MigratorInput>> byKind = decoded.split(Named.as("input-"))
                .branch((k, v) -> v instanceof MigratorInput.Rejected, Branched.as("rejected"))
                .defaultBranch(Branched.as("accepted"));

        byKind.get("input-rejected")
                .map((k, v) -> {
                    MigratorInput.Rejected r = (MigratorInput.Rejected) v;
                    return KeyValue.pair(r.key(), r.value());
                }, Named.as("dead-letter"))
                .to(topics.dlq(), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("dlq"));

        KStream<String, MigratorOutput> outputs = byKind.get("input-accepted")
                .repartition(Repartitioned.with(Serdes.String(), serdes.envelope()).withName("by-cluster"))
                .process(() -> new CoordinatorProcessor(settings, serdes), Named.as("coordinator"),
                        CoordinatorProcessor.REPAIR_STORE, CoordinatorProcessor.CAPACITY_STORE,
                        CoordinatorProcessor.REPORT_STORE, CoordinatorProcessor.SLOT_STORE);

        Map<String, KStream<String, MigratorOutput>> byType = outputs.split(Named.as("output-"))
                .branch((k, v) -> v instanceof MigratorOutput.Command, Branched.as("command"))
                .branch((k, v) -> v instanceof MigratorOutput.Assignment, Branched.as("assignment"))
                .branch((k, v) -> v instanceof MigratorOutput.Refused, Branched.as("refused"))
                .defaultBranch(Branched.as("repair-status"));
        byType.get("output-command")
                .mapValues(v -> ((MigratorOutput.Command) v).value(), Named.as("command-value"))
                .to(topics.migrationCommands(), Produced.with(Serdes.String(), serdes.command()).withName("commands"));
        byType.get("output-assignment")
                .mapValues(v -> ((MigratorOutput.Assignment) v).value(), Named.as("assignment-value"))
                .to(topics.slotTable(), Produced.with(Serdes.String(), serdes.assignment()).withName("slot-table"));
        byType.get("output-refused")
                .processValues(RefusedValue::new, Named.as("refused-value"))
                .to(topics.dlq(), Produced.with(Serdes.String(), Serdes.ByteArray()).withName("refused"));
        byType.get("output-repair-status")
                .mapValues(v -> ((MigratorOutput.RepairStatus) v).value(), Named.as("repair-status-value"))
                .to(topics.migrationStatus(), Produced.with(Serdes.String(), serdes.status()).withName("repair-status"));

        return builder.build();
    }

    /**
     * Kafka Streams configuration: the settings' Streams properties (exactly_once_v2 fixed, every
     * Kafka key given), and, unless given, no record cache (every store is uncached anyway) and the
     * default serdes of the topology's keys and raw values.
     */
    public static Properties streamsConfig(MigratorSettings settings) {
        Properties p = settings.streamsProperties();
        p.putIfAbsent(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, "0");
        p.putIfAbsent(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class.getName());
        p.putIfAbsent(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class.getName());
        return p;
    }

    private static <V> StoreBuilder<KeyValueStore<String, V>> store(Function<String, KeyValueBytesStoreSupplier> stores,
            String name, Serde<V> valueSerde) {
        return Stores.keyValueStoreBuilder(stores.apply(name), Serdes.String(), valueSerde)
                .withCachingDisabled()
                .withLoggingEnabled(Map.of());
    }
}
