package io.skewguard.detector;

import io.skewguard.detector.ingest.IngestBuffer;
import io.skewguard.detector.ingest.IngestLoop;
import io.skewguard.detector.stream.ClusterProcessor;
import io.skewguard.detector.stream.StateCodec;
import io.skewguard.runtime.state.Changelogs;
import io.skewguard.runtime.streams.OutputLimit;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.util.Map;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * Wiring of the detector's stage two (docs/design.md §6); the thinking is in {@link ClusterProcessor}
 * and the policy package. Stage one is not part of this topology: it is {@link IngestBuffer}, run
 * by {@link IngestLoop} (plain clients, exactly-once) in the app and by the replay harness directly.
 *
 * <pre>
 *  node-writes ─┐ (bytes, keyed by node)
 *  node-capacity┴▶ stage one (IngestLoop): decode, validate, buffer per cluster and tick ──▶ dlq
 *                     │ PartialHeat keyed by cluster, in one transaction with the input offsets
 *                     ▼ &lt;application-id&gt;-partials
 *  this topology:  cluster: ring buffers, capacities, alert machines (changelogged stores)
 *                     ├──▶ reports (SkewReport, key cluster, every tick)
 *                     └──▶ alerts  (SkewAlert, key cluster, every transition)
 * </pre>
 */
public final class DetectorTopology {

    private DetectorTopology() {}

    /** Stage two of the detector for {@code settings}: partials in, reports and alerts out. */
    public static Topology build(DetectorSettings settings) {
        return build(settings, true);
    }

    /** Stage two, its stores changelogged or not ({@link Changelogs}: not only in the simulator's fast mode). */
    public static Topology build(DetectorSettings settings, boolean changelogs) {
        Topics topics = settings.topics();
        Map<String, Object> serdeConfig = settings.serdeConfig();
        // an output over the producer's limit is a dead letter, not a transaction that never commits
        OutputLimit limit = OutputLimit.of(settings.streamsProperties());
        var reports = limit.bound(SchemaRegistrySerde.of(SkewReport.class, serdeConfig, false));
        var alerts = limit.bound(SchemaRegistrySerde.of(SkewAlert.class, serdeConfig, false));

        StreamsBuilder builder = new StreamsBuilder();
        builder.addStateStore(Changelogs.of(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(ClusterProcessor.HEAT_STORE), Serdes.String(), Serdes.ByteArray())
                .withCachingDisabled(), changelogs));
        builder.addStateStore(Changelogs.of(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(ClusterProcessor.CAPACITY_STORE), Serdes.String(), Serdes.ByteArray())
                .withCachingEnabled(), changelogs));
        builder.addStateStore(Changelogs.of(Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore(ClusterProcessor.PROGRESS_STORE), Serdes.String(), Serdes.ByteArray())
                .withCachingEnabled(), changelogs));

        builder.stream(settings.partialsTopic(),
                        Consumed.with(Serdes.String(), StateCodec.partialSerde()).withName("partials"))
                .process(() -> new ClusterProcessor(settings.detection(), settings.futureSkew()), Named.as("cluster"),
                        ClusterProcessor.HEAT_STORE, ClusterProcessor.CAPACITY_STORE, ClusterProcessor.PROGRESS_STORE)
                .split(Named.as("detected-"))
                .branch((k, v) -> v instanceof SkewReport, Branched.withConsumer(s -> s
                        .mapValues(v -> (SkewReport) v, Named.as("as-report"))
                        .to(topics.reports(), Produced.with(Serdes.String(), reports).withName("reports"))))
                .branch((k, v) -> v instanceof SkewAlert, Branched.withConsumer(s -> s
                        .mapValues(v -> (SkewAlert) v, Named.as("as-alert"))
                        .to(topics.alerts(), Produced.with(Serdes.String(), alerts).withName("alerts"))))
                .noDefaultBranch();
        return builder.build();
    }
}
