package io.skewguard.sim.demo;

import io.skewguard.agent.AgentSettings;
import io.skewguard.agent.CommandAgent;
import io.skewguard.agent.RoutingView;
import io.skewguard.agent.WeightedRouter;
import io.skewguard.agent.report.CapacitySnapshot;
import io.skewguard.agent.report.NodeReporter;
import io.skewguard.agent.report.ReporterSettings;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.agent.store.StaleRouteException;
import io.skewguard.agent.store.Versioned;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.core.stats.CoefficientOfVariation;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.sim.model.SlotHeat;
import io.skewguard.sim.scenario.HeatSpec;
import io.skewguard.sim.scenario.NodeSpec;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioEvent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulated storage cluster of the demo, talking to SkewGuard only through Kafka.
 *
 * <p>Per node: an {@link InMemoryNodeStore} that really holds the keys, a {@link CommandAgent}
 * applying the weight and migration commands to it, and a {@link NodeReporter} sending its writes
 * and capacity. The writers place every key with a {@link WeightedRouter} that follows
 * {@code skew.node-weights} and {@code skew.slot-table}, and {@code put} it on the node picked; a
 * slot being migrated is dual-written by the source store, and a write refused because the slot
 * left that node ({@link StaleRouteException}) is picked again once the router has the new row.
 *
 * <p><b>Size.</b> A scenario's nodes hold terabytes; the stores hold megabytes. One stored byte stands
 * for {@link #scale()} simulated bytes: capacity reports, write heat and copy bandwidth are scaled
 * ({@link ScaledNodeStore}); keys are real.
 *
 * <p><b>Load.</b> The starting data ({@code fill} of the capacity) is laid down before the apps see
 * anything, in 50 rounds with the same placement rule (so the ring's blindness to capacity shows),
 * under the scenario's fill heat. Then every {@link #step()} writes {@code writesPerStep} new keys
 * whose slots follow the scenario's heat, flushes every reporter with the step's time and sends
 * every node's capacity. Growth, daily cycle and noise of the scenario's writes are not modelled.
 *
 * <p><b>Membership.</b> A node that joins ({@link #join}) starts with an empty store, its agent and
 * its reporter at the event's time and reports capacity from the next step on; writers pick it only
 * once a slot-table row names it. A node being drained ({@link #leaving}) keeps running: the migrator
 * moves its shards away, the writers' router leaves it out of the pick once its rows mark it
 * read-only. The cluster's figures (capacity CV, the least bytes to move) are those of the nodes that
 * stay: started and not being drained.
 *
 * <p>Single writer thread: {@link #fill()}, {@link #step()}, {@link #join} and {@link #checkKeys} are
 * called from one thread; the agents and the router run on their own.
 */
final class DemoCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DemoCluster.class);
    private static final int FILL_ROUNDS = 50;
    private static final int FILL_VALUE_BYTES = 1000;
    private static final int STALE_RETRIES = 200;

    /** Result of reading every written key back through the final slot table. */
    record KeyCheck(long written, long unreadable, List<String> examples) {}

    private final DemoSettings settings;
    private final Scenario scenario;
    private final String cluster = DemoSettings.CLUSTER;
    private final int slots;
    /** Every node of the run, initial and joining, in the order of the report's per-node figures. */
    private final List<NodeSpec> allNodes;
    /** The nodes started so far (initial, then joined). */
    private final List<NodeSpec> nodes = new ArrayList<>();
    /** Nodes being drained (a drain requested and not cancelled). */
    private final Set<String> leaving = new HashSet<>();
    // read by the agents' copies (peer lookup) while a joining node is added
    private final Map<String, InMemoryNodeStore> stores = new ConcurrentHashMap<>();
    private final Map<String, CommandAgent> agents = new LinkedHashMap<>();
    private final Map<String, NodeReporter> reporters = new LinkedHashMap<>();
    private final Map<String, KafkaProducer<byte[], byte[]>> producers = new LinkedHashMap<>();
    private final SlotTable initialTable;
    private final RoutingView view;
    private final WeightedRouter router;
    private final AtomicLong clock;
    private final SplittableRandom random;
    private final double scale;
    private final byte[] fillValue = new byte[FILL_VALUE_BYTES];
    private final byte[] writeValue;
    private final double[] writeCdf;
    private final KeyNames names;
    private final Map<String, Long> written = new HashMap<>();
    private final long startMillis;
    private final String bootstrapServers;
    private final Path agentStateDir;
    private boolean agentsStarted;
    private boolean closed;
    private long version;
    private long step;
    private long refusedWrites;
    private double refusedBytes;
    private double writtenBytes;

    DemoCluster(DemoSettings settings, String bootstrapServers, Path agentStateDir, long startMillis) {
        this.settings = settings;
        this.scenario = settings.scenario();
        this.slots = scenario.slots();
        List<NodeSpec> every = new ArrayList<>(scenario.nodes());
        scenario.events().stream().filter(e -> e instanceof ScenarioEvent.Join)
                .forEach(e -> every.add(((ScenarioEvent.Join) e).node()));
        this.allNodes = List.copyOf(every);
        this.startMillis = startMillis;
        this.bootstrapServers = bootstrapServers;
        this.agentStateDir = agentStateDir;
        this.clock = new AtomicLong(startMillis);
        this.random = new SplittableRandom(scenario.seed());
        double capacity = scenario.nodes().stream().mapToDouble(NodeSpec::capacityBytes).sum();
        this.names = new KeyNames(slots);
        double fillBytes = scenario.fill() * capacity;
        this.scale = Math.max(1.0, fillBytes / ((double) settings.fillKeys() * (FILL_VALUE_BYTES + KeyNames.LENGTH)));
        double objectBytes = scenario.writes().bytesPerDay() * (scenario.stepMillis() / 86_400_000.0) / settings.writesPerStep();
        this.writeValue = new byte[(int) Math.max(1, Math.round(objectBytes / scale) - KeyNames.LENGTH)];
        this.writeCdf = cdf(SlotHeat.shares(scenario.heat(), slots, random.split()));

        // the table the migrator builds on its first plan (docs/migrator.md §3): ring of the nodes
        // sorted by id, ring weight 1; writers start from the same table
        List<Node> ring = new ArrayList<>();
        scenario.nodes().stream().sorted((a, b) -> a.id().compareTo(b.id())).forEach(n -> ring.add(new Node(n.id(), n.rack(), 1.0)));
        this.initialTable = SlotTable.fromRing(HashRing.of(ring, scenario.vnodesPerUnit()), scenario.candidates(), slots);
        this.view = RoutingView.of(cluster, initialTable);
        this.router = WeightedRouter.start(view, settings.topics(),
                settings.clientConfig("demo", Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                        ConsumerConfig.CLIENT_ID_CONFIG, settings.applicationId("writer"))), serdeConfig());
        for (NodeSpec n : scenario.nodes()) {
            startNode(n);
        }
    }

    /** The node's store, agent (started once the starting data is down) and reporter. */
    private synchronized void startNode(NodeSpec n) {
        if (closed) {
            throw new IllegalStateException("the simulated cluster is closed");
        }
        Map<String, Object> serde = serdeConfig();
        stores.put(n.id(), new InMemoryNodeStore(n.id(), slots, clock::get, stores::get));
        {
            // the node's agent and reporter connect as the node's principal
            Map<String, Object> kafka = settings.clientConfig(DemoSettings.agentRole(n.id()), serde);
            kafka.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            AgentSettings agent = new AgentSettings(cluster, n.id(), slots, settings.topics(),
                    agentStateDir.resolve(n.id() + ".state"), Duration.ofMillis(200), Duration.ofMillis(scenario.stepMillis()), kafka);
            agents.put(n.id(), new CommandAgent(agent, new ScaledNodeStore(stores.get(n.id()), scale), clock::get));
            Map<String, Object> producerConfig = settings.clientConfig(DemoSettings.agentRole(n.id()), Map.of());
            producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            producerConfig.put(ProducerConfig.CLIENT_ID_CONFIG, settings.applicationId("reporter-" + n.id()));
            producerConfig.put(ProducerConfig.ACKS_CONFIG, "all");
            producerConfig.put(ProducerConfig.LINGER_MS_CONFIG, 5);
            KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig, new ByteArraySerializer(), new ByteArraySerializer());
            producers.put(n.id(), producer);
            ReporterSettings reporter = new ReporterSettings(cluster, n.id(), slots, settings.topics(),
                    Duration.ofMillis(scenario.stepMillis()), Duration.ofMillis(scenario.stepMillis()), serde);
            reporters.put(n.id(), new NodeReporter(reporter, producer, () -> capacityOf(n), clock::get));
        }
        nodes.add(n);
        if (agentsStarted) {
            agents.get(n.id()).start();
        }
    }

    /**
     * A node joins now: empty store, agent and reporter; it reports capacity from the next step on.
     * No writer picks it until a slot-table row names it.
     */
    void join(NodeSpec node) {
        if (stores.containsKey(node.id())) {
            throw new IllegalArgumentException("node " + node.id() + " is already in the cluster");
        }
        startNode(node);
        updateFreeRatios();
    }

    /** Marks {@code node} as being drained (or, with false, no longer): it no longer counts in the cluster's figures. */
    void leaving(String node, boolean drained) {
        if (!stores.containsKey(node)) {
            throw new IllegalArgumentException("node " + node + " is not in the cluster");
        }
        if (drained) {
            leaving.add(node);
        } else {
            leaving.remove(node);
        }
    }

    /** Whether {@code node} has been started. */
    boolean started(String node) {
        return stores.containsKey(node);
    }

    /** Shards (slots with bytes) {@code node} holds now, from its store; 0 for a node not started. */
    int shardsHeld(String node) {
        InMemoryNodeStore store = stores.get(node);
        if (store == null) {
            return 0;
        }
        int n = 0;
        for (long bytes : store.shardBytes().values()) {
            if (bytes > 0) {
                n++;
            }
        }
        return n;
    }

    /** Simulated bytes every started node holds now, from the stores. */
    Map<String, Long> storedBytes() {
        Map<String, Long> bytes = new LinkedHashMap<>();
        for (NodeSpec n : nodes) {
            bytes.put(n.id(), Math.round(stores.get(n.id()).usedBytes() * scale));
        }
        return bytes;
    }

    private Map<String, Object> serdeConfig() {
        return Map.of("schema.registry.url", settings.registryUrl());
    }

    /** Simulated bytes one stored byte stands for. */
    double scale() {
        return scale;
    }

    /** Current simulated time (epoch milliseconds). */
    long now() {
        return clock.get();
    }

    /** Simulated time elapsed since the start. */
    long elapsed() {
        return clock.get() - startMillis;
    }

    /** Every node of the run (initial, then joining), the order of {@link #utilisation()} and {@link #weights()}. */
    List<String> nodeIds() {
        return allNodes.stream().map(NodeSpec::id).toList();
    }

    /** Lays down the starting data, then starts the agents and waits for the router. */
    void fill() throws InterruptedException {
        HeatSpec fillHeat = scenario.fillHeat() != null ? scenario.fillHeat() : scenario.heat();
        double[] cdf = cdf(SlotHeat.shares(fillHeat, slots, random.split()));
        int perRound = Math.max(1, settings.fillKeys() / FILL_ROUNDS);
        for (int round = 0; round < FILL_ROUNDS; round++) {
            updateFreeRatios();
            for (int i = 0; i < perRound; i++) {
                put(names.next(sample(cdf)), fillValue, false);
            }
        }
        updateFreeRatios();
        if (!router.awaitCaughtUp(Duration.ofSeconds(60))) {
            throw new IllegalStateException("the writers' router did not load the weight and slot tables within 60 s");
        }
        synchronized (this) {
            agents.values().forEach(CommandAgent::start);
            agentsStarted = true;
        }
        reportAll();
    }

    /** One step of simulated time: the step's writes, then every node's write and capacity report. */
    void step() {
        clock.addAndGet(scenario.stepMillis());
        step++;
        updateFreeRatios();
        for (int i = 0; i < settings.writesPerStep(); i++) {
            put(names.next(sample(writeCdf)), writeValue, true);
        }
        reportAll();
    }

    /** A step in which nothing is written (the drain at the end): time goes on, reports go out. */
    void idleStep() {
        clock.addAndGet(scenario.stepMillis());
        step++;
        reportAll();
    }

    private void reportAll() {
        for (NodeSpec n : nodes) {
            reporters.get(n.id()).flush();
            reporters.get(n.id()).reportCapacity();
        }
        producers.values().forEach(KafkaProducer::flush);
        for (CommandAgent agent : agents.values()) {
            if (agent.stoppedBy().isPresent()) {
                throw new IllegalStateException("an agent stopped: " + agent.stoppedBy().get(), agent.stoppedBy().get());
            }
        }
    }

    private void put(String key, byte[] value, boolean report) {
        long v = ++version;
        double bytes = (KeyNames.LENGTH + (double) value.length) * scale;
        String fallback = null;
        for (int attempt = 0; ; attempt++) {
            String node;
            try {
                node = fallback != null ? fallback : view.pick(key);
            } catch (IllegalStateException full) {
                refusedWrites++;
                refusedBytes += bytes;
                return;
            }
            InMemoryNodeStore store = stores.get(node);
            try {
                store.put(key, v, value);
            } catch (StaleRouteException stale) {
                // the slot left this node; the router gets the new row within a poll. A spread node that
                // cleaned the slot up after an earlier migration away sends the writer to the slot's own winner
                if (attempt >= STALE_RETRIES) {
                    throw new IllegalStateException("slot of " + key + " still routed to " + node + " after it left it", stale);
                }
                fallback = fallback == null ? view.fallback(key, node) : null;
                if (fallback == null) {
                    sleepQuietly(10);
                }
                continue;
            }
            written.put(key, v);
            writtenBytes += bytes;
            if (report) {
                reporters.get(node).record(store.slotOf(key), Math.round(bytes));
            }
            return;
        }
    }

    private void updateFreeRatios() {
        for (NodeSpec n : nodes) {
            double used = stores.get(n.id()).usedBytes() * scale;
            view.setFreeRatio(n.id(), 1.0 - used / n.capacityBytes());
        }
    }

    private CapacitySnapshot capacityOf(NodeSpec n) {
        Map<Integer, Long> shards = new TreeMap<>();
        long used = 0;
        for (Map.Entry<Integer, Long> e : stores.get(n.id()).shardBytes().entrySet()) {
            long bytes = Math.round(e.getValue() * scale);
            shards.put(e.getKey(), bytes);
            used += bytes;
        }
        return new CapacitySnapshot(Math.min(used, n.capacityBytes()), n.capacityBytes(), n.rack(), shards);
    }

    /** Utilisation (used / total) of every node of the run, in {@link #nodeIds()} order (NaN before a node joins), from the stores. */
    double[] utilisation() {
        double[] u = new double[allNodes.size()];
        for (int i = 0; i < u.length; i++) {
            NodeSpec n = allNodes.get(i);
            InMemoryNodeStore store = stores.get(n.id());
            u[i] = store == null ? Double.NaN : store.usedBytes() * scale / n.capacityBytes();
        }
        return u;
    }

    /** The nodes that stay: started and not being drained. */
    private List<NodeSpec> staying() {
        return nodes.stream().filter(n -> !leaving.contains(n.id())).toList();
    }

    /** Population CV of the utilisation of the nodes that stay, from the stores. */
    double capacityCv() {
        List<NodeSpec> staying = staying();
        double[] u = new double[staying.size()];
        for (int i = 0; i < u.length; i++) {
            u[i] = stores.get(staying.get(i).id()).usedBytes() * scale / staying.get(i).capacityBytes();
        }
        return CoefficientOfVariation.of(u);
    }

    /** Highest minus lowest utilisation of the nodes that stay, from the stores. */
    double utilisationGap() {
        double lo = Double.MAX_VALUE;
        double hi = -Double.MAX_VALUE;
        for (NodeSpec n : staying()) {
            double u = stores.get(n.id()).usedBytes() * scale / n.capacityBytes();
            lo = Math.min(lo, u);
            hi = Math.max(hi, u);
        }
        return hi < lo ? 0 : hi - lo;
    }

    /** Σ positive excess over the mean utilisation of the nodes that stay: the least any repair must move. */
    double minimumBytesToMove() {
        double used = 0;
        double total = 0;
        for (NodeSpec n : staying()) {
            used += stores.get(n.id()).usedBytes() * scale;
            total += n.capacityBytes();
        }
        double mean = used / total;
        double excess = 0;
        for (NodeSpec n : staying()) {
            excess += Math.max(0, stores.get(n.id()).usedBytes() * scale - mean * n.capacityBytes());
        }
        return excess;
    }

    /** Weight factor of every node of the run as the writers apply it, in {@link #nodeIds()} order (NaN before a node joins). */
    double[] weights() {
        double[] w = new double[allNodes.size()];
        for (int i = 0; i < w.length; i++) {
            String id = allNodes.get(i).id();
            w[i] = stores.containsKey(id) ? view.weight(id) : Double.NaN;
        }
        return w;
    }

    long keysWritten() {
        return written.size();
    }

    long refusedWrites() {
        return refusedWrites;
    }

    double refusedBytes() {
        return refusedBytes;
    }

    double writtenBytes() {
        return writtenBytes;
    }

    /**
     * Reads every key written back the way a reader does: through the slot table as the migrator last
     * published it (the initial table for slots it never published), probing the slot's holders: its
     * candidates, spread and held nodes (docs/design.md §3.5); a key is readable when one of them holds
     * it at the version last written.
     */
    KeyCheck checkKeys(Map<Integer, SlotAssignment> published) {
        long unreadable = 0;
        List<String> examples = new ArrayList<>();
        for (Map.Entry<String, Long> e : written.entrySet()) {
            int slot = initialTable.slotOf(e.getKey());
            SlotAssignment row = published.get(slot);
            List<String> candidates = new ArrayList<>(row != null ? row.getCandidates() : initialTable.candidateIds(slot));
            if (row != null) {
                candidates.addAll(row.getSpread());
                candidates.addAll(row.getSpreadHeld());
            }
            boolean found = false;
            for (String node : candidates) {
                InMemoryNodeStore store = stores.get(node);
                Versioned held = store == null ? null : store.get(e.getKey()).orElse(null);
                if (held != null && held.version() >= e.getValue()) {
                    found = true;
                    break;
                }
            }
            if (!found) {
                unreadable++;
                if (examples.size() < 5) {
                    examples.add(e.getKey() + " (slot " + slot + ", candidates " + candidates + ")");
                }
            }
        }
        return new KeyCheck(written.size(), unreadable, examples);
    }

    /** Stops the writers' reports, the agents and the router, in that order. */
    @Override
    public synchronized void close() {
        closed = true;
        List<RuntimeException> failures = new ArrayList<>();
        for (NodeReporter r : reporters.values()) {
            try {
                r.close();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        for (CommandAgent a : agents.values()) {
            try {
                a.close();
            } catch (RuntimeException e) {
                failures.add(e);
            }
        }
        try {
            router.close();
        } catch (RuntimeException e) {
            failures.add(e);
        }
        if (!failures.isEmpty()) {
            LOG.error("closing the simulated cluster: {}", failures.get(0).toString(), failures.get(0));
            throw failures.get(0);
        }
    }

    private int sample(double[] cdf) {
        int i = Arrays.binarySearch(cdf, random.nextDouble());
        return Math.min(cdf.length - 1, i >= 0 ? i : -i - 1);
    }

    private static double[] cdf(double[] shares) {
        double[] cdf = new double[shares.length];
        double sum = 0;
        for (int i = 0; i < shares.length; i++) {
            sum += shares[i];
            cdf[i] = sum;
        }
        for (int i = 0; i < cdf.length; i++) {
            cdf[i] /= sum;
        }
        return cdf;
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Fresh key names that fall into a chosen slot: names {@code k0000000, k0000001, …} are hashed
     * into per-slot queues as needed, so every name is used once and a slot's queue never runs dry.
     */
    private static final class KeyNames {
        static final int LENGTH = 8;
        private final ArrayDeque<String>[] bySlot;
        private final int slots;
        private long counter;

        @SuppressWarnings("unchecked")
        KeyNames(int slots) {
            this.slots = slots;
            this.bySlot = new ArrayDeque[slots];
            for (int i = 0; i < slots; i++) {
                bySlot[i] = new ArrayDeque<>();
            }
        }

        String next(int slot) {
            while (bySlot[slot].isEmpty()) {
                String name = String.format("k%07d", counter++);
                bySlot[SlotTable.slotOf(HashRing.hashKey(name), slots)].add(name);
            }
            return bySlot[slot].poll();
        }
    }
}
