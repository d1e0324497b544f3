package io.skewguard.agent;

import io.skewguard.agent.report.CapacitySnapshot;
import io.skewguard.agent.report.NodeReporter;
import io.skewguard.agent.report.ReporterSettings;
import io.skewguard.agent.store.NodeStore;
import io.skewguard.agent.store.RocksDbNodeStore;
import io.skewguard.agent.store.StaleRouteException;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A storage node with SkewGuard embedded: its own store behind {@link NodeStore}, the command agent
 * applying the balancer's weights and the migrator's steps to it, the reporter telling the detector
 * what it writes and holds, and the router its write path asks where a key goes.
 */
public final class EmbeddingExample implements AutoCloseable {

    private final String node;
    private final long capacityBytes;
    private final RocksDbNodeStore store;
    private final WeightedRouter router;
    private final CommandAgent agent;
    private final NodeReporter reporter;

    /**
     * @param kafka the node's Kafka and registry settings, by their Kafka names: at least
     *     {@code bootstrap.servers} and {@code schema.registry.url}, plus any security keys
     * @param ring the cluster's nodes (the starting slot table until {@code skew.slot-table} has rows)
     */
    public EmbeddingExample(String cluster, String node, List<String> ring, Path dataDir, long capacityBytes,
                            Map<String, Object> kafka) {
        this.node = node;
        this.capacityBytes = capacityBytes;
        Topics topics = Topics.defaults();
        int slots = SlotTable.DEFAULT_SLOT_COUNT;

        // 1. The node's store. A real node implements NodeStore over its own engine (put, get, the
        //    weight, and the migration steps); RocksDbNodeStore is the one shipped. Peers are the
        //    other stores of this process that a copy reads from: none here.
        store = RocksDbNodeStore.open(dataDir.resolve("store"), node, slots, System::currentTimeMillis, id -> null);

        // 2. The write path's router: starts from the ring, then follows skew.node-weights and
        //    skew.slot-table.
        SlotTable initial = SlotTable.fromRing(HashRing.of(ring.stream().sorted().map(id -> new Node(id, null, 1.0)).toList()),
                Math.min(SlotTable.DEFAULT_CANDIDATES, ring.size()), slots);
        router = WeightedRouter.start(RoutingView.of(cluster, initial), topics, kafka, kafka);

        // 3. The command agent: its applied state lives in a local file, kept across restarts.
        AgentSettings agentSettings = new AgentSettings(cluster, node, slots, topics, dataDir.resolve("agent.state"),
                AgentSettings.DEFAULT_POLL_TIMEOUT, AgentSettings.DEFAULT_PROGRESS_INTERVAL, kafka);
        agent = new CommandAgent(agentSettings, store, System::currentTimeMillis);

        // 4. The reporter: write counts per slot every second, capacity every ten.
        Map<String, Object> producerConfig = new HashMap<>(kafka);
        producerConfig.put("acks", "all");
        reporter = new NodeReporter(ReporterSettings.defaults(cluster, node, kafka),
                new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer()),
                this::capacity, System::currentTimeMillis);
    }

    /** Starts the agent and the reporter once the router has the tables. */
    public EmbeddingExample start(Duration routerTimeout) throws InterruptedException {
        if (!router.awaitCaughtUp(routerTimeout)) {
            throw new IllegalStateException("the weight and slot tables did not load within " + routerTimeout);
        }
        agent.start();
        reporter.start();
        return this;
    }

    /**
     * The node's write path: the router names the node a new key goes to. This node stores it and
     * counts it; a key for another node is that node's to write (the client is sent there).
     *
     * @return the node that takes the write: this one, another (the client is sent there), or, when
     *     this node is a spread node of the key's slot that cleaned the slot up after an earlier
     *     migration away, the slot's own winner ({@code RoutingView.fallback})
     * @throws StaleRouteException if the key's slot has just moved away from this node: retry once
     *     the router has the slot-table row of the move (within a poll)
     */
    public String write(String key, long version, byte[] value) {
        String target = router.pick(key);
        if (!target.equals(node)) {
            return target;
        }
        try {
            store.put(key, version, value);
        } catch (StaleRouteException stale) {
            String elsewhere = router.view().fallback(key, node);
            if (elsewhere == null) {
                throw stale;
            }
            return elsewhere;
        }
        reporter.record(router.view().slotOf(key), key.length() + (long) value.length);
        return node;
    }

    /** What the detector is told the node holds: bytes per slot from the store, against the disk's size. */
    private CapacitySnapshot capacity() {
        Map<Integer, Long> shards = store.shardBytes();
        long used = shards.values().stream().mapToLong(Long::longValue).sum();
        router.setFreeRatio(node, 1.0 - (double) used / capacityBytes); // full nodes take no new keys
        return new CapacitySnapshot(Math.min(used, capacityBytes), capacityBytes, null, shards);
    }

    /** The node's store. */
    public NodeStore store() {
        return store;
    }

    /** The node's command agent. */
    public CommandAgent agent() {
        return agent;
    }

    /** Stops in order: the last counts flushed, the agent's last offsets committed, then the store closed. */
    @Override
    public void close() {
        reporter.close();
        agent.close();
        router.close();
        store.close();
    }
}
