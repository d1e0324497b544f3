package io.skewguard.migrator;

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
import io.skewguard.detector.DetectorApp;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The whole migration loop on a real broker, as the real-broker loop tests run it: six storage nodes,
 * each an {@link InMemoryNodeStore} that really holds its keys, a real {@link CommandAgent} and a
 * {@link NodeReporter} sending the store's write counts and capacity (used bytes and per-shard bytes
 * as the store holds them); the real detector turning those into reports and alerts; the real
 * migrator; and a writer that places keys through the slot table it follows on the compacted topic
 * ({@link WeightedRouter}), so that writes reach slots while they are copied and after they switched.
 *
 * <p>The nodes are heterogeneous: n0–n2 have half the capacity of n3–n5, and with equal weights the
 * ring spreads the data about evenly over the six, so the small nodes are about twice as full
 * (capacity CV ≈ 0.35 &gt; 0.25). Time is scaled down (detector tick 1 s, window 3 s, grace 2 s,
 * cooldown 5 s; migrator transactions every 100 ms; agents poll every 100 ms) and event time is the
 * wall clock.
 */
final class RepairLoopRig implements AutoCloseable {

    static final String CLUSTER = "c1";
    static final String[] NODES = {"n0", "n1", "n2", "n3", "n4", "n5"};
    static final int SLOTS = 64;
    static final int CANDIDATES = 2;
    static final int VNODES = HashRing.DEFAULT_VNODES_PER_UNIT;
    static final double TARGET_CV = 0.10;
    static final int INITIAL_KEYS = 24_000;
    static final int VALUE_BYTES = 200;
    /** Writes per writer step (100 ms): half new keys, half overwrites of keys written before. */
    static final int WRITES_PER_STEP = 10;

    final EmbeddedKafka broker;
    final Topics topics;
    final Map<String, Object> serde;
    final Map<String, InMemoryNodeStore> stores = new ConcurrentHashMap<>();
    final SlotTable ring;
    final RoutingView view;
    final Writer writer;
    final double initialStoreCv;
    final Map<String, CommandAgent> agents = new LinkedHashMap<>();
    final AtomicReference<Throwable> migratorFailure = new AtomicReference<>();
    private final List<AutoCloseable> open = new ArrayList<>();
    DetectorApp.Running detector;
    KafkaStreams migrator;
    WeightedRouter router;
    private Thread writing;

