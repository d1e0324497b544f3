package io.skewguard.sim.fast;

import io.skewguard.agent.AgentCore;
import io.skewguard.agent.command.AgentInput;
import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.CommandCheck;
import io.skewguard.agent.command.MigrationRecord;
import io.skewguard.agent.command.Stage;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.balancer.BalancerSettings;
import io.skewguard.balancer.BalancerTopology;
import io.skewguard.balancer.policy.ControllerState;
import io.skewguard.balancer.policy.WeightController;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.detector.replay.DetectorHarness;
import io.skewguard.detector.replay.EmptyCheckpoints;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.migrator.MigratorTopology;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.sim.model.Cluster;
import io.skewguard.sim.model.ClusterFigures;
import io.skewguard.sim.policy.RepairPolicy;
import io.skewguard.sim.policy.SkewGuardLoop;
import io.skewguard.sim.scenario.Scenario;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fast mode: SkewGuard's loop run by the apps' own code with simulated time and no broker. The
 * detector is {@link DetectorHarness} (the app's ingest buffer and its Kafka Streams stage two under
 * {@link TopologyTestDriver}); the balancer and the migrator are their topologies
 * ({@link BalancerTopology#build}, {@link MigratorTopology#build}) each under its own
 * {@code TopologyTestDriver}; every node has a real agent ({@link AgentCore}: the
 * {@code CommandAgent}'s decisions and store steps without the Kafka loop) over a
 * {@link SimNodeStore} — an {@link InMemoryNodeStore} with the node's sampled keys, bridged to the
 * model's bytes. Records cross between them as the wire bytes the apps would write (one schema
 * registry scope), keyed as on the real topics.
 *
 * <p>One step of simulated time {@code [now, now + step)}, after the model wrote the step:
 * <ol>
 *   <li>every (slot, node) write of the step becomes a {@link WriteEvent} and every live node sends
 *       a {@link CapacityEvent} with its per-shard bytes, all at {@code now}; the detector gets them
 *       in one batch, ended by the harness's clock write at {@code now + step} (what
 *       {@link DetectorHarness#advanceTo} sends) which closes the step's tick, and flushes once;
 *   <li>the capacity events go to the migrator, the tick's alerts and report to the balancer and
 *       the migrator, whose wall clocks are moved to {@code now + step} (the migrator's timeouts and
 *       ticks run on it);
 *   <li>weight commands go to their node's agent, which sets the writers' weight factor;
 *       migration commands go to their agent, whose answers go back to the migrator, until no new
 *       command comes; the agents report their running copies once per step;
 *   <li>the writers (the model) follow the migrator's slot-table rows: in-flight marks (dual-write),
 *       switches (the bytes change owner: counted as moved), cleared marks.
 * </ol>
 *
 * <p><b>Two threads.</b> The detector's work on a step (item 1) runs on a second thread while the
 * migrator's driver takes the capacity events on the caller's, and the balancer's driver takes the
 * tick's alerts and report on the second thread while the migrator's takes them on the caller's.
 * The detector, the balancer and the migrator share nothing but the schema registry scope (its
 * methods are synchronized) and what the caller hands them; each is joined before anything reads
 * what it produced, and every driver gets its records in the same order as one thread would give
 * them. So a run's results are those of one thread, on two cores in less time.
 *
 * <p><b>Membership.</b> At the first step the model's slot table goes to the migrator's slot-table
 * topic (as the rows of a deployment that ran before), so a migrator that adopts the table it finds
 * there starts from the model's, whatever joined or was lost before repair started. A node that
 * joins gets its store and agent and sends capacity events from its first step; it is in no
 * candidate set until a migration targets it. A lost node's agent and capacity events stop; it stays
 * in the candidate sets until the migrator's slot-table update replaces it (the migrator takes a
 * node silent for {@code node-expiry} as lost: scenario setting {@code skewguard.nodeExpiry}); until
 * then the writers' share of it goes to the slot's other candidates, counted
 * ({@link Cluster#fail}). When a row replaces a lost node, the model rebuilds its shard on the
 * replacement from replicas (recovery bytes; the keys go to the replacement's store). A row's
 * read-only candidates take no new writes.
 */
public final class FastSkewGuard implements RepairPolicy, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FastSkewGuard.class);
    private static final String CLUSTER = FastModeSettings.CLUSTER;
    private static final byte[] VALUE = "sampled-key-value".getBytes(StandardCharsets.UTF_8);

    private final Scenario scenario;
    private final long step;
    private final Path workDir;
    private final DetectorHarness detector;
    private final TopologyTestDriver balancer;
    private final TopologyTestDriver migrator;
    private final Topics topics;
    private final SchemaRegistrySerde<SkewReport> reportSerde;
    private final SchemaRegistrySerde<SkewAlert> alertSerde;
    /** {@link #capacities}' buffers: per node, the slots it holds bytes of and those bytes (grown when nodes join). */
    private int[][] heldSlots = new int[0][];
    private long[][] heldBytes = new long[0][];
    private int lastStepEvents;
    private final SchemaRegistrySerde<WeightCommand> weightSerde;
    private final SchemaRegistrySerde<MigrationCommand> commandSerde;
    private final SchemaRegistrySerde<MigrationStatus> statusSerde;
    private final SchemaRegistrySerde<SlotAssignment> slotSerde;
    private final SchemaRegistrySerde<NodeMembership> membershipSerde;
    private final boolean migratorReadsSlotTable;
    private final TestInputTopic<String, byte[]> migratorSlotTable;
    private final TestOutputTopic<String, byte[]> membership;
    private final TestInputTopic<byte[], byte[]> balancerReports;
    private final TestInputTopic<byte[], byte[]> balancerAlerts;
    private final TestInputTopic<byte[], byte[]> migratorReports;
    private final TestInputTopic<byte[], byte[]> migratorAlerts;
    private final TestInputTopic<byte[], byte[]> migratorCapacity;
    private final TestInputTopic<byte[], byte[]> migratorStatus;
    private final TestOutputTopic<byte[], byte[]> weightCommands;
    private final TestOutputTopic<byte[], byte[]> balancerDlq;
    private final TestOutputTopic<String, byte[]> migrationCommands;
    private final TestOutputTopic<String, byte[]> slotRows;
    private final TestOutputTopic<String, byte[]> repairStatus;
    private final TestOutputTopic<byte[], byte[]> migratorDlq;
    private final List<String> notes = new ArrayList<>();
    private Cluster cluster;
    private SimNodeStore[] stores;
    private AgentCore[] agents;
    private long clock;
    private long wallClock;
    private boolean repairing;
    private boolean floorNoted;
    private long weightPhaseEnd = -1;
    private double lastHeatGini;
    private long deadLetters;
    private int detectorDeadLettersSeen;
    private final Map<String, TestOutputTopic<byte[], byte[]>> balancerUnread = new java.util.HashMap<>();
    private final Map<String, TestOutputTopic<byte[], byte[]>> migratorUnread = new java.util.HashMap<>();
    private long rejectedCommands;
    private long staleKeyWrites;
    private long spreadFallbacks;
    private long committed;
    private final Set<String> abortedMigrations = new HashSet<>();
    private int agentsStopped;
    private long commandsToLostNodes;
    private long lostShardsRebuilt;
    private long rebuiltKeysRefused;
    private final String name;
    /**
     * The second thread: one step's detector, then its balancer, run here while the migrator's driver
     * takes the same step's input on the caller's thread (two cores, two independent drivers).
     */
    private final ExecutorService beside = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "fast-mode-beside-migrator");
        t.setDaemon(true);
        return t;
    });

    /** SkewGuard with its spread rule on (the migrator's default). */
    public FastSkewGuard(Scenario scenario) {
        this(scenario, true);
    }

    /** {@code spread} false: the migrator's spread rule off ({@code skewguard-nospread}). */
    public FastSkewGuard(Scenario scenario, boolean spread) {
        this.scenario = scenario;
        this.name = spread ? "skewguard" : "skewguard-nospread";
        this.step = scenario.stepMillis();
        try {
            this.workDir = Files.createTempDirectory("skewguard-fast-mode");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for the apps' state stores", e);
        }
        // the detector's clock is simulated time, as the balancer's and the migrator's (their drivers' wall clocks)
        this.detector = new DetectorHarness(FastModeSettings.detector(scenario, workDir.resolve("detector")),
                new SimulatedClock(() -> clock), false).withoutHistory(); // never restarted: no changelogs
        String registry = detector.settings().schemaRegistryUrl();
        Map<String, Object> serdeConfig = Map.of("schema.registry.url", registry);
        this.reportSerde = SchemaRegistrySerde.of(SkewReport.class, serdeConfig, false);
        this.alertSerde = SchemaRegistrySerde.of(SkewAlert.class, serdeConfig, false);
        this.weightSerde = SchemaRegistrySerde.of(WeightCommand.class, serdeConfig, false);
        this.commandSerde = SchemaRegistrySerde.of(MigrationCommand.class, serdeConfig, false);
        this.statusSerde = SchemaRegistrySerde.of(MigrationStatus.class, serdeConfig, false);
        this.slotSerde = SchemaRegistrySerde.of(SlotAssignment.class, serdeConfig, false);
        this.membershipSerde = SchemaRegistrySerde.of(NodeMembership.class, serdeConfig, false);

        BalancerSettings b = FastModeSettings.balancer(scenario, registry, workDir.resolve("balancer"));
        Properties bp = b.streamsProperties();
        bp.put(StreamsConfig.STATE_DIR_CONFIG, workDir.resolve("balancer").toString());
        this.balancer = new TopologyTestDriver(
                BalancerTopology.build(b, new WeightController(b.controller()), Stores::inMemoryKeyValueStore, false), bp, Instant.EPOCH);
        MigratorSettings m = FastModeSettings.migrator(scenario, registry, workDir.resolve("migrator"), spread);
        Topology migratorTopology = MigratorTopology.build(m, Stores::inMemoryKeyValueStore, false); // never restarted
        this.migrator = new TopologyTestDriver(migratorTopology, MigratorTopology.streamsConfig(m), Instant.EPOCH);
        // no changelogs: the driver's checkpoint after every record has nothing to write
        EmptyCheckpoints.skipDeletes(balancer);
        EmptyCheckpoints.skipDeletes(migrator);
        this.topics = b.topics();
        this.migratorReadsSlotTable = reads(migratorTopology, topics.slotTable());

        ByteArraySerializer bytes = new ByteArraySerializer();
        ByteArrayDeserializer bytesIn = new ByteArrayDeserializer();
        this.balancerReports = balancer.createInputTopic(topics.reports(), bytes, bytes);
        this.balancerAlerts = balancer.createInputTopic(topics.alerts(), bytes, bytes);
        this.weightCommands = balancer.createOutputTopic(topics.weightCommands(), bytesIn, bytesIn);
        this.balancerDlq = balancer.createOutputTopic(topics.dlq(), bytesIn, bytesIn);
        this.migratorReports = migrator.createInputTopic(topics.reports(), bytes, bytes);
        this.migratorAlerts = migrator.createInputTopic(topics.alerts(), bytes, bytes);
        this.migratorCapacity = migrator.createInputTopic(topics.nodeCapacity(), bytes, bytes);
        this.migratorStatus = migrator.createInputTopic(topics.migrationStatus(), bytes, bytes);
        this.migrationCommands = migrator.createOutputTopic(topics.migrationCommands(), new StringDeserializer(), bytesIn);
        this.slotRows = migrator.createOutputTopic(topics.slotTable(), new StringDeserializer(), bytesIn);
        this.repairStatus = migrator.createOutputTopic(topics.migrationStatus(), new StringDeserializer(), bytesIn);
        this.migratorDlq = migrator.createOutputTopic(topics.dlq(), bytesIn, bytesIn);
        this.migratorSlotTable = migratorReadsSlotTable
                ? migrator.createInputTopic(topics.slotTable(), new org.apache.kafka.common.serialization.StringSerializer(), bytes)
                : null;
        this.membership = migrator.createOutputTopic(topics.membership(), new StringDeserializer(), bytesIn);
    }

    /** Whether {@code topology} consumes {@code topic} (as a stream, a table or a global store). */
    private static boolean reads(Topology topology, String topic) {
        TopologyDescription d = topology.describe();
        for (TopologyDescription.Subtopology sub : d.subtopologies()) {
            for (TopologyDescription.Node node : sub.nodes()) {
                if (node instanceof TopologyDescription.Source source && source.topicSet() != null
                        && source.topicSet().contains(topic)) {
                    return true;
                }
            }
        }
        for (TopologyDescription.GlobalStore store : d.globalStores()) {
            if (store.source().topicSet() != null && store.source().topicSet().contains(topic)) {
                return true;
            }
        }
        return false;
    }

    /** The migrator's slot table follows membership: losses wait for its update ({@link Cluster#fail}). */
    @Override
    public boolean followsMembership() {
        return true;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void onStep(long now, Cluster cluster, ClusterFigures figures) {
        if (this.cluster == null) {
            attach(cluster, now);
        }
        followMembership(cluster);
        long end = now + step;
        clock = end;
        advanceWallClocks(end);

        // 1. the detector: the step's writes and every node's capacity, then close the step's tick
        List<DetectorHarness.Encoded> events = new ArrayList<>(lastStepEvents + cluster.maxNodes()); // no growing, step after step
        cluster.forEachStepWrite((slot, node, bytes) -> {
            long b = Math.round(bytes);
            if (b > 0) {
                events.add(detector.encoded(new WriteEvent(CLUSTER, cluster.nodes().id(node), slot, b, 1L, Instant.ofEpochMilli(now))));
            }
        });
        List<DetectorHarness.Encoded> capacities = new ArrayList<>();
        for (CapacityEvent c : capacities(cluster, now)) {
            capacities.add(detector.encoded(c)); // encoded once: the same bytes to the detector and the migrator
        }
        events.addAll(capacities);
        // the harness's clock write closes the step's tick in the same flush (what advanceTo sends, without a
        // second partial per step through stage two)
        events.add(detector.encoded(new WriteEvent(CLUSTER, DetectorHarness.CLOCK_NODE, 0, 0L, 0L, Instant.ofEpochMilli(end))));
        lastStepEvents = events.size();

        // 2. capacity to the migrator, then the tick's alerts and report to the balancer and the migrator.
        // The detector runs on the second thread while the migrator takes the same capacities here, then the
        // balancer there while the migrator takes the tick's outputs here: drivers that share nothing, each
        // joined before its results are read (the same results as one after the other)
        List<DetectorHarness.Output> outputs = alongside(() -> {
            detector.sendEncoded(events);
            return detector.takeOutputs();
        }, () -> {
            for (DetectorHarness.Encoded c : capacities) {
                migratorCapacity.pipeInput(c.key(), c.value(), now);
            }
        });
        List<TickOutput> tick = new ArrayList<>(outputs.size());
        for (DetectorHarness.Output out : outputs) {
            if (out instanceof DetectorHarness.AlertOutput a) {
                tick.add(new TickOutput(balancerAlerts, migratorAlerts,
                        alertSerde.serializer().serialize(topics.alerts(), a.alert()), a.alert().getEventTime().toEpochMilli()));
            } else {
                SkewReport r = ((DetectorHarness.ReportOutput) out).report();
                lastHeatGini = r.getHeatGini();
                tick.add(new TickOutput(balancerReports, migratorReports,
                        reportSerde.serializer().serialize(topics.reports(), r), r.getWindowEnd().toEpochMilli()));
            }
        }
        alongside(() -> {
            tick.forEach(o -> o.balancer().pipeInput(key(CLUSTER), o.value(), o.time()));
            return null;
        }, () -> tick.forEach(o -> o.migrator().pipeInput(key(CLUSTER), o.value(), o.time())));

        // 3. weights to the agents; migration commands to the agents and their answers back, until quiet
        applyWeightCommands();
        watchController(end);
        List<MigrationStatus> answers = new ArrayList<>();
        for (AgentCore agent : agents) {
            if (agent != null) {
                answers.addAll(agent.reportCopies(end));
            }
        }
        exchange(answers);
        countDeadLetters();
    }

    /**
     * The first step of repair: the model's slot table to the migrator's slot-table topic (when its
     * topology reads it), the model's sampled keys into the node stores, the agents.
     */
    private void attach(Cluster cluster, long now) {
        this.cluster = cluster;
        cluster.routeExternally(); // the writers follow the migrator's slot-table rows from now on
        int n = cluster.maxNodes();
        this.stores = new SimNodeStore[n];
        this.agents = new AgentCore[n];
        if (migratorReadsSlotTable) {
            var table = cluster.slotTable();
            for (int s = 0; s < cluster.slotCount(); s++) {
                SlotAssignment row = SlotAssignment.newBuilder().setCluster(CLUSTER).setSlot(s)
                        .setRoutingEpoch(table.routingEpoch()).setCandidates(table.candidateIds(s))
                        .setUpdatedAt(Instant.ofEpochMilli(now)).build();
                migratorSlotTable.pipeInput(CLUSTER + "/" + s, slotSerde.serializer().serialize(topics.slotTable(), row), now);
            }
            slotRows.readRecordsToList(); // a migrator that echoes the adopted rows changes nothing
        }
        followMembership(cluster);
        cluster.keys().forEachHeld((node, slot, key) -> {
            if (stores[node] != null) {
                stores[node].put(key, 1, VALUE);
            }
        });
        cluster.keys().listen((key, node, slot) -> {
            if (stores[node] == null) {
                return node; // the writers never pick a lost node (its effective weight is 0)
            }
            try {
                stores[node].put(key, 1, VALUE);
                return node;
            } catch (io.skewguard.agent.store.StaleRouteException e) {
                // a spread node that cleaned the slot up after an earlier migration away: the writer goes to the
                // slot's own winner, where readers probe next; any other refusal is a stale route, counted
                String fallback = cluster.routes().fallback(key, cluster.nodes().id(node));
                int other = fallback == null ? -1 : cluster.nodes().require(fallback);
                if (other < 0 || stores[other] == null) {
                    staleKeyWrites++;
                    return node;
                }
                try {
                    stores[other].put(key, 1, VALUE);
                } catch (io.skewguard.agent.store.StaleRouteException again) {
                    staleKeyWrites++;
                    return node;
                }
                spreadFallbacks++;
                return other;
            }
        });
    }

    /** A store and an agent for every live node without one (joined), none for a lost node (its agent stops). */
    private void followMembership(Cluster cluster) {
        for (int i = 0; i < cluster.maxNodes(); i++) {
            if (cluster.alive(i) && stores[i] == null) {
                String id = cluster.nodes().id(i);
                InMemoryNodeStore keys = new InMemoryNodeStore(id, cluster.slotCount(), () -> clock, this::keysOf);
                stores[i] = new SimNodeStore(keys, cluster, () -> clock);
                agents[i] = new AgentCore(new CommandCheck(CLUSTER, id, cluster.slotCount()), stores[i], AgentState.initial(id), s -> { });
            } else if (!cluster.alive(i) && stores[i] != null) {
                LOG.info("day {}: node {} lost: its agent and capacity reports stop", day(clock), cluster.nodes().id(i));
                stores[i] = null;
                agents[i] = null;
                agentsStopped++;
            }
        }
    }

    private InMemoryNodeStore keysOf(String node) {
        int i = cluster.nodes().indexOf(node);
        return i >= 0 && i < stores.length && stores[i] != null ? stores[i].keys() : null;
    }

    /** One alert or report of a tick: the same bytes to the balancer's and the migrator's input topic. */
    private record TickOutput(TestInputTopic<byte[], byte[]> balancer, TestInputTopic<byte[], byte[]> migrator,
            byte[] value, long time) {}

    /**
     * Runs {@code there} on the second thread and {@code here} on this one, and returns what
     * {@code there} gave once both are done; a failure of either is thrown here, and nothing is left
     * running on the second thread when it is.
     */
    private <T> T alongside(java.util.concurrent.Callable<T> there, Runnable here) {
        Future<T> work = beside.submit(there);
        try {
            here.run();
        } catch (RuntimeException | Error e) {
            awaitQuietly(work); // nothing left running on a driver the caller may close
            throw e;
        }
        return joined(work);
    }

    /** What {@code work} returned once it is done on the second thread; its failure thrown here. */
    private static <T> T joined(Future<T> work) {
        try {
            return work.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the detector or the balancer ran beside the migrator", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Waits for {@code work} to end, however it ends (a failure here is already on its way up). */
    private static void awaitQuietly(Future<?> work) {
        try {
            work.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | RuntimeException ignored) {
            // the caller's own failure is the one to report
        }
    }

    private void advanceWallClocks(long to) {
        if (to > wallClock) {
            Duration d = Duration.ofMillis(to - wallClock);
            wallClock = to;
            balancer.advanceWallClockTime(d);
            migrator.advanceWallClockTime(d);
        }
    }

    private List<CapacityEvent> capacities(Cluster cluster, long now) {
        // every node's shards in one pass over the shard table, row by row (a slot's nodes lie side by
        // side), into buffers kept from step to step; then each node's list made at its size
        int nodes = cluster.maxNodes();
        int slots = cluster.slotCount();
        if (heldSlots.length < nodes || (nodes > 0 && heldSlots[0].length < slots)) {
            heldSlots = new int[nodes][slots];
            heldBytes = new long[nodes][slots];
        }
        int[] held = new int[nodes];
        for (int s = 0; s < slots; s++) {
            for (int i = 0; i < nodes; i++) {
                double bytes = cluster.shardBytes(s, i);
                if (bytes >= 0.5) { // most are 0: a slot lies on a few nodes; below 0.5 it rounds to no byte
                    heldSlots[i][held[i]] = s;
                    heldBytes[i][held[i]++] = Math.round(bytes);
                }
            }
        }
        List<CapacityEvent> out = new ArrayList<>(nodes);
        for (int i = 0; i < nodes; i++) {
            if (!cluster.alive(i)) {
                continue;
            }
            List<ShardUsage> shards = new ArrayList<>(held[i]);
            for (int k = 0; k < held[i]; k++) {
                shards.add(new ShardUsage(heldSlots[i][k], heldBytes[i][k]));
            }
            long total = Math.round(cluster.capacity(i));
            long used = Math.max(0, Math.min(total, Math.round(cluster.used(i))));
            out.add(new CapacityEvent(CLUSTER, cluster.nodes().id(i), used, total, cluster.rack(i), shards,
                    Instant.ofEpochMilli(now)));
        }
        return out;
    }

    private void applyWeightCommands() {
        for (KeyValue<byte[], byte[]> kv : weightCommands.readKeyValuesToList()) {
            WeightCommand c = weightSerde.deserializer().deserialize(topics.weightCommands(), kv.value);
            AgentCore agent = agentOf(c.getNode());
            if (agent == null && lost(c.getNode())) {
                commandsToLostNodes++; // a lost node answers nothing
                continue;
            }
            if (agent == null || agent.check().problem(c).isPresent()) {
                rejectedCommands++;
                LOG.warn("weight command refused: {}", agent == null ? "unknown node " + c.getNode() : agent.check().problem(c).get());
                continue;
            }
            agent.apply(new AgentInput.Weight(c), clock);
        }
    }

    /** Migration commands to their agents, answers back to the migrator, until no new command comes. */
    private void exchange(List<MigrationStatus> answers) {
        while (true) {
            for (MigrationStatus a : answers) {
                migratorStatus.pipeInput(key(a.getMigrationId()), statusSerde.serializer().serialize(topics.migrationStatus(), a),
                        clock);
            }
            answers.clear();
            // the writers follow the slot table first: a CLEANUP comes only after its switch
            for (KeyValue<String, byte[]> kv : slotRows.readKeyValuesToList()) {
                follow(slotSerde.deserializer().deserialize(topics.slotTable(), kv.value));
            }
            // (a migrator that writes no membership records has no such topic: reading it would only warn)
            List<KeyValue<String, byte[]>> records = migrator.producedTopicNames().contains(topics.membership())
                    ? membership.readKeyValuesToList() : List.of();
            for (KeyValue<String, byte[]> kv : records) {
                if (kv.value == null) {
                    continue;
                }
                NodeMembership mr = membershipSerde.deserializer().deserialize(topics.membership(), kv.value);
                LOG.info("day {}: membership {} {} ({}): {}", day(clock), mr.getNode(), mr.getState(), mr.getSource(), mr.getReason());
                if (mr.getState() == MembershipState.LOST || mr.getState() == MembershipState.REMOVED) {
                    notes.add(String.format(Locale.ROOT, "%s: day %.2f: membership: %s %s: %s", name, clock / 86_400_000.0,
                            mr.getNode(), mr.getState(), mr.getReason()));
                }
            }
            for (KeyValue<String, byte[]> kv : repairStatus.readKeyValuesToList()) {
                MigrationStatus s = statusSerde.deserializer().deserialize(topics.migrationStatus(), kv.value);
                LOG.info("day {}: repair {}: {}", day(clock), s.getOutcome(), s.getMessage());
                if (s.getOutcome() == StepResult.FAILED) {
                    notes.add(String.format(Locale.ROOT, "%s: day %.2f: %s", name, clock / 86_400_000.0, s.getMessage()));
                }
            }
            List<KeyValue<String, byte[]>> commands = migrationCommands.readKeyValuesToList();
            if (commands.isEmpty()) {
                return;
            }
            for (KeyValue<String, byte[]> kv : commands) {
                MigrationCommand c = commandSerde.deserializer().deserialize(topics.migrationCommands(), kv.value);
                AgentCore agent = agentOf(c.getNode());
                if (agent == null && lost(c.getNode())) {
                    commandsToLostNodes++; // a lost node answers nothing
                    continue;
                }
                if (agent == null || agent.check().problem(c).isPresent()) {
                    rejectedCommands++;
                    LOG.warn("migration command refused: {}", agent == null ? "unknown node " + c.getNode()
                            : agent.check().problem(c).get());
                    continue;
                }
                if (c.getPhase() == io.skewguard.schemas.MigrationPhase.ABORT) {
                    abortedMigrations.add(c.getMigrationId());
                }
                answers.addAll(agent.apply(new AgentInput.Step(c), clock));
            }
        }
    }

    /**
     * The writers' side of a slot-table row: candidates (a switch), the in-flight mark, a lost spread or
     * held node's replacement (its rebuild); then the row itself goes to the writers' routing view.
     */
    private void follow(SlotAssignment row) {
        int slot = row.getSlot();
        rebuildSpread(slot, row);
        List<String> now = cluster.slotTable().candidateIds(slot);
        List<String> next = row.getCandidates();
        List<String> left = new ArrayList<>(now);
        left.removeAll(next);
        List<String> entered = new ArrayList<>(next);
        entered.removeAll(now);
        if (!left.isEmpty() || !entered.isEmpty()) { // the same nodes in another order route the same
            if (left.size() != 1 || entered.size() != 1) {
                throw new IllegalStateException("the migrator's slot table and the model's disagree on slot " + slot + ": "
                        + next + " vs " + now + (migratorReadsSlotTable ? "" : " (this migrator does not read the slot-table "
                        + "topic, so it built its table from the ring of the nodes that report capacity, not the model's)"));
            }
            int from = cluster.nodes().require(left.get(0));
            int to = cluster.nodes().require(entered.get(0));
            if (cluster.failed(from)) {
                rebuild(slot, from, to);
            } else {
                cluster.switchSlot(slot, from, to);
                committed++;
            }
        }
        List<Integer> readOnly = new ArrayList<>();
        for (String id : row.getReadOnly()) {
            readOnly.add(cluster.nodes().require(id));
        }
        cluster.markReadOnly(slot, readOnly);
        if (row.getInFlightTarget() != null && row.getInFlightSource() != null) {
            cluster.markInFlight(slot, cluster.nodes().require(row.getInFlightSource()),
                    cluster.nodes().require(row.getInFlightTarget()));
        } else if (cluster.inFlightTarget(slot) >= 0) {
            cluster.dropCopy(slot, cluster.inFlightTarget(slot)); // cleared without a switch: aborted
        }
        String reason = row.getSpreadReason();
        if (reason != null && !reason.equals(cluster.routes().spreadReason(slot))) {
            notes.add(SkewGuardLoop.spreadNote(name, clock, reason));
        }
        cluster.applyRoute(row);
    }

    /**
     * A row that replaces a lost spread or held node of {@code slot} by another node: the storage layer
     * rebuilds what the lost node held of the slot there from replicas, as for a candidate.
     */
    private void rebuildSpread(int slot, SlotAssignment row) {
        List<String> before = new ArrayList<>();
        for (int n : cluster.spread(slot)) {
            before.add(cluster.nodes().id(n));
        }
        for (int n : cluster.held(slot)) {
            before.add(cluster.nodes().id(n));
        }
        List<String> after = new ArrayList<>(row.getSpread());
        after.addAll(row.getSpreadHeld());
        List<String> left = new ArrayList<>(before);
        left.removeAll(after);
        List<String> entered = new ArrayList<>(after);
        entered.removeAll(before);
        for (String id : left) {
            int lost = cluster.nodes().require(id);
            if (!cluster.failed(lost) || entered.isEmpty()) {
                continue; // not lost (it became a candidate), or no node to rebuild on: the rows say so
            }
            int replacement = cluster.nodes().require(entered.remove(0));
            cluster.rebuildHeld(slot, lost, replacement);
            lostShardsRebuilt++;
            SimNodeStore store = stores[replacement];
            if (store != null) {
                store.keys().rebuildSlot(slot);
                cluster.keys().forEachHeld(replacement, slot, key -> {
                    try {
                        store.put(key, 1, VALUE);
                    } catch (io.skewguard.agent.store.StaleRouteException e) {
                        rebuiltKeysRefused++;
                    }
                });
            }
        }
    }

    /**
     * The migrator replaced lost node {@code lost} by {@code replacement} in {@code slot}'s set: the
     * storage layer rebuilds the shard there from replicas (the model's bytes and keys, and the keys
     * into the replacement's store).
     */
    private void rebuild(int slot, int lost, int replacement) {
        cluster.replaceLost(slot, lost, replacement);
        lostShardsRebuilt++;
        SimNodeStore store = stores[replacement];
        if (store == null) {
            throw new IllegalStateException("the migrator replaced lost node " + cluster.nodes().id(lost) + " in slot " + slot
                    + " by " + cluster.nodes().id(replacement) + ", which is not live");
        }
        store.keys().rebuildSlot(slot);
        cluster.keys().forEachHeld(replacement, slot, key -> {
            try {
                store.put(key, 1, VALUE);
            } catch (io.skewguard.agent.store.StaleRouteException e) {
                rebuiltKeysRefused++;
            }
        });
    }

    private long joinedAgents() {
        if (cluster == null) {
            return 0;
        }
        return java.util.stream.IntStream.range(0, cluster.maxNodes()).filter(i -> cluster.joined(i) && agents[i] != null).count();
    }

    private boolean lost(String node) {
        int i = cluster.nodes().indexOf(node);
        return i >= 0 && cluster.failed(i);
    }

    /** The balancer's controller state: when its repair ended (target or floor). */
    private void watchController(long end) {
        KeyValueStore<String, ControllerState> store = balancer.getKeyValueStore(BalancerTopology.STATE_STORE);
        ControllerState s = store.get(CLUSTER);
        if (s == null) {
            return;
        }
        if (s.repairing() && !repairing) {
            floorNoted = false;
        }
        if (repairing && !s.repairing() && weightPhaseEnd < 0) {
            weightPhaseEnd = end;
        }
        if (s.repairing() && s.floorReached() && !floorNoted) {
            floorNoted = true;
            if (weightPhaseEnd < 0) {
                weightPhaseEnd = end;
            }
            int atMin = 0;
            int atMax = 0;
            var weights = s.weights();
            double min = weights.values().stream().mapToDouble(Double::doubleValue).min().orElse(1);
            double max = weights.values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
            for (double w : weights.values()) {
                atMin += w <= min ? 1 : 0;
                atMax += w >= max ? 1 : 0;
            }
            notes.add(SkewGuardLoop.floorNote(name, end, lastHeatGini, scenario.skewguard().repairTarget(), atMin, min, atMax, max));
        }
        repairing = s.repairing();
    }

    private void countDeadLetters() {
        for (var dlq : List.of(balancerDlq, migratorDlq)) {
            for (var record : dlq.readRecordsToList()) {
                deadLetters++;
                var reason = record.headers().lastHeader(io.skewguard.schemas.DeadLetter.REASON);
                var topic = record.headers().lastHeader(io.skewguard.schemas.DeadLetter.SOURCE_TOPIC);
                LOG.warn("day {}: dead letter from {}: {}", day(clock),
                        topic == null ? "?" : new String(topic.value(), StandardCharsets.UTF_8),
                        reason == null ? "?" : new String(reason.value(), StandardCharsets.UTF_8));
            }
        }
        int detectorDeadLetters = detector.deadLetters().size();
        deadLetters += detectorDeadLetters - detectorDeadLettersSeen;
        detectorDeadLettersSeen = detectorDeadLetters;
        drainUnread(balancer, balancerUnread, Set.of(topics.weightCommands(), topics.dlq()));
        drainUnread(migrator, migratorUnread, Set.of(topics.migrationCommands(), topics.slotTable(),
                topics.migrationStatus(), topics.dlq(), topics.membership()));
    }

    /**
     * The driver keeps every record produced to a topic nobody reads (the stores' changelogs, the
     * compacted node-weights): read them away, or six weeks hold the whole changelog in memory.
     */
    private static void drainUnread(TopologyTestDriver driver, Map<String, TestOutputTopic<byte[], byte[]>> unread, Set<String> read) {
        for (String topic : driver.producedTopicNames()) {
            if (!read.contains(topic)) {
                unread.computeIfAbsent(topic, t -> driver.createOutputTopic(t, new ByteArrayDeserializer(),
                        new ByteArrayDeserializer())).readRecordsToList();
            }
        }
    }

    private AgentCore agentOf(String node) {
        int i = cluster.nodes().indexOf(node);
        return i >= 0 && i < agents.length ? agents[i] : null;
    }

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String day(long millis) {
        return String.format(Locale.ROOT, "%.2f", millis / 86_400_000.0);
    }

    @Override
    public int migrationsRunning() {
        if (agents == null) {
            return 0;
        }
        Set<String> running = new HashSet<>();
        for (AgentCore a : agents) {
            if (a == null) {
                continue;
            }
            for (MigrationRecord r : a.state().migrations().values()) {
                if (r.stage() == Stage.COPYING || r.stage() == Stage.COPIED || r.stage() == Stage.PREPARED) {
                    running.add(r.migrationId());
                }
            }
        }
        return running.size();
    }

    @Override
    public long weightPhaseEnd() {
        return weightPhaseEnd;
    }

    @Override
    public boolean weightPhaseIsControlled() {
        return true;
    }

    @Override
    public List<String> notes() {
        List<String> all = new ArrayList<>(notes);
        all.add(String.format(Locale.ROOT, "%s (fast mode): detector, balancer and migrator ran as their topologies "
                + "under TopologyTestDriver, %d node agents on in-memory stores; %d migrations committed, %d aborted, "
                + "%d dead letters, %d commands refused by an agent, %d sampled-key writes refused as stale, %d refused by a "
                + "spread node and written to the slot's own winner", name, agents == null ? 0 : Stream.of(agents).filter(a -> a != null).count(),
                committed, abortedMigrations.size(), deadLetters, rejectedCommands, staleKeyWrites, spreadFallbacks));
        if (agentsStopped > 0 || joinedAgents() > 0) {
            all.add(String.format(Locale.ROOT, "%s (fast mode): membership: %d agents of joined nodes, %d stopped "
                    + "by a loss; %d commands to lost nodes went unanswered; %d shards of lost nodes rebuilt on the migrator's "
                    + "replacements (%d rebuilt keys refused by a store)", name, joinedAgents(), agentsStopped, commandsToLostNodes,
                    lostShardsRebuilt, rebuiltKeysRefused));
        }
        return all;
    }

    /** The keys are read from the agents' real stores, not from the model. */
    @Override
    public java.util.Optional<io.skewguard.sim.model.KeyLedger.Holder> keyHolder() {
        if (stores == null) {
            return java.util.Optional.empty();
        }
        return java.util.Optional.of((node, slot, id, key) -> stores[node] != null && stores[node].get(key).isPresent());
    }

    @Override
    public void close() {
        beside.shutdownNow();
        try {
            detector.close();
        } finally {
            try {
                balancer.close();
            } finally {
                try {
                    migrator.close();
                } finally {
                    Stream.of(reportSerde, alertSerde, weightSerde, commandSerde, statusSerde, slotSerde, membershipSerde)
                            .forEach(SchemaRegistrySerde::close);
                    deleteQuietly(workDir);
                }
            }
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp dir left behind is harmless
        }
    }

    /** Simulated time as a {@link Clock}, for the detector harness. */
    private static final class SimulatedClock extends Clock {
        private final LongSupplier millis;

        SimulatedClock(LongSupplier millis) {
            this.millis = millis;
        }

        @Override
        public long millis() {
            return millis.getAsLong();
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis());
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            throw new UnsupportedOperationException("simulated time has no zone but UTC");
        }
    }
}
