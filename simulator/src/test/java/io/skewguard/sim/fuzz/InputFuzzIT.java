package io.skewguard.sim.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.AgentSettings;
import io.skewguard.agent.CommandAgent;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.balancer.BalancerSettings;
import io.skewguard.balancer.BalancerTopology;
import io.skewguard.detector.DetectorApp;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.detector.policy.BucketHeat;
import io.skewguard.detector.policy.NodeCapacity;
import io.skewguard.detector.stream.PartialHeat;
import io.skewguard.detector.stream.StateCodec;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.migrator.MigratorTopology;
import io.skewguard.runtime.lifecycle.ProcessLifecycle;
import io.skewguard.runtime.lifecycle.Service;
import io.skewguard.runtime.lifecycle.StreamsService;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotHeat;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.fuzz.BadRecord;
import io.skewguard.testkit.fuzz.BadRecords;
import io.skewguard.testkit.fuzz.FuzzTarget;
import io.skewguard.testkit.fuzz.InvalidValues;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The fuzz run of docs/reliability.md: for every input topic of every app, a seeded corpus of bad
 * records ({@link BadRecords}: random bytes, wrong magic byte, unknown schema id, truncated Avro,
 * contract violations, oversized records, missing keys and values) mixed at random into a stream of
 * good records on a real broker, with the app running in this JVM as its command runs it. Then, by
 * source topic, partition and offset: every bad record is in the dead-letter topic with the
 * dead-letter headers and a reason, no good one is, every good record is processed (what that means
 * per app is said on each test), and the app is still running.
 *
 * <p>The counts must match exactly. The short run (CI) sends {@value #SHORT} bad records per input
 * topic; {@code -Dskewguard.fuzz.full=true} sends {@value #FULL} (the figures in
 * docs/reliability.md); {@code -Dskewguard.fuzz.seed=N} replays another corpus. Each test prints its
 * figures as lines starting with {@code FUZZ}.
 */
class InputFuzzIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    static final int SHORT = 120;
    static final int FULL = 1000;
    static final int BAD_PER_TOPIC = Boolean.getBoolean("skewguard.fuzz.full") ? FULL : SHORT;
    static final long SEED = Long.getLong("skewguard.fuzz.seed", 12L);
    /** How long everything sent may take to be consumed; a stalled app fails here. */
    static final Duration WAIT = Duration.ofSeconds(Boolean.getBoolean("skewguard.fuzz.full") ? 300 : 90);
    static final String UNKNOWN_CLUSTER = "no-such-cluster";

    private static final String SCOPE = "input-fuzz-" + UUID.randomUUID();
    private static final Instant NOW = Instant.ofEpochMilli(System.currentTimeMillis() / 1000 * 1000);

    /**
     * The apps' state directories. Not a {@code @TempDir}: an app whose close runs past its timeout on
     * a loaded machine can still be writing RocksDB files when the directory is deleted, and JUnit
     * then fails a test that passed. It is deleted here, best effort, after every app was stopped.
     */
    private final Path dir = newStateDir();

    private static Path newStateDir() {
        try {
            return java.nio.file.Files.createTempDirectory("input-fuzz-");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private final Random random = new Random(SEED);
    private final BadRecords corpus = new BadRecords(SEED);
    private final Map<String, Object> serdeConfig = Map.of("schema.registry.url", "mock://" + SCOPE);
    private final List<AutoCloseable> closeAtEnd = new ArrayList<>();

    @AfterAll
    static void dropRegistry() {
        MockSchemaRegistry.drop(SCOPE);
    }

    // ------------------------------------------------------------------------------------ detector

    /**
     * Detector: node-writes and node-capacity. Processed means counted: the heat stage one hands on
     * (the partials topic, in the transactions that commit the input offsets) sums, per node, to
     * exactly the bytes of the good write events, and every node's last good capacity report is in it.
     */
    @Test
    void detectorDeadLettersEveryBadRecordAndCountsEveryGoodOne() throws Exception {
        Topics topics = new Topics("fuzz-detector.");
        EmbeddedKafka broker = KAFKA.broker();
        broker.createTopics(1, topics.all().toArray(String[]::new));
        int slots = 256;
        InvalidValues invalid = new InvalidValues(UNKNOWN_CLUSTER, "n9", slots, NOW);
        Map<String, String> values = new HashMap<>();
        values.put(DetectorSettings.BOOTSTRAP_SERVERS, broker.bootstrapServers());
        values.put(DetectorSettings.SCHEMA_REGISTRY_URL, "mock://" + SCOPE);
        values.put(DetectorSettings.APPLICATION_ID, "fuzz-detector");
        values.put(DetectorSettings.TOPIC_PREFIX, topics.prefix());
        values.put(DetectorSettings.STATE_DIR, dir.resolve("detector").toString());
        values.put(DetectorSettings.CLUSTERS, "c1");
        values.put(DetectorSettings.MAX_SLOTS, Integer.toString(slots));
        values.put(DetectorSettings.TICK, "1s");
        values.put(DetectorSettings.WINDOW, "4s");
        values.put(DetectorSettings.GRACE, "2s");
        values.put(DetectorSettings.FLUSH_INTERVAL, "200ms");
        values.put(DetectorSettings.COMMIT_INTERVAL, "200ms");
        DetectorSettings settings = DetectorSettings.of(values);
        String[] nodes = {"n1", "n2", "n3", "n4"};
        long[] clock = {NOW.toEpochMilli()};

        Serializer<WriteEvent> writes = serializer(WriteEvent.class);
        Serializer<CapacityEvent> capacities = serializer(CapacityEvent.class);
        Supplier<WriteEvent> goodWrite = () -> new WriteEvent("c1", nodes[random.nextInt(nodes.length)],
                random.nextInt(slots), 100L + random.nextInt(900), 1L + random.nextInt(5), Instant.ofEpochMilli(clock[0] += 5));
        Supplier<CapacityEvent> goodCapacity = () -> {
            long total = 1_000_000L;
            return new CapacityEvent("c1", nodes[random.nextInt(nodes.length)], (long) random.nextInt(1_000_000), total,
                    null, List.of(), Instant.ofEpochMilli(clock[0] += 5));
        };
        List<FuzzTarget<?>> targets = List.of(
                FuzzTarget.of(topics.nodeWrites(), writes, goodWrite, WriteEvent::getNode, invalid.writeEvent()),
                FuzzTarget.of(topics.nodeCapacity(), capacities, goodCapacity, CapacityEvent::getNode, invalid.capacityEvent()));

        ProcessLifecycle app = start("detector", DetectorApp.services(settings));
        FuzzLedger ledger = new FuzzLedger("detector");
        Map<String, Long> goodBytes = new TreeMap<>();
        Map<String, CapacityEvent> lastCapacity = new TreeMap<>();
        send(ledger, targets, Map.of(topics.nodeWrites(), goodWrite, topics.nodeCapacity(), goodCapacity), 3 * BAD_PER_TOPIC / 2, good -> {
            if (good instanceof WriteEvent w) {
                goodBytes.merge(w.getNode(), w.getBytes(), Long::sum);
            } else if (good instanceof CapacityEvent c) {
                lastCapacity.put(c.getNode(), c);
            }
        });
        boolean consumed = awaitConsumed(settings.applicationId() + "-ingest", Set.of(topics.nodeWrites(), topics.nodeCapacity()), app);

        Map<String, Long> heat = new TreeMap<>();
        Map<String, NodeCapacity> capacity = new TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(settings.partialsTopic())) {
            PartialHeat p = StateCodec.partialSerde().deserializer().deserialize(r.topic(), r.value());
            if (!p.cluster().equals("c1")) {
                continue;
            }
            for (BucketHeat b : p.buckets()) {
                for (int i = 0; i < b.nodes().length; i++) {
                    heat.merge(b.nodes()[i], b.nodeBytes()[i], Long::sum);
                }
            }
            p.capacities().forEach(c -> capacity.merge(c.node(), c, (a, b) -> b.eventTime() >= a.eventTime() ? b : a));
        }
        Map<String, Long> goodHeat = new TreeMap<>(heat);
        goodHeat.keySet().retainAll(goodBytes.keySet());
        boolean capacitiesKept = lastCapacity.values().stream().allMatch(c -> capacity.containsKey(c.getNode())
                && capacity.get(c.getNode()).usedBytes() == c.getUsedBytes()
                && capacity.get(c.getNode()).eventTime() == c.getEventTime().toEpochMilli());
        String processed = goodHeat.equals(goodBytes) && capacitiesKept ? "yes"
                : "heat counted " + goodHeat + " of good bytes " + goodBytes + "; last capacities kept: " + capacitiesKept
                        + "; heat of other nodes " + (heat.size() - goodHeat.size());
        verify(ledger, topics, Set.of(topics.nodeWrites(), topics.nodeCapacity()), consumed, processed, app);
    }

    // ------------------------------------------------------------------------------------ balancer

    /**
     * Balancer: reports and alerts. Processed means acted on: each good cluster gets one CONFIRMED
     * HEAT alert, then one skewed report, so each good report opens epoch 1 of its cluster with
     * weight commands issued at the report's window end; without its alert it would not.
     */
    @Test
    void balancerDeadLettersEveryBadRecordAndActsOnEveryGoodOne() throws Exception {
        Topics topics = new Topics("fuzz-balancer.");
        EmbeddedKafka broker = KAFKA.broker();
        broker.createTopics(1, topics.all().toArray(String[]::new));
        int clusters = BAD_PER_TOPIC / 4;
        List<String> good = IntStream.range(0, clusters).mapToObj(i -> "g" + i).toList();
        BalancerSettings settings = BalancerSettings.of(Map.of(
                "bootstrap.servers", broker.bootstrapServers(),
                "schema.registry.url", "mock://" + SCOPE,
                "application.id", "fuzz-balancer",
                "topic-prefix", topics.prefix(),
                "state.dir", dir.resolve("balancer").toString(),
                "clusters", String.join(",", good),
                "commit-interval", "200ms",
                "replication-factor", "1",
                // the full run's 250 clusters share one task: more than the default max-clusters
                "max-clusters", Integer.toString(clusters + 1)));
        InvalidValues invalid = new InvalidValues(UNKNOWN_CLUSTER, "n9", 1 << 20, NOW);
        Instant since = NOW.minusSeconds(600);
        Serializer<SkewAlert> alerts = serializer(SkewAlert.class);
        Serializer<SkewReport> reports = serializer(SkewReport.class);
        ProcessLifecycle app = start("balancer", List.of(new StreamsService("balancer", BalancerTopology.build(settings),
                settings.streamsProperties())));
        FuzzLedger ledger = new FuzzLedger("balancer");

        // alerts first, all consumed before the reports, so that each good report finds its cluster confirmed
        Iterator<String> alertOrder = shuffled(good).iterator();
        FuzzTarget<SkewAlert> alertTarget = FuzzTarget.of(topics.alerts(), alerts,
                () -> heatConfirmed(good.get(random.nextInt(clusters)), since), SkewAlert::getCluster, invalid.skewAlert())
                .keyRequired();
        send(ledger, List.of(alertTarget), Map.of(topics.alerts(), () -> heatConfirmed(alertOrder.next(), since)), clusters,
                r -> { });
        boolean alertsConsumed = awaitConsumed("fuzz-balancer", Set.of(topics.alerts()), app);

        Iterator<String> reportOrder = shuffled(good).iterator();
        Map<String, Instant> goodReportAt = new HashMap<>();
        // a bad report's template ends earlier than the good ones, so one let through takes its cluster's round: visible below
        FuzzTarget<SkewReport> reportTarget = FuzzTarget.of(topics.reports(), reports,
                () -> skewedReport(good.get(random.nextInt(clusters)), since.plusSeconds(50)), SkewReport::getCluster,
                invalid.skewReport()).keyRequired();
        send(ledger, List.of(reportTarget), Map.of(topics.reports(), () -> skewedReport(reportOrder.next(), since.plusSeconds(60))),
                clusters, r -> {
            SkewReport report = (SkewReport) r;
            goodReportAt.put(report.getCluster(), report.getWindowEnd());
        });
        boolean consumed = awaitConsumed("fuzz-balancer", Set.of(topics.alerts(), topics.reports()), app) && alertsConsumed;

        SchemaRegistrySerde<WeightCommand> commands = SchemaRegistrySerde.of(WeightCommand.class, serdeConfig, false);
        Map<String, Set<Instant>> issued = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(topics.weightCommands())) {
            WeightCommand c = commands.deserializer().deserialize(r.topic(), r.value());
            issued.computeIfAbsent(c.getCluster(), k -> new HashSet<>()).add(c.getIssuedAt());
        }
        commands.close();
        List<String> notActed = goodReportAt.entrySet().stream()
                .filter(e -> !issued.getOrDefault(e.getKey(), Set.of()).contains(e.getValue()))
                .map(Map.Entry::getKey).sorted().toList();
        String processed = goodReportAt.size() == clusters && notActed.isEmpty() ? "yes"
                : "no round on the good report of " + notActed.size() + " of " + clusters + " clusters " + notActed;
        verify(ledger, topics, Set.of(topics.alerts(), topics.reports()), consumed, processed, app);
    }

    // ------------------------------------------------------------------------------------ migrator

    /**
     * Migrator: alerts, reports, node-capacity and migration-status. Processed means accepted for
     * its cluster's coordinator: the repartition topic that brings every input of a cluster to one
     * task holds exactly the good records, one each (its purge is turned off for the count).
     */
    @Test
    void migratorDeadLettersEveryBadRecordAndAcceptsEveryGoodOne() throws Exception {
        Topics topics = new Topics("fuzz-migrator.");
        EmbeddedKafka broker = KAFKA.broker();
        broker.createTopics(1, topics.all().toArray(String[]::new));
        int slots = 64;
        MigratorSettings settings = MigratorSettings.of(Map.of(
                "bootstrap.servers", broker.bootstrapServers(),
                "schema.registry.url", "mock://" + SCOPE,
                "application.id", "fuzz-migrator",
                "topic-prefix", topics.prefix(),
                "state.dir", dir.resolve("migrator").toString(),
                "slot-count", Integer.toString(slots),
                "clusters", "m0,m1,m2",
                "commit-interval", "200ms",
                "repartition.purge.interval.ms", Long.toString(Long.MAX_VALUE / 2)));
        InvalidValues invalid = new InvalidValues(UNKNOWN_CLUSTER, "n9", slots, NOW);
        String[] nodes = {"a", "b", "c"};
        List<String> clusters = List.of("m0", "m1", "m2");
        long[] clock = {NOW.toEpochMilli() - 600_000};
        Supplier<String> cluster = () -> clusters.get(random.nextInt(clusters.size()));
        Supplier<CapacityEvent> capacity = () -> new CapacityEvent(cluster.get(), nodes[random.nextInt(3)],
                (long) random.nextInt(1000), 1000L, null, List.of(), Instant.ofEpochMilli(clock[0] += 10));
        Supplier<SkewAlert> alert = () -> {
            SkewAlert a = heatConfirmed(cluster.get(), Instant.ofEpochMilli(clock[0] += 10));
            a.setKind(AlertKind.CAPACITY);
            a.setValue(0.5);
            a.setThreshold(0.3);
            return a;
        };
        Supplier<SkewReport> report = () -> skewedReport(cluster.get(), Instant.ofEpochMilli(clock[0] += 10));
        Supplier<MigrationStatus> status = () -> {
            String c = cluster.get();
            return new MigrationStatus(c, c + "/b1/" + random.nextInt(slots) + "@a", "cmd", "a", MigrationPhase.COPY,
                    StepResult.PROGRESS, (long) random.nextInt(1000), null, Instant.ofEpochMilli(clock[0] += 10));
        };
        List<FuzzTarget<?>> targets = List.of(
                FuzzTarget.of(topics.nodeCapacity(), serializer(CapacityEvent.class), capacity, CapacityEvent::getNode,
                        invalid.capacityEvent()),
                // an alert's since (when its state began) may lie far back: the migrator holds only its
                // eventTime to the lateness bound (docs/migrator.md), so a far-past since is a good alert there
                FuzzTarget.of(topics.alerts(), serializer(SkewAlert.class), alert, SkewAlert::getCluster,
                        invalid.skewAlert().stream().filter(i -> !i.name().equals("since far past")).toList()),
                FuzzTarget.of(topics.reports(), serializer(SkewReport.class), report, SkewReport::getCluster, invalid.skewReport()),
                FuzzTarget.of(topics.migrationStatus(), serializer(MigrationStatus.class), status, MigrationStatus::getMigrationId,
                        invalid.migrationStatus()));
        ProcessLifecycle app = start("migrator", List.of(new StreamsService("migrator", MigratorTopology.build(settings),
                MigratorTopology.streamsConfig(settings))));
        FuzzLedger ledger = new FuzzLedger("migrator");
        Map<Byte, Integer> goodByTag = new TreeMap<>();
        Map<String, Supplier<?>> goods = new HashMap<>();
        targets.forEach(t -> goods.put(t.topic(), t.good()));
        send(ledger, targets, goods, BAD_PER_TOPIC / 2, r -> goodByTag.merge(tag(r), 1, Integer::sum));
        Set<String> inputs = Set.of(topics.alerts(), topics.reports(), topics.nodeCapacity(), topics.migrationStatus());
        boolean consumed = awaitConsumed("fuzz-migrator", inputs, app);

        Map<Byte, Integer> acceptedByTag = new TreeMap<>();
        SchemaRegistrySerde<MigrationStatus> statuses = SchemaRegistrySerde.of(MigrationStatus.class, serdeConfig, false);
        closeAtEnd.add(statuses);
        for (ConsumerRecord<byte[], byte[]> r : readAll("fuzz-migrator-by-cluster-repartition")) {
            // the migrator writes its own repair status (node "migrator") to migration-status and reads it
            // back: good records too, but not ones this test sent, so they are not counted
            if (r.value()[0] == 4 && statuses.deserializer().deserialize(r.topic(),
                    java.util.Arrays.copyOfRange(r.value(), 1, r.value().length)).getNode().equals("migrator")) {
                continue;
            }
            acceptedByTag.merge(r.value()[0], 1, Integer::sum);
        }
        String processed = acceptedByTag.equals(goodByTag) ? "yes"
                : "accepted by kind (1 alert, 2 report, 3 capacity, 4 status) " + acceptedByTag + ", good sent " + goodByTag;
        verify(ledger, topics, inputs, consumed, processed, app);
    }

    private static byte tag(Object good) {
        if (good instanceof SkewAlert) {
            return 1;
        } else if (good instanceof SkewReport) {
            return 2;
        } else if (good instanceof CapacityEvent) {
            return 3;
        }
        return 4;
    }

    // ------------------------------------------------------------------------------------ agent

    /**
     * Node agent: weight-commands and migration-commands, every record keyed with the agent's node.
     * Processed means applied: the weight epochs arrive in order, so the agent ends at the last good
     * epoch with that command's weight; each good COPY (a migration of its own) is answered on the
     * status topic.
     */
    @Test
    void agentDeadLettersEveryBadCommandAndAppliesEveryGoodOne() throws Exception {
        Topics topics = new Topics("fuzz-agent.");
        EmbeddedKafka broker = KAFKA.broker();
        broker.createTopics(1, topics.all().toArray(String[]::new));
        int slots = 16;
        Map<String, Object> kafka = new HashMap<>(serdeConfig);
        kafka.put("bootstrap.servers", broker.bootstrapServers());
        Map<String, InMemoryNodeStore> stores = new ConcurrentHashMap<>();
        for (String node : List.of("n1", "n2")) {
            stores.put(node, new InMemoryNodeStore(node, slots, System::currentTimeMillis, stores::get));
        }
        AgentSettings settings = new AgentSettings("c1", "n2", slots, topics, dir.resolve("n2.state"),
                Duration.ofMillis(100), Duration.ofMillis(100), kafka);
        InvalidValues invalid = new InvalidValues(UNKNOWN_CLUSTER, "n9", slots, NOW);
        long[] epoch = {0};
        int[] migration = {0};
        Supplier<WeightCommand> weight = () -> {
            long e = ++epoch[0];
            return new WeightCommand("weight/c1/" + e + "/n2", "c1", "n2", e, 1.0, 0.5 + random.nextInt(150) / 100.0,
                    "fuzz", NOW);
        };
        Supplier<MigrationCommand> copy = () -> {
            int m = migration[0]++;
            String id = "c1/fuzz/" + m + "@n1";
            return new MigrationCommand(id + "/COPY/n2", "c1", id, null, MigrationPhase.COPY, "n2", m % slots, "n1", "n2",
                    0L, 1_000_000L, 1L, NOW);
        };
        // a bad command starts from epoch 0 and a migration of its own, so one let through is never taken for a good one
        Supplier<WeightCommand> weightTemplate = () -> new WeightCommand("weight/c1/0/n2", "c1", "n2", 0L, 1.0, 1.0, "fuzz", NOW);
        Supplier<MigrationCommand> copyTemplate = () -> {
            int m = random.nextInt(1_000_000);
            String id = "c1/bad/" + m + "@n1";
            return new MigrationCommand(id + "/COPY/n2", "c1", id, null, MigrationPhase.COPY, "n2", m % slots, "n1", "n2",
                    0L, 1_000_000L, 1L, NOW);
        };
        List<FuzzTarget<?>> targets = List.of(
                FuzzTarget.of(topics.weightCommands(), serializer(WeightCommand.class), weightTemplate, c -> "n2",
                        invalid.weightCommand()),
                FuzzTarget.of(topics.migrationCommands(), serializer(MigrationCommand.class), copyTemplate, c -> "n2",
                        invalid.migrationCommand()));
        CommandAgent agent = new CommandAgent(settings, stores.get("n2"), System::currentTimeMillis).start();
        closeAtEnd.add(agent);
        FuzzLedger ledger = new FuzzLedger("agent");
        List<WeightCommand> goodWeights = new ArrayList<>();
        Set<String> goodCopies = new HashSet<>();
        send(ledger, targets, Map.of(topics.weightCommands(), weight, topics.migrationCommands(), copy), BAD_PER_TOPIC / 2, r -> {
            if (r instanceof WeightCommand w) {
                goodWeights.add(w);
            } else {
                goodCopies.add(((MigrationCommand) r).getMigrationId());
            }
        });
        boolean consumed = awaitConsumed(settings.groupId(), Set.of(topics.weightCommands(), topics.migrationCommands()),
                () -> agent.stoppedBy().isEmpty());

        SchemaRegistrySerde<MigrationStatus> statuses = SchemaRegistrySerde.of(MigrationStatus.class, serdeConfig, false);
        Set<String> answered = new HashSet<>();
        for (ConsumerRecord<byte[], byte[]> r : readAll(topics.migrationStatus())) {
            answered.add(statuses.deserializer().deserialize(r.topic(), r.value()).getMigrationId());
        }
        statuses.close();
        WeightCommand last = goodWeights.stream().max((a, b) -> Long.compare(a.getEpoch(), b.getEpoch())).orElseThrow();
        Set<String> unanswered = new HashSet<>(goodCopies);
        unanswered.removeAll(answered);
        boolean weightsApplied = agent.state().weightEpoch() == last.getEpoch() && stores.get("n2").weight() == last.getNewWeight();
        String processed = weightsApplied && unanswered.isEmpty() ? "yes"
                : "weight epoch " + agent.state().weightEpoch() + " (last good " + last.getEpoch() + "), weight "
                        + stores.get("n2").weight() + " (last good " + last.getNewWeight() + "); good COPY unanswered: "
                        + unanswered.size() + " of " + goodCopies.size();
        boolean alive = agent.stoppedBy().isEmpty();
        verifyWith(ledger, topics, Set.of(topics.weightCommands(), topics.migrationCommands()), consumed, processed, alive,
                agent.stoppedBy().map(Throwable::toString).orElse(""));
    }

    // ------------------------------------------------------------------------------------ shared

    private <T extends SpecificRecord> Serializer<T> serializer(Class<T> type) {
        SchemaRegistrySerde<T> serde = SchemaRegistrySerde.of(type, serdeConfig, false);
        closeAtEnd.add(serde);
        return serde.serializer();
    }

    private ProcessLifecycle start(String name, List<Service> services) throws InterruptedException {
        ProcessLifecycle.Builder b = ProcessLifecycle.builder("fuzz-" + name).shutdownHook(false).closeTimeout(Duration.ofSeconds(30));
        services.forEach(b::service);
        ProcessLifecycle app = b.build();
        java.util.concurrent.CompletableFuture<Integer> exit = app.runInBackground();
        // closed before the next test starts: an app still closing competes with it for the broker and the cores
        closeAtEnd.add(() -> {
            app.stop();
            exit.get(60, java.util.concurrent.TimeUnit.SECONDS);
        });
        assertThat(app.awaitReady(Duration.ofSeconds(90))).as(name + " ready").isTrue();
        return app;
    }

    @org.junit.jupiter.api.AfterEach
    void closeAll() {
        Collections.reverse(closeAtEnd);
        for (AutoCloseable c : closeAtEnd) {
            try {
                c.close();
            } catch (Exception e) {
                // closing what a failed run left behind; the assertion already said what went wrong
            }
        }
        closeAtEnd.clear();
        try (java.util.stream.Stream<Path> paths = java.nio.file.Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (java.io.IOException | java.io.UncheckedIOException e) {
            // a file an app still held; the directory is under the system's temporary directory
        }
    }

    /**
     * Sends, per target, {@code good} records of its topic's {@code goodStream} and {@link #BAD_PER_TOPIC}
     * bad ones (made from the target's own good records), mixed at random (seeded), and books each by
     * where it landed; {@code onGood} sees each good record in the order sent.
     */
    private void send(FuzzLedger ledger, List<FuzzTarget<?>> targets, Map<String, Supplier<?>> goodStream, int good,
            java.util.function.Consumer<Object> onGood) throws Exception {
        record Item(String topic, BadRecord bad, Function<Void, Object> goodRecord, Serializer<Object> serializer,
                    Function<Object, String> key) {}
        List<Item> items = new ArrayList<>();
        for (FuzzTarget<?> t : targets) {
            @SuppressWarnings("unchecked")
            FuzzTarget<SpecificRecord> target = (FuzzTarget<SpecificRecord>) t;
            @SuppressWarnings("unchecked")
            Serializer<Object> serializer = (Serializer<Object>) (Serializer<?>) target.serializer();
            @SuppressWarnings("unchecked")
            Function<Object, String> key = (Function<Object, String>) (Function<?, String>) target.key();
            for (BadRecord bad : corpus.corpus(target, BAD_PER_TOPIC)) {
                items.add(new Item(t.topic(), bad, null, null, null));
            }
            for (int i = 0; i < good; i++) {
                items.add(new Item(t.topic(), null, v -> goodStream.get(t.topic()).get(), serializer, key));
            }
        }
        Collections.shuffle(items, random);
        Map<String, Object> extra = Map.of("max.request.size", 2 * 1024 * 1024);
        try (KafkaProducer<byte[], byte[]> producer = KAFKA.broker().producer(new ByteArraySerializer(), new ByteArraySerializer(), extra)) {
            List<Map.Entry<java.util.concurrent.Future<RecordMetadata>, Object>> sent = new ArrayList<>();
            for (Item item : items) {
                if (item.bad() != null) {
                    sent.add(Map.entry(producer.send(new ProducerRecord<>(item.topic(), item.bad().key(), item.bad().value())),
                            item.bad()));
                } else {
                    // good records are made when sent, so their times and epochs rise in the order of the topic
                    Object record = item.goodRecord().apply(null);
                    String key = item.key().apply(record);
                    sent.add(Map.entry(producer.send(new ProducerRecord<>(item.topic(),
                            key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                            item.serializer().serialize(item.topic(), record))), record));
                    onGood.accept(record);
                }
            }
            producer.flush();
            for (var e : sent) {
                RecordMetadata at = e.getKey().get();
                if (e.getValue() instanceof BadRecord bad) {
                    ledger.sentBad(at, bad);
                } else {
                    ledger.sentGood(at, e.getValue());
                }
            }
        }
    }

    private boolean awaitConsumed(String group, Set<String> topics, ProcessLifecycle app) throws InterruptedException {
        return awaitConsumed(group, topics, app::live);
    }

    /**
     * Waits until {@code group} has committed offsets at the end of every partition of {@code topics}
     * (as they are now), or the app died, or {@link #WAIT} passed; whether everything was consumed.
     */
    private boolean awaitConsumed(String group, Set<String> topics, BooleanSupplier alive) throws InterruptedException {
        Map<TopicPartition, Long> end = KAFKA.broker().endOffsets(topics.toArray(String[]::new));
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline && alive.getAsBoolean()) {
            Map<TopicPartition, Long> committed = KAFKA.broker().committedOffsets(group);
            if (end.entrySet().stream().allMatch(e -> committed.getOrDefault(e.getKey(), -1L) >= e.getValue())) {
                return true;
            }
            Thread.sleep(200);
        }
        return false;
    }

    /** Every committed record of {@code topic} (all partitions) as it stands now. */
    private static List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
        Map<String, Object> config = new HashMap<>(KAFKA.broker().clientProperties());
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    private void verify(FuzzLedger ledger, Topics topics, Set<String> inputs, boolean consumed, String processed,
            ProcessLifecycle app) {
        verifyWith(ledger, topics, inputs, consumed, processed, app.live(), "");
    }

    private void verifyWith(FuzzLedger ledger, Topics topics, Set<String> inputs, boolean consumed, String processed,
            boolean alive, String stoppedBy) {
        ledger.deadLetters(readAll(topics.dlq()), inputs);
        String summary = ledger.summary(processed, alive) + (consumed ? "" : "FUZZ   input not consumed to its end within " + WAIT + "\n")
                + (stoppedBy.isEmpty() ? "" : "FUZZ   stopped by " + stoppedBy + "\n");
        System.out.print(summary);
        SoftAssertions soft = new SoftAssertions();
        soft.assertThat(alive).as("the app is still running " + stoppedBy).isTrue();
        soft.assertThat(consumed).as("every input record consumed within " + WAIT).isTrue();
        soft.assertThat(ledger.lostBad()).as("bad records not dead-lettered, by defect").isEmpty();
        soft.assertThat(ledger.goodDeadLettered()).as("good records dead-lettered").isEmpty();
        soft.assertThat(ledger.lettersTotal()).as("dead letters = bad records sent").isEqualTo(ledger.badSent());
        soft.assertThat(ledger.duplicateLetters()).as("records dead-lettered twice").isZero();
        soft.assertThat(ledger.lettersWithoutHeaders() + ledger.lettersWithoutReason()).as("letters without headers or reason").isZero();
        soft.assertThat(processed).as("every good record processed").isEqualTo("yes");
        soft.assertAll();
    }

    private static SkewAlert heatConfirmed(String cluster, Instant since) {
        return SkewAlert.newBuilder()
                .setAlertId(cluster + "/HEAT/CONFIRMED/" + since.toEpochMilli()).setCluster(cluster).setKind(AlertKind.HEAT)
                .setPreviousState(AlertState.OBSERVING).setState(AlertState.CONFIRMED)
                .setValue(0.6).setThreshold(0.4).setSince(since).setEventTime(since)
                .build();
    }

    /** "hot" takes 80 % of the cluster's writes: a report on which a confirmed repair opens an epoch. */
    private static SkewReport skewedReport(String cluster, Instant windowEnd) {
        List<NodeFigures> nodes = new ArrayList<>(List.of(
                new NodeFigures("cold", null, 200_000L, 500L, 1_000_000_000_000L, 5e-10),
                new NodeFigures("hot", null, 800_000L, 500L, 1_000_000_000_000L, 5e-10)));
        return SkewReport.newBuilder()
                .setCluster(cluster).setWindowStart(windowEnd.minusSeconds(60)).setWindowEnd(windowEnd)
                .setHeatGini(0.6).setCapacityCv(0.0).setShardCapacityCv(0.0).setNodeCount(2).setTotalWriteBytes(1_000_000L)
                .setNodes(nodes).setHottestSlots(new ArrayList<>(List.of(new SlotHeat(0, 1_000_000L))))
                .setSlotHeat(new ArrayList<>(List.of(1_000_000L)))
                .setHeatState(AlertState.CONFIRMED).setCapacityState(AlertState.NORMAL)
                .build();
    }

    private List<String> shuffled(List<String> values) {
        List<String> copy = new ArrayList<>(values);
        Collections.shuffle(copy, random);
        return copy;
    }
}
