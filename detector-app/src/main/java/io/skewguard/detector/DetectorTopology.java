package io.skewguard.detector;

import io.skewguard.detector.stream.ClusterProcessor;
import io.skewguard.detector.stream.IngestDrain;
import io.skewguard.detector.stream.IngestOutput;
import io.skewguard.detector.stream.IngestProcessor;
import io.skewguard.detector.stream.PartialHeat;
import io.skewguard.detector.stream.Rejected;
import io.skewguard.detector.stream.StateCodec;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;
import org.apache.kafka.streams.state.Stores;

/**
 * Wiring of the detector (DESIGN.md §3); the thinking is in {@link IngestProcessor},
 * {@link ClusterProcessor} and the policy package.
 *
 * <pre>
 *  node-writes ─┐ (bytes, keyed by node)
 *  node-capacity┴▶ ingest: decode, validate, buffer per cluster and tick ──▶ dlq (original bytes + headers)
 *                     │ PartialHeat keyed by cluster
 *                     ▼ repartition "partials"
 *                  cluster: ring buffers, capacities, alert machines (changelogged stores)
 *                     ├──▶ reports (SkewReport, key cluster, every tick)
 *                     └──▶ alerts  (SkewAlert, key cluster, every transition)
 * </pre>
 */
public final class DetectorTopology {

    private DetectorTopology() {}

    /** The detector's topology for {@code settings}, for runs that never drain (tests, replay). */
    public static Topology build(DetectorSettings settings) {
        return build(settings, new IngestDrain());
    }

    /** The detector's topology for {@code settings}; {@code drain} empties its buffers before a shutdown. */
    public static Topology build(DetectorSettings settings, IngestDrain drain) {
        Topics topics = settings.topics();
        Map<String, Object> serdeConfig = settings.serdeConfig();
        var writes = SchemaRegistrySerde.of(WriteEvent.class, serdeConfig, false);
        var capacities = SchemaRegistrySerde.of(CapacityEvent.class, serdeConfig, false);
        var reports = SchemaRegistrySerde.of(SkewReport.class, serdeConfig, false);
        var alerts = SchemaRegistrySerde.of(SkewAlert.class, serdeConfig, false);

        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(ClusterProcessor.HEAT_STORE), Serdes.String(), Serdes.ByteArray())
                .withLoggingEnabled(Map.of()).withCachingDisabled());
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(ClusterProcessor.CAPACITY_STORE), Serdes.String(), Serdes.ByteArray())
                .withLoggingEnabled(Map.of()).withCachingEnabled());
        builder.addStateStore(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(ClusterProcessor.PROGRESS_STORE), Serdes.String(), Serdes.ByteArray())
                .withLoggingEnabled(Map.of()).withCachingEnabled());

        KStream<Object, IngestOutput> ingested = builder
                .stream(List.of(topics.nodeWrites(), topics.nodeCapacity()),
                        Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("input"))
                .process(() -> new IngestProcessor(topics.nodeWrites(), topics.nodeCapacity(),
                        writes.deserializer(), capacities.deserializer(), settings.inputCheck(),
                        settings.tick().toMillis(), settings.flushInterval(), drain), Named.as("ingest"));

        ingested.split(Named.as("ingested-"))
                .branch((k, v) -> v instanceof PartialHeat, Branched.withConsumer(partials -> partials
                        .map((k, v) -> KeyValue.pair((String) k, (PartialHeat) v), Named.as("as-partial"))
                        .repartition(Repartitioned.<String, PartialHeat>as("partials")
                                .withKeySerde(Serdes.String()).withValueSerde(StateCodec.partialSerde()))
                        .process(() -> new ClusterProcessor(settings.detection()), Named.as("cluster"),
                                ClusterProcessor.HEAT_STORE, ClusterProcessor.CAPACITY_STORE,
                                ClusterProcessor.PROGRESS_STORE)
                        .split(Named.as("detected-"))
                        .branch((k, v) -> v instanceof SkewReport, Branched.withConsumer(s -> s
                                .mapValues(v -> (SkewReport) v, Named.as("as-report"))
                                .to(topics.reports(), Produced.with(Serdes.String(), reports).withName("reports"))))
                        .branch((k, v) -> v instanceof SkewAlert, Branched.withConsumer(s -> s
                                .mapValues(v -> (SkewAlert) v, Named.as("as-alert"))
                                .to(topics.alerts(), Produced.with(Serdes.String(), alerts).withName("alerts"))))
                        .noDefaultBranch(), "partials"))
                .defaultBranch(Branched.withConsumer(rejected -> rejected
                        .map((k, v) -> KeyValue.pair(((Rejected) v).key(), ((Rejected) v).value()), Named.as("as-dead-letter"))
                        .to(topics.dlq(), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("dead-letters")),
                        "dead-letters"));
        return builder.build();
    }
}
