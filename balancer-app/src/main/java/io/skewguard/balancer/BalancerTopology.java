package io.skewguard.balancer;

import io.skewguard.balancer.policy.WeightController;
import io.skewguard.balancer.policy.WeightPolicy;
import io.skewguard.runtime.state.Changelogs;
import io.skewguard.runtime.streams.OutputLimit;
import io.skewguard.schemas.Topics;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.Topology;
import java.util.function.Function;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;

/**
 * Wiring of the balancer: {@code skew.reports} and {@code skew.alerts} (both keyed by cluster; they
 * must have the same partition count) into one {@link WeightRoundProcessor} with the per-cluster
 * controller state store, out to {@code skew.weight-commands}, the compacted {@code
 * skew.node-weights}, {@code skew.proposals} (dry run), {@code skew.decisions} (the decision log) and
 * {@code skew.dlq}. The operators' {@code skew.control} topic is a global store ({@link ControlTable})
 * the rounds read their cluster's controls from.
 *
 * <p>Sources read raw bytes so that undecodable records reach the dead-letter topic as they came.
 */
public final class BalancerTopology {

    /** Name of the per-cluster {@code ControllerState} store (and of its changelog topic's suffix). */
    public static final String STATE_STORE = "balancer-controller-state";

    /**
     * Name of the store of when each cluster and node was last in a record: key {@code cluster} NUL
     * {@code node} (an empty node for the cluster itself), value the record's timestamp.
     */
    public static final String SEEN_STORE = "balancer-last-seen";

    /** Name of the global store of the operators' control records (key as on the control topic, value as published). */
    public static final String CONTROL_STORE = "balancer-controls";

    private BalancerTopology() {}

    /** The topology with SkewGuard's {@link WeightController}. */
    public static Topology build(BalancerSettings settings) {
        return build(settings, new WeightController(settings.controller()));
    }

    /** The topology with any weight policy (the simulator compares alternatives). */
    public static Topology build(BalancerSettings settings, WeightPolicy policy) {
        return build(settings, policy, Stores::persistentKeyValueStore);
    }

    /**
     * The topology with any weight policy and any kind of state store (RocksDB in the app; the
     * simulator's fast mode uses {@code Stores::inMemoryKeyValueStore}, whose test driver would
     * otherwise flush RocksDB after every record). The stores stay changelogged either way.
     */
    public static Topology build(BalancerSettings settings, WeightPolicy policy,
            Function<String, KeyValueBytesStoreSupplier> stores) {
        return build(settings, policy, stores, true);
    }

    /**
     * As {@link #build(BalancerSettings, WeightPolicy, Function)}, the stores changelogged or not
     * ({@link Changelogs}: not only in the simulator's fast mode).
     */
    public static Topology build(BalancerSettings settings, WeightPolicy policy,
            Function<String, KeyValueBytesStoreSupplier> stores, boolean changelogs) {
        Topics topics = settings.topics();
        if (!settings.operatorKeys().configured()) {
            org.slf4j.LoggerFactory.getLogger(BalancerTopology.class).warn("no operator-keys-file: control records are not "
                    + "authenticated; any client that can write the control topic can pause or dry-run this balancer (docs/security.md)");
        }
        ByteArrayDeserializer bytesIn = new ByteArrayDeserializer();
        // an output over the producer's limit is a dead letter, not a transaction that never commits
        Serializer<byte[]> bytesOut = OutputLimit.of(settings.streamsProperties()).bound(new ByteArraySerializer());
        Topology topology = new Topology();
        topology.addSource("reports-source", bytesIn, bytesIn, topics.reports());
        topology.addSource("alerts-source", bytesIn, bytesIn, topics.alerts());
        topology.addProcessor("weight-rounds",
                () -> new WeightRoundProcessor(settings, policy), "reports-source", "alerts-source");
        topology.addStateStore(
                Changelogs.of(Stores.keyValueStoreBuilder(
                        stores.apply(STATE_STORE), Serdes.String(), new ControllerStateSerde()), changelogs),
                "weight-rounds");
        topology.addStateStore(
                Changelogs.of(Stores.keyValueStoreBuilder(stores.apply(SEEN_STORE), Serdes.String(), Serdes.Long()), changelogs),
                "weight-rounds");
        topology.addSink(WeightRoundProcessor.COMMANDS_SINK, topics.weightCommands(), bytesOut, bytesOut,
                "weight-rounds");
        topology.addSink(WeightRoundProcessor.WEIGHTS_SINK, topics.nodeWeights(), bytesOut, bytesOut,
                "weight-rounds");
        topology.addSink(WeightRoundProcessor.PROPOSALS_SINK, topics.proposals(), bytesOut, bytesOut, "weight-rounds");
        topology.addSink(WeightRoundProcessor.DECISIONS_SINK, topics.decisions(), bytesOut, bytesOut, "weight-rounds");
        topology.addSink(WeightRoundProcessor.DLQ_SINK, topics.dlq(), bytesOut, bytesOut, "weight-rounds");
        topology.addGlobalStore(
                Stores.keyValueStoreBuilder(stores.apply(CONTROL_STORE), Serdes.String(), Serdes.ByteArray()).withLoggingDisabled(),
                "control-source", bytesIn, bytesIn, topics.control(), "control-table",
                () -> new ControlTable(CONTROL_STORE, topics.control(), settings.serdeConfig(), settings.operatorKeys()));
        return topology;
    }
}