    /**
     * Creates the topics under {@code prefix} and fills the stores; nothing runs yet ({@link #start}).
     *
     * @param migratorOverrides migrator settings on top of the loop's own
     */
    RepairLoopRig(EmbeddedKafka broker, String registryScope, String prefix) {
        this.broker = broker;
        this.topics = new Topics(prefix);
        this.serde = Map.of("schema.registry.url", "mock://" + registryScope);
        broker.createTopics(2, topics.nodeWrites(), topics.nodeCapacity());
        broker.createTopics(1, topics.reports(), topics.alerts(), topics.migrationCommands(), topics.migrationStatus(),
                topics.weightCommands(), topics.dlq(), topics.proposals(), topics.decisions());
        broker.createCompactedTopics(1, topics.slotTable(), topics.nodeWeights(), topics.membership(), topics.control());
        for (String node : NODES) {
            stores.put(node, new InMemoryNodeStore(node, SLOTS, System::currentTimeMillis, stores::get));
        }
        // writers start from the table the migrator builds on its first plan: the ring of the reporting nodes
        ring = SlotTable.fromRing(HashRing.of(Arrays.stream(NODES).map(n -> new Node(n, null, 1.0)).toList(), VNODES),
                CANDIDATES, SLOTS);
        view = RoutingView.of(CLUSTER, ring);
        writer = new Writer(view, stores);
        try {
            for (int i = 0; i < INITIAL_KEYS; i++) {
                writer.write("key-" + i, null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        writer.keysCreated = INITIAL_KEYS;
        initialStoreCv = cv(stores);
    }

    /** The migrator's settings in this loop, with {@code overrides} on top. */
    MigratorSettings migratorSettings(Path dir, String applicationId, Map<String, String> overrides) {
        Map<String, String> values = new HashMap<>(Map.ofEntries(
                Map.entry("bootstrap.servers", broker.bootstrapServers()),
                Map.entry("schema.registry.url", (String) serde.get("schema.registry.url")),
                Map.entry("application.id", applicationId),
                Map.entry("topic-prefix", topics.prefix()),
                Map.entry("state.dir", dir.resolve("migrator").toString()),
                Map.entry("target-cv", Double.toString(TARGET_CV)),
                Map.entry("slot-count", Integer.toString(SLOTS)),
                Map.entry("candidates", Integer.toString(CANDIDATES)),
                Map.entry("vnodes-per-unit", Integer.toString(VNODES)),
                Map.entry("commit-interval", "100ms"),
                Map.entry("tick-interval", "200ms"),
                // the writes hold the budget at its floor (10 %): 100 kB/s shared by a batch's copies, so a
                // copy of a ~40 kB shard runs over several progress reports while the writer keeps writing
                Map.entry("max-bytes-per-sec", "1000000"),
                // short clocks: an agent that does not answer aborts batches (and ends the repair) within seconds
                Map.entry("copy-stall-timeout", "10s"),
                Map.entry("prepare-timeout", "10s"),
                Map.entry("retry-interval", "2s"),
                Map.entry("abort-timeout", "5s"),
                Map.entry("decision-interval", "1s")));
        values.putAll(overrides);
        return MigratorSettings.of(values);
    }

    /** Starts the detector, the migrator with {@code migratorSettings}, the router, the agents and reporters, then the writer. */
    RepairLoopRig start(Path dir, String applicationPrefix, MigratorSettings migratorSettings) throws InterruptedException {
        DetectorSettings detectorSettings = DetectorSettings.of(Map.ofEntries(
                Map.entry("session.timeout.ms", "6000"),
                Map.entry("heartbeat.interval.ms", "1500"),
                Map.entry(DetectorSettings.BOOTSTRAP_SERVERS, broker.bootstrapServers()),
                Map.entry(DetectorSettings.SCHEMA_REGISTRY_URL, (String) serde.get("schema.registry.url")),
                Map.entry(DetectorSettings.APPLICATION_ID, applicationPrefix + "-detector"),
                Map.entry(DetectorSettings.TOPIC_PREFIX, topics.prefix()),
                Map.entry(DetectorSettings.TICK, "1s"),
                Map.entry(DetectorSettings.WINDOW, "3s"),
                Map.entry(DetectorSettings.GRACE, "2s"),
                Map.entry(DetectorSettings.COOLDOWN, "5s"),
                Map.entry(DetectorSettings.FLUSH_INTERVAL, "300ms"),
                Map.entry(DetectorSettings.COMMIT_INTERVAL, "300ms"),
                Map.entry(DetectorSettings.STATE_DIR, dir.resolve("detector").toString())));
        Map<String, Object> kafka = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                "schema.registry.url", serde.get("schema.registry.url"));
        detector = DetectorApp.start(detectorSettings);
        open.add(detector);
        migrator = new KafkaStreams(MigratorTopology.build(migratorSettings), MigratorTopology.streamsConfig(migratorSettings));
        open.add(migrator);
        migrator.setUncaughtExceptionHandler(e -> {
            migratorFailure.compareAndSet(null, e);
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        router = WeightedRouter.start(view, topics, Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), serde);
        open.add(router);
        migrator.start();
        Map<String, NodeReporter> reporters = new LinkedHashMap<>();
        for (String node : NODES) {
            InMemoryNodeStore store = stores.get(node);
            CommandAgent agent = new CommandAgent(new AgentSettings(CLUSTER, node, SLOTS, topics,
                    dir.resolve("agent-" + node + ".state"), Duration.ofMillis(100), Duration.ofMillis(200), kafka),
                    store, System::currentTimeMillis);
            agents.put(node, agent.start());
            open.add(agent);
            NodeReporter reporter = new NodeReporter(
                    new ReporterSettings(CLUSTER, node, SLOTS, topics, Duration.ofMillis(500), Duration.ofMillis(500), serde),
                    broker.producer(new ByteArraySerializer(), new ByteArraySerializer()),
                    () -> snapshot(store), System::currentTimeMillis);
            reporters.put(node, reporter.start());
            open.add(reporter);
        }
        writer.reporters = reporters;
        if (!detector.awaitRunning(Duration.ofSeconds(60))) {
            throw new IllegalStateException("detector not running within 60 s");
        }
        if (!router.awaitCaughtUp(Duration.ofSeconds(60))) {
            throw new IllegalStateException("router not caught up within 60 s");
        }
        writing = new Thread(writer, "writer");
        writing.setDaemon(true);
        writing.start();
        return this;
    }

    /** Stops the writer (the loop goes on). */
    void stopWriting() throws InterruptedException {
        writer.running.set(false);
        writing.join(10_000);
    }

    /** Whether every part still runs: writer, migrator, agents. */
    boolean healthy() {
        return writer.failure.get() == null && migratorFailure.get() == null && agents.values().stream().allMatch(a -> a.stoppedBy().isEmpty());
    }

    /**
     * Every key written, read through {@code table} at the newest version its candidates hold; the
     * keys whose newest version is not the last one written (none when no key is lost).
     */
    Map<String, String> unreadableKeys(Map<Integer, SlotAssignment> table) {
        Map<String, String> bad = new TreeMap<>();
        for (Map.Entry<String, Long> e : writer.lastVersion.entrySet()) {
            int slot = view.slotOf(e.getKey());
            Versioned best = null;
            for (String node : table.get(slot).getCandidates()) {
                Optional<Versioned> v = stores.get(node).get(e.getKey());
                if (v.isPresent() && v.get().newerThan(best)) {
                    best = v.get();
                }
            }
            if (best == null || best.version() != e.getValue()) {
                bad.put(e.getKey(), "slot " + slot + " candidates " + table.get(slot).getCandidates() + ": "
                        + (best == null ? "not found" : "version " + best.version() + " instead of " + e.getValue()));
            }
        }
        return bad;
    }

    @Override
    public void close() throws Exception {
        writer.running.set(false);
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    /** The writer: places keys with the router, counts them for the reporters, retries a stale route. */
    static final class Writer implements Runnable {
        final RoutingView view;
        final Map<String, InMemoryNodeStore> stores;
        final Map<String, Long> lastVersion = new ConcurrentHashMap<>();
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final AtomicLong version = new AtomicLong();
        final Random random = new Random(7);
        volatile Map<String, NodeReporter> reporters = Map.of();
        volatile long keysCreated;
        volatile long loopWrites;
        volatile long dualWrites;
        volatile long staleRetries;

        Writer(RoutingView view, Map<String, InMemoryNodeStore> stores) {
            this.view = view;
            this.stores = stores;
        }

        @Override
        public void run() {
            try {
                while (running.get()) {
                    for (int i = 0; i < WRITES_PER_STEP; i++) {
                        String key = i % 2 == 0 ? "key-" + keysCreated++ : "key-" + random.nextInt((int) keysCreated);
                        write(key, reporters);
                        loopWrites++;
                    }
                    Thread.sleep(100);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        }

        /** One write of {@code key} with a new version to the node the slot table picks. */
        void write(String key, Map<String, NodeReporter> heat) throws InterruptedException {
            long v = version.incrementAndGet();
            byte[] value = new byte[VALUE_BYTES];
            Arrays.fill(value, (byte) v);
            int slot = view.slotOf(key);
            for (int attempt = 0; ; attempt++) {
                InMemoryNodeStore store = stores.get(view.pick(key));
                boolean copiedAway = store.forwards(slot);
                try {
                    store.put(key, v, value);
                } catch (StaleRouteException e) {
                    // the slot moved and this writer's table is older than the node's: wait for the new row
                    staleRetries++;
                    if (attempt >= 1000) {
                        throw new IllegalStateException("slot " + slot + " stayed stale for 10 s at " + store.node(), e);
                    }
                    Thread.sleep(10);
                    continue;
                }
                lastVersion.put(key, v);
                if (copiedAway) {
                    dualWrites++;
                }
                if (heat != null && !heat.isEmpty()) {
                    heat.get(store.node()).record(slot, key.length() + (long) VALUE_BYTES);
                }
                return;
            }
        }
    }

    static long capacity(String node) {
        return node.compareTo("n3") < 0 ? 2_000_000L : 4_000_000L;
    }

    /** What a node reports: the bytes its store holds, per slot, and its capacity. */
    static CapacitySnapshot snapshot(InMemoryNodeStore store) {
        Map<Integer, Long> shards = store.shardBytes();
        long used = shards.values().stream().mapToLong(Long::longValue).sum();
        return new CapacitySnapshot(used, capacity(store.node()), null, shards);
    }

    static boolean showsExactly(SkewReport report, Map<String, Long> used) {
        if (report.getNodes().size() != used.size()) {
            return false;
        }
        for (NodeFigures f : report.getNodes()) {
            if (!used.containsKey(f.getNode()) || used.get(f.getNode()) != f.getUsedBytes()) {
                return false;
            }
        }
        return true;
    }

    /** Population CV of utilisation (used / total), as the detector computes it. */
    static double cv(Map<String, InMemoryNodeStore> stores) {
        double[] u = Arrays.stream(NODES).mapToDouble(n -> (double) stores.get(n).usedBytes() / capacity(n)).toArray();
        double mean = Arrays.stream(u).average().orElseThrow();
        double var = Arrays.stream(u).map(x -> (x - mean) * (x - mean)).average().orElseThrow();
        return Math.sqrt(var) / mean;
    }

    static Map<String, String> utilisations(Map<String, InMemoryNodeStore> stores) {
        Map<String, String> out = new TreeMap<>();
        for (String n : NODES) {
            out.put(n, fmt((double) stores.get(n).usedBytes() / capacity(n)));
        }
        return out;
    }

    static String fmt(double x) {
        return String.format(java.util.Locale.ROOT, "%.4f", x);
    }

    /** The slot table as the compacted topic holds it: every committed row up to the end, latest per slot. */
    static Map<Integer, SlotAssignment> readTable(EmbeddedKafka kafka, String topic, SchemaRegistrySerde<SlotAssignment> serde,
            Duration timeout) {
        Map<Integer, SlotAssignment> table = new TreeMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        try (KafkaConsumer<String, SlotAssignment> c = consumer(kafka, topic, serde)) {
            Map<TopicPartition, Long> end = c.endOffsets(c.assignment());
            while (end.entrySet().stream().anyMatch(e -> c.position(e.getKey()) < e.getValue())) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("did not reach the end of " + topic + " within " + timeout);
                }
                for (ConsumerRecord<String, SlotAssignment> r : c.poll(Duration.ofMillis(200))) {
                    table.put(r.value().getSlot(), r.value());
                }
            }
        }
        return table;
    }

    static <V extends org.apache.avro.specific.SpecificRecord> KafkaConsumer<String, V> consumer(
            EmbeddedKafka kafka, String topic, SchemaRegistrySerde<V> serde) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        KafkaConsumer<String, V> consumer = new KafkaConsumer<>(config, new StringDeserializer(), serde.deserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        return consumer;
    }

    /** The migration statuses consumer a test polls for the repair's end. */
    KafkaConsumer<String, MigrationStatus> statuses(SchemaRegistrySerde<MigrationStatus> statusSerde) {
        return consumer(broker, topics.migrationStatus(), statusSerde);
    }
}
