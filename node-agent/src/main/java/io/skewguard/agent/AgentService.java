package io.skewguard.agent;

import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.report.CapacitySnapshot;
import io.skewguard.agent.report.NodeReporter;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.agent.service.AgentServiceSettings;
import io.skewguard.agent.service.LoadGenerator;
import io.skewguard.agent.service.WriteJournal;
import io.skewguard.agent.service.ZipfKeys;
import io.skewguard.agent.store.ForwardingNodeStore;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.agent.store.LatencyGovernor;
import io.skewguard.agent.store.LedgerNodeStore;
import io.skewguard.agent.store.RocksDbNodeStore;
import io.skewguard.agent.store.NodeStore;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.runtime.lifecycle.Service;
import io.skewguard.runtime.settings.ClientType;
import io.skewguard.schemas.NodeWeight;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agents of one or several storage nodes in one process ({@code skewguard agent},
 * docs/agents.md). Per hosted node: its {@link NodeStore} in {@code <data-dir>/<node>/store}, its
 * {@link CommandAgent} with the state file {@code <data-dir>/<node>/agent.state}, and its
 * {@link NodeReporter} sending the writes it takes and its capacity (the store's bytes per slot,
 * against {@code capacity-bytes}). For the process: one {@link WeightedRouter} following the weight
 * and slot tables, and, with {@code write-load > 0}, a {@link LoadGenerator} writing through the
 * router into the hosted stores, recording every completed write in {@code load-journal} if set.
 *
 * <p><b>Routing.</b> The router's view starts from the ring of {@code ring-nodes} (as the migrator's
 * first table does) and follows the topics from there. A weight command applied by a hosted node's
 * agent also goes into the view at once (the node knows its own weight before the table row
 * arrives), and each capacity report sets the node's free ratio.
 *
 * <p><b>Stop</b> ({@link #close(Duration)}), in this order: the load stops, the reporters flush and
 * close, the agents stop (their last offsets committed, state files saved as they went), the router
 * stops, the stores close.
 */
public final class AgentService implements Service, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AgentService.class);

    /** One hosted node. */
    private record Hosted(String node, LedgerNodeStore store, CommandAgent agent, NodeReporter reporter) {}

    private final AgentServiceSettings settings;
    private final LongSupplier clockMillis;
    private final Map<String, Hosted> hosted = Collections.synchronizedMap(new LinkedHashMap<>());
    private final Map<String, LedgerNodeStore> stores = new java.util.concurrent.ConcurrentHashMap<>();
    /** Paces the copies of every hosted store by their write latency; null: copies run at their granted rate. */
    private final LatencyGovernor governor;
    private volatile RoutingView view;
    private volatile WeightedRouter router;
    private volatile LoadGenerator load;
    private volatile Boolean closed;

    public AgentService(AgentServiceSettings settings, LongSupplier clockMillis) {
        this.settings = settings;
        this.clockMillis = clockMillis;
        // latencies are real time even when copies are paced by an injected clock
        this.governor = settings.copyPacer() == null ? null
                : new LatencyGovernor(settings.copyPacer(), java.time.Duration.ofSeconds(1), System::nanoTime);
    }

    /** {@code agents[n1,n2]}. */
    @Override
    public String name() {
        return "agents" + settings.nodes();
    }

    /** The settings it runs with. */
    public AgentServiceSettings settings() {
        return settings;
    }

    /**
     * Opens every hosted node's store and state file, then starts the router, the agents, the
     * reporters and the load. Does not wait for the router to catch up ({@link #ready()}).
     *
     * @throws io.skewguard.agent.state.StateFileException if a state file is corrupt or another node's
     */
    @Override
    public synchronized void start() {
        if (view != null) {
            throw new IllegalStateException(name() + " already started");
        }
        LOG.info("{}: starting with {}", name(), settings.settings());
        view = RoutingView.of(settings.cluster(), initialTable()).boundEpochs(settings.epochs())
                .boundNodes(settings.settings().integer(CommonSettings.MAX_NODES_PER_CLUSTER));
        for (String node : settings.nodes()) {
            createDirectory(node);
            LedgerNodeStore store = openStore(node);
            store.governedBy(governor);
            stores.put(node, store);
            CommandAgent agent = new CommandAgent(settings.agentSettings(node), new WeightIntoView(store, view), clockMillis);
            NodeReporter reporter = new NodeReporter(settings.reporterSettings(node), reporterProducer(node),
                    () -> capacityOf(node), clockMillis);
            hosted.put(node, new Hosted(node, store, agent, reporter));
            if (agent.state().weightEpoch() != AgentState.NO_EPOCH) {
                // the weight applied before a restart routes at once, not only once its table row is read
                WeightIntoView.apply(view, node, agent.state().weightEpoch(), agent.state().weight());
            }
            LOG.info("{}: node {} in {} ({} store), weight epoch {}, {} migrations recorded", name(), node,
                    settings.nodeDir(node), settings.store().label(), agent.state().weightEpoch(),
                    agent.state().migrations().size());
        }
        router = WeightedRouter.start(view, settings.topics(), settings.clientConfig(ClientType.CONSUMER),
                settings.serdeConfig());
        for (Hosted h : hosted.values()) {
            h.agent().start();
            h.reporter().start();
        }
        if (settings.writeLoad() > 0) {
            Map<String, LoadGenerator.Target> targets = new LinkedHashMap<>();
            hosted.values().forEach(h -> targets.put(h.node(), new LoadGenerator.Target(h.store(), h.reporter())));
            ZipfKeys keys = new ZipfKeys(settings.slotCount(), settings.keySpace(), settings.heatSkew(), settings.seed());
            WriteJournal journal = settings.loadJournal() == null ? null : WriteJournal.append(settings.loadJournal());
            load = new LoadGenerator(settings.writeLoad(), keys, view, targets, settings.valueBytes(), clockMillis, journal)
                    .start();
        }
    }

    /** Whether the router has loaded the tables and every agent runs. */
    @Override
    public boolean ready() {
        WeightedRouter r = router;
        if (r == null || closed != null) {
            return false;
        }
        try {
            if (!r.awaitCaughtUp(Duration.ZERO)) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return failure().isEmpty();
    }

    /** Why a part stopped for good: an agent's loop ended (a failed send, a broken state file), or the load failed. */
    @Override
    public Optional<Throwable> failure() {
        List<Hosted> nodes;
        synchronized (hosted) {
            nodes = new ArrayList<>(hosted.values());
        }
        for (Hosted h : nodes) {
            Optional<Throwable> stopped = h.agent().stoppedBy();
            if (stopped.isPresent()) {
                return stopped;
            }
        }
        LoadGenerator l = load;
        return l == null ? Optional.empty() : Optional.ofNullable(l.failure());
    }

    /** The routing view of the process's writers. */
    public RoutingView view() {
        return view;
    }

    /** The store of hosted {@code node}. */
    public NodeStore store(String node) {
        NodeStore store = stores.get(node);
        if (store == null) {
            throw new IllegalArgumentException(node + " is not hosted here; hosted: " + settings.nodes());
        }
        return store;
    }

    /** The command agent of hosted {@code node}. */
    public CommandAgent agent(String node) {
        Hosted h = hosted.get(node);
        if (h == null) {
            throw new IllegalArgumentException(node + " is not hosted here; hosted: " + settings.nodes());
        }
        return h.agent();
    }

    /** {@link #close(Duration)} with the configured close timeout. */
    @Override
    public void close() {
        close(settings.closeTimeout());
    }

    /**
     * Stops everything in order (see the class comment); safe in any state and idempotent. True if
     * every part closed without an error.
     */
    @Override
    public synchronized boolean close(Duration timeout) {
        if (closed != null) {
            return closed;
        }
        List<Throwable> failures = new ArrayList<>();
        quietly(load, failures);
        List<Hosted> nodes = new ArrayList<>(hosted.values());
        for (Hosted h : nodes) {
            quietly(h.reporter(), failures);
        }
        for (Hosted h : nodes) {
            quietly(h.agent(), failures);
        }
        quietly(router, failures);
        for (NodeStore store : stores.values()) {
            if (store instanceof AutoCloseable c) {
                quietly(c, failures);
            }
        }
        closed = failures.isEmpty();
        LOG.info("{}: closed{}", name(), failures.isEmpty() ? "" : " with " + failures.size() + " error(s)");
        return closed;
    }

    private static void quietly(AutoCloseable part, List<Throwable> failures) {
        if (part == null) {
            return;
        }
        try {
            part.close();
        } catch (Exception | Error e) {
            LOG.error("closing {} failed: {}", part.getClass().getSimpleName(), e.toString(), e);
            failures.add(e);
        }
    }

    // ------------------------------------------------------------------------------------ parts

    private SlotTable initialTable() {
        List<Node> ring = new ArrayList<>();
        settings.ringNodes().stream().sorted().forEach(id -> ring.add(new Node(id, null, 1.0)));
        int m = Math.min(settings.candidates(), ring.size());
        return SlotTable.fromRing(HashRing.of(ring), m, settings.slotCount());
    }

    private void createDirectory(String node) {
        try {
            Files.createDirectories(settings.nodeDir(node));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data directory of node " + node + ": " + settings.nodeDir(node), e);
        }
    }

    private LedgerNodeStore openStore(String node) {
        return switch (settings.store()) {
            case MEMORY -> new InMemoryNodeStore(node, settings.slotCount(), clockMillis, stores::get);
            case ROCKSDB -> RocksDbNodeStore.open(settings.storeDir(node), node, settings.slotCount(), clockMillis, stores::get);
        };
    }

    private KafkaProducer<byte[], byte[]> reporterProducer(String node) {
        Map<String, Object> config = settings.clientConfig(ClientType.PRODUCER);
        config.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "skewguard-reporter-" + node);
        config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 5);
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** The node's capacity from its store's bytes per slot; also the node's free ratio in the view. */
    private CapacitySnapshot capacityOf(String node) {
        LedgerNodeStore store = stores.get(node);
        Map<Integer, Long> shards = new TreeMap<>(store.shardBytes());
        long used = shards.values().stream().mapToLong(Long::longValue).sum();
        long total = settings.capacityBytes();
        view.setFreeRatio(node, 1.0 - (double) used / total);
        return new CapacitySnapshot(Math.min(used, total), total, settings.rackOrNull(), shards);
    }

    /** A hosted node's store that also puts every weight its agent applies into the routing view. */
    private static final class WeightIntoView extends ForwardingNodeStore {
        private final RoutingView view;

        WeightIntoView(NodeStore delegate, RoutingView view) {
            super(delegate);
            this.view = view;
        }

        @Override
        public void applyWeight(long epoch, double weight) {
            super.applyWeight(epoch, weight);
            apply(view, node(), epoch, weight);
        }

        static void apply(RoutingView view, String node, long epoch, double weight) {
            view.apply(NodeWeight.newBuilder().setCluster(view.cluster()).setNode(node).setEpoch(epoch)
                    .setWeight(weight).setUpdatedAt(Instant.now()).build());
        }
    }
}
