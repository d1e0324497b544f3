package io.skewguard.migrator;

import io.skewguard.runtime.state.Changelogs;
import io.skewguard.runtime.streams.OutputLimit;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.auth.NodeKeys;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
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
 *  skew.migration-status              │
 *  skew.membership                    │
 *  skew.control ─┘                    └─good─▶ repartition by cluster ─▶ coordinator (6 stores, punctuation)
 *                                                                           │
 *              skew.migration-commands (key node) ◀── command ─────────────┤
 *              skew.slot-table (key cluster/slot, compacted) ◀── row ──────┤
 *              skew.migration-status (key cluster/repair) ◀── repair status┤
 *              skew.membership (key cluster/node, compacted) ◀── membership┤
 *              skew.proposals (key cluster) ◀── dry run's plan ────────────┤
 *              skew.decisions (key cluster) ◀── why it acted or not ───────┘
 *
 *  skew.slot-table ─▶ global store published-slot-table (the coordinator adopts a table from it)
 * </pre>
 */
public final class MigratorTopology {

    private static final Logger LOG = LoggerFactory.getLogger(MigratorTopology.class);

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
        return build(settings, stores, true);
    }

    /**
     * The topology with any kind of state store, changelogged or not. Without changelogs the stores
     * cannot be restored: only for a run whose topology is never restarted and whose changelogs
     * nobody reads (the simulator's fast mode, where the test driver would otherwise capture and check
     * a changelog record for every store write).
     */
    public static Topology build(MigratorSettings settings, Function<String, KeyValueBytesStoreSupplier> stores,
            boolean changelogs) {
        Topics topics = settings.topics();
        MigratorSerdes serdes = new MigratorSerdes(settings.serdeConfig());
        // an output over the producer's limit is a dead letter, not a transaction that never commits
        OutputLimit limit = OutputLimit.of(settings.streamsProperties());
        NodeKeys keys = settings.nodeKeys();
        if (keys.configured()) {
            LOG.info("node messages are authenticated: keys of {} nodes (docs/security.md)", keys.nodes().size());
        } else {
            LOG.warn("no node-keys-file: node messages are not authenticated; any client that can write the status or "
                    + "capacity topic can speak for any node, and commands to the agents are not signed (docs/security.md)");
        }
        if (!settings.operatorKeys().configured()) {
            LOG.warn("no operator-keys-file: control records are not authenticated; any client that can write the control topic "
                    + "can pause, throttle or dry-run this migrator (docs/security.md)");
        }
        StreamsBuilder builder = new StreamsBuilder();

        builder.addStateStore(store(stores, changelogs, CoordinatorProcessor.REPAIR_STORE, serdes.repairState()));
        builder.addStateStore(store(stores, changelogs, CoordinatorProcessor.CAPACITY_STORE, serdes.capacity()));
        builder.addStateStore(store(stores, changelogs, CoordinatorProcessor.REPORT_STORE, serdes.report()));
        builder.addStateStore(store(stores, changelogs, CoordinatorProcessor.SLOT_STORE, serdes.assignment()));
        // the slot table as published, read back so that a migrator with fresh state adopts it rather
        // than building another one; a global store is restored to the topic's end before any record
        // is processed, so the first plan sees every row. Values stay bytes: a row nobody can decode
        // is skipped when a table is adopted, and never stops the global thread (whose death is the app's)
        builder.addGlobalStore(
                Stores.keyValueStoreBuilder(stores.apply(CoordinatorProcessor.PUBLISHED_STORE), Serdes.String(), Serdes.ByteArray())
                        .withCachingDisabled()
                        .withLoggingDisabled(), // the topic is its changelog
                topics.slotTable(),
                Consumed.with(Serdes.String(), Serdes.ByteArray()).withName("published-slot-table"),
                () -> new PublishedRows(CoordinatorProcessor.PUBLISHED_STORE));
        builder.addStateStore(store(stores, changelogs, CoordinatorProcessor.MEMBERSHIP_STORE, serdes.member()));
        builder.addStateStore(store(stores, changelogs, CoordinatorProcessor.CONTROL_STORE, serdes.control()));
        builder.addStateStore(store(stores, changelogs, CoordinatorProcessor.SPREAD_STORE, serdes.spreadState()));

        KStream<String, MigratorInput> decoded = builder
                .stream(List.of(topics.alerts(), topics.reports(), topics.nodeCapacity(), topics.migrationStatus(),
                                topics.membership(), topics.control()),
                        Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("inputs"))
                .process(() -> new InputDecoder(topics, serdes, settings.slotCount(), settings.futureSkew(), keys,
                        settings.clusters(), settings.limits().nodeExpiry(), settings.operatorKeys()), Named.as("decode"));

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
                        CoordinatorProcessor.REPORT_STORE, CoordinatorProcessor.SLOT_STORE, CoordinatorProcessor.MEMBERSHIP_STORE,
                        CoordinatorProcessor.CONTROL_STORE, CoordinatorProcessor.SPREAD_STORE);

        Map<String, KStream<String, MigratorOutput>> byType = outputs.split(Named.as("output-"))
                .branch((k, v) -> v instanceof MigratorOutput.Command, Branched.as("command"))
                .branch((k, v) -> v instanceof MigratorOutput.Assignment, Branched.as("assignment"))
                .branch((k, v) -> v instanceof MigratorOutput.Refused, Branched.as("refused"))
                .branch((k, v) -> v instanceof MigratorOutput.Membership, Branched.as("membership"))
                .branch((k, v) -> v instanceof MigratorOutput.Proposal, Branched.as("proposal"))
                .branch((k, v) -> v instanceof MigratorOutput.Decision, Branched.as("decision"))
                .defaultBranch(Branched.as("repair-status"));
        byType.get("output-command")
                .mapValues(v -> ((MigratorOutput.Command) v).value(), Named.as("command-value"))
                .process(() -> new CommandSigner(topics.migrationCommands(), limit.bound(serdes.command()).serializer(), keys),
                        Named.as("sign-command"))
                .to(topics.migrationCommands(), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("commands"));
        byType.get("output-assignment")
                .mapValues(v -> ((MigratorOutput.Assignment) v).value(), Named.as("assignment-value"))
                .to(topics.slotTable(), Produced.with(Serdes.String(), limit.bound(serdes.assignment())).withName("slot-table"));
        byType.get("output-refused")
                .processValues(RefusedValue::new, Named.as("refused-value"))
                .to(topics.dlq(), Produced.with(Serdes.String(), Serdes.ByteArray()).withName("refused"));
        byType.get("output-membership")
                .mapValues(v -> ((MigratorOutput.Membership) v).value(), Named.as("membership-value"))
                .to(topics.membership(), Produced.with(Serdes.String(), limit.bound(serdes.membership())).withName("membership"));
        byType.get("output-proposal")
                .mapValues(v -> ((MigratorOutput.Proposal) v).value(), Named.as("proposal-value"))
                .to(topics.proposals(), Produced.with(Serdes.String(), limit.bound(serdes.proposal())).withName("proposals"));
        byType.get("output-decision")
                .mapValues(v -> ((MigratorOutput.Decision) v).value(), Named.as("decision-value"))
                .to(topics.decisions(), Produced.with(Serdes.String(), limit.bound(serdes.decision())).withName("decisions"));
        byType.get("output-repair-status")
                .mapValues(v -> ((MigratorOutput.RepairStatus) v).value(), Named.as("repair-status-value"))
                .to(topics.migrationStatus(), Produced.with(Serdes.String(), limit.bound(serdes.status())).withName("repair-status"));

        return builder.build();
    }

    /**
     * Serializes each command and, with node keys, signs it with the key of the node it goes to
     * (the record key), so that only the migrator can command a node (docs/security.md). The key is
     * written as the String serde would: the partition stays the same.
     */
    private static final class CommandSigner implements Processor<String, MigrationCommand, byte[], byte[]> {
        private final String topic;
        private final Serializer<MigrationCommand> serializer;
        private final NodeKeys keys;
        private ProcessorContext<byte[], byte[]> context;

        CommandSigner(String topic, Serializer<MigrationCommand> serializer, NodeKeys keys) {
            this.topic = topic;
            this.serializer = serializer;
            this.keys = keys;
        }

        @Override
        public void init(ProcessorContext<byte[], byte[]> context) {
            this.context = context;
        }

        @Override
        public void process(Record<String, MigrationCommand> record) {
            byte[] key = record.key() == null ? null : record.key().getBytes(StandardCharsets.UTF_8);
            byte[] value = serializer.serialize(topic, record.value());
            Record<byte[], byte[]> out = record.withKey(key).withValue(value);
            if (record.key() != null) {
                keys.signInto(record.key(), out.headers(), topic, key, value);
            }
            context.forward(out);
        }
    }

    /** Keeps the global store of the published slot-table rows (key {@code <cluster>/<slot>}, raw value) as the topic says. */
    private static final class PublishedRows implements Processor<String, byte[], Void, Void> {
        private final String storeName;
        private KeyValueStore<String, byte[]> rows;

        PublishedRows(String storeName) {
            this.storeName = storeName;
        }

        @Override
        public void init(ProcessorContext<Void, Void> context) {
            this.rows = context.getStateStore(storeName);
        }

        @Override
        public void process(Record<String, byte[]> record) {
            if (record.key() == null) {
                return; // not a row of ours: every row has a key
            }
            if (record.value() == null) {
                rows.delete(record.key());
            } else {
                rows.put(record.key(), record.value());
            }
        }
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
            boolean changelogs, String name, Serde<V> valueSerde) {
        StoreBuilder<KeyValueStore<String, V>> builder = Stores.keyValueStoreBuilder(stores.apply(name), Serdes.String(), valueSerde)
                .withCachingDisabled();
        return Changelogs.of(builder, changelogs);
    }
}
