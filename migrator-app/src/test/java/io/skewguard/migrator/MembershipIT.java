package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.AgentSettings;
import io.skewguard.agent.CommandAgent;
import io.skewguard.agent.RoutingView;
import io.skewguard.agent.report.CapacitySnapshot;
import io.skewguard.agent.report.NodeReporter;
import io.skewguard.agent.report.ReporterSettings;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.agent.store.Versioned;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The migrator follows membership with the real pieces: a broker, the migrator, real {@link
 * CommandAgent}s on {@link InMemoryNodeStore}s with their {@link NodeReporter}s. A node joins
 * mid-run and is filled until the capacity CV is at the target; then a node is drained until it
 * holds no shard, is in no candidate set, and every key reads back through the final table.
 */
class MembershipIT {

    private static final Logger LOG = LoggerFactory.getLogger(MembershipIT.class);

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String SCOPE = "membership-it-" + UUID.randomUUID();
    private static final String CLUSTER = "c1";
    private static final List<String> FIRST = List.of("n0", "n1", "n2", "n3", "n4");
    private static final int SLOTS = 64;
    private static final int CANDIDATES = 2;
    private static final double TARGET_CV = 0.10;
    private static final int KEYS = 6_000;
    private static final int VALUE_BYTES = 200;
    private static final long CAPACITY = 4_000_000L;
    private static final Duration DEADLINE = Duration.ofSeconds(150);

    @AfterAll
    static void dropRegistry() {
        MockSchemaRegistry.drop(SCOPE);
    }

    @Test
    void aJoiningNodeIsFilledToTheTargetAndADrainedNodeEndsEmptyWithEveryKeyReadable(@TempDir Path dir) throws Exception {
        EmbeddedKafka broker = KAFKA.broker();
        Topics topics = new Topics("mem.");
        broker.createTopics(2, topics.nodeWrites(), topics.nodeCapacity());
        broker.createTopics(1, topics.reports(), topics.alerts(), topics.migrationCommands(), topics.migrationStatus(),
                topics.weightCommands(), topics.dlq());
        broker.createCompactedTopics(1, topics.slotTable(), topics.nodeWeights(), topics.membership(), topics.control());
        broker.createTopics(1, topics.proposals(), topics.decisions());
        Map<String, Object> serde = Map.of("schema.registry.url", "mock://" + SCOPE);
        Map<String, Object> kafka = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                "schema.registry.url", "mock://" + SCOPE);
        MigratorSettings settings = MigratorSettings.of(Map.ofEntries(
                Map.entry("bootstrap.servers", broker.bootstrapServers()),
                Map.entry("schema.registry.url", "mock://" + SCOPE),
                Map.entry("application.id", "membership-migrator"),
                Map.entry("topic-prefix", topics.prefix()),
                Map.entry("state.dir", dir.resolve("migrator").toString()),
                Map.entry("target-cv", Double.toString(TARGET_CV)),
                Map.entry("slot-count", Integer.toString(SLOTS)),
                Map.entry("candidates", Integer.toString(CANDIDATES)),
                Map.entry("commit-interval", "100ms"),
                Map.entry("tick-interval", "200ms"),
                Map.entry("max-parallel", "3"),
                Map.entry("copy-stall-timeout", "10s"),
                Map.entry("prepare-timeout", "10s"),
                Map.entry("retry-interval", "2s"),
                Map.entry("abort-timeout", "5s")));

        Map<String, InMemoryNodeStore> stores = new ConcurrentHashMap<>();
        for (String node : FIRST) {
            stores.put(node, new InMemoryNodeStore(node, SLOTS, System::currentTimeMillis, stores::get));
        }
        // the keys are placed by the table the migrator builds on its first plan: the ring of the first nodes
        SlotTable ring = SlotTable.fromRing(HashRing.of(FIRST.stream().map(n -> new Node(n, null, 1.0)).toList(),
                HashRing.DEFAULT_VNODES_PER_UNIT), CANDIDATES, SLOTS);
        RoutingView view = RoutingView.of(CLUSTER, ring);
        Map<String, Long> versions = new HashMap<>();
        for (int i = 0; i < KEYS; i++) {
            String key = "key-" + i;
            byte[] value = new byte[VALUE_BYTES];
            Arrays.fill(value, (byte) i);
            stores.get(view.pick(key)).put(key, i + 1L, value);
            versions.put(key, i + 1L);
        }

        List<AutoCloseable> closeLast = new ArrayList<>();
        Map<String, CommandAgent> agents = new TreeMap<>();
        SchemaRegistrySerde<MigrationStatus> statusSerde = SchemaRegistrySerde.of(MigrationStatus.class, serde, false);
        SchemaRegistrySerde<SkewAlert> alertSerde = SchemaRegistrySerde.of(SkewAlert.class, serde, false);
        SchemaRegistrySerde<NodeMembership> membershipSerde = SchemaRegistrySerde.of(NodeMembership.class, serde, false);
        SchemaRegistrySerde<SlotAssignment> slotSerde = SchemaRegistrySerde.of(SlotAssignment.class, serde, false);
        try (KafkaStreams migrator = new KafkaStreams(MigratorTopology.build(settings), MigratorTopology.streamsConfig(settings));
             KafkaConsumer<String, MigrationStatus> statuses = consumer(broker, topics.migrationStatus(), statusSerde);
             KafkaConsumer<String, NodeMembership> membership = consumer(broker, topics.membership(), membershipSerde);
             KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                     "bootstrap.servers", broker.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            migrator.setUncaughtExceptionHandler(e -> {
                failure.compareAndSet(null, e);
                return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            });
            migrator.start();
            for (String node : FIRST) {
                start(node, stores, agents, closeLast, topics, kafka, serde, broker, dir);
            }
            List<MigrationStatus> repair = new ArrayList<>();
            List<NodeMembership> members = new ArrayList<>();

            // 1. the first plan builds the table (a CONFIRMED CAPACITY alert, as the detector would send), from the ring
            // of the nodes whose capacity the migrator has: all of the first ones, as the keys were placed
            await(statuses, repair, members, membership, failure,
                    r -> members.stream().map(NodeMembership::getNode).distinct().count() == FIRST.size(), "every first node a member");
            Instant now = Instant.now();
            producer.send(new ProducerRecord<>(topics.alerts(), CLUSTER, alertSerde.serializer().serialize(topics.alerts(),
                    SkewAlert.newBuilder().setAlertId(CLUSTER + "/CAPACITY/CONFIRMED/1").setCluster(CLUSTER).setKind(AlertKind.CAPACITY)
                            .setPreviousState(AlertState.OBSERVING).setState(AlertState.CONFIRMED).setValue(0.3).setThreshold(0.25)
                            .setSince(now).setEventTime(now).build()))).get();
            await(statuses, repair, members, membership, failure, r -> r.size() >= 2 && terminal(r.get(r.size() - 1)), "the first repair");
            LOG.info("first repair: {}; CV {}", repair.get(repair.size() - 1).getMessage(), cv(stores));

            // 2. n5 joins mid-run: its first capacity report makes it a member, and a repair fills it
            int before = repair.size();
            stores.put("n5", new InMemoryNodeStore("n5", SLOTS, System::currentTimeMillis, stores::get));
            start("n5", stores, agents, closeLast, topics, kafka, serde, broker, dir);
            await(statuses, repair, members, membership, failure,
                    r -> r.size() > before + 1 && terminal(r.get(r.size() - 1)), "the repair after the join");
            assertThat(repair.get(before).getMessage()).isEqualTo("repair started: node n5 joined");
            assertThat(repair.get(repair.size() - 1).getMessage()).startsWith("repair done");
            assertThat(members).anyMatch(m -> m.getNode().equals("n5") && m.getState() == MembershipState.ACTIVE
                    && m.getReason().startsWith("joined"));
            assertThat(stores.get("n5").usedBytes()).isPositive();
            assertThat(cv(stores)).as("capacity CV after the join").isLessThanOrEqualTo(TARGET_CV);
            LOG.info("after the join: CV {}", cv(stores));

            // 3. an operator drains n2: it ends with no shard, in no candidate set, DRAINED
            Instant drainAt = Instant.now();
            producer.send(new ProducerRecord<>(topics.membership(), CLUSTER + "/n2", membershipSerde.serializer().serialize(
                    topics.membership(), NodeMembership.newBuilder().setCluster(CLUSTER).setNode("n2").setState(MembershipState.DRAINING)
                            .setSource("operator").setReason("test").setUpdatedAt(drainAt).build()))).get();
            await(statuses, repair, members, membership, failure,
                    r -> members.stream().anyMatch(m -> m.getNode().equals("n2") && m.getState() == MembershipState.DRAINED),
                    "n2 drained");
            NodeMembership drained = members.stream().filter(m -> m.getNode().equals("n2") && m.getState() == MembershipState.DRAINED)
                    .findFirst().orElseThrow();
            LOG.info("n2: {}", drained.getReason());
            assertThat(stores.get("n2").shardBytes().values()).allMatch(b -> b == 0);
            Map<Integer, SlotAssignment> table = readTable(broker, topics.slotTable(), slotSerde);
            assertThat(table).hasSize(SLOTS);
            assertThat(table.values()).noneMatch(r -> r.getCandidates().contains("n2") || r.getReadOnly().contains("n2"));
            for (Map.Entry<String, Long> e : versions.entrySet()) {
                int slot = view.slotOf(e.getKey());
                Versioned best = null;
                for (String node : table.get(slot).getCandidates()) {
                    Optional<Versioned> v = stores.get(node).get(e.getKey());
                    if (v.isPresent() && v.get().newerThan(best)) {
                        best = v.get();
                    }
                }
                assertThat(best).as("key %s (slot %d, candidates %s)", e.getKey(), slot, table.get(slot).getCandidates()).isNotNull();
                assertThat(best.version()).isEqualTo(e.getValue());
            }
            assertThat(failure.get()).isNull();
            for (CommandAgent a : agents.values()) {
                assertThat(a.stoppedBy()).isEmpty();
                assertThat(a.deadLetters()).isZero();
            }
        } finally {
            for (int i = closeLast.size() - 1; i >= 0; i--) {
                closeLast.get(i).close();
            }
            statusSerde.close();
            alertSerde.close();
            membershipSerde.close();
            slotSerde.close();
        }
    }

    private static void start(String node, Map<String, InMemoryNodeStore> stores, Map<String, CommandAgent> agents,
            List<AutoCloseable> closeLast, Topics topics, Map<String, Object> kafka, Map<String, Object> serde, EmbeddedKafka broker,
            Path dir) {
        InMemoryNodeStore store = stores.get(node);
        CommandAgent agent = new CommandAgent(new AgentSettings(CLUSTER, node, SLOTS, topics, dir.resolve("agent-" + node + ".state"),
                Duration.ofMillis(100), Duration.ofMillis(200), kafka), store, System::currentTimeMillis);
        agents.put(node, agent.start());
        closeLast.add(agent);
        NodeReporter reporter = new NodeReporter(new ReporterSettings(CLUSTER, node, SLOTS, topics, Duration.ofMillis(500),
                Duration.ofMillis(500), serde), broker.producer(new ByteArraySerializer(), new ByteArraySerializer()),
                () -> snapshot(store), System::currentTimeMillis);
        reporter.start();
        closeLast.add(reporter);
    }

    private static boolean terminal(MigrationStatus s) {
        return s.getOutcome() != StepResult.PROGRESS;
    }

    /** Polls the repair statuses and the migrator's membership records until {@code done} holds, or fails at the deadline. */
    private static void await(KafkaConsumer<String, MigrationStatus> statuses, List<MigrationStatus> repair, List<NodeMembership> members,
            KafkaConsumer<String, NodeMembership> membership, AtomicReference<Throwable> failure,
            Predicate<List<MigrationStatus>> done, String what) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!done.test(repair)) {
            assertThat(failure.get()).as("migrator failure").isNull();
            assertThat(System.nanoTime()).as("waiting for %s; repair statuses %s", what,
                    repair.stream().map(MigrationStatus::getMessage).toList()).isLessThan(deadline);
            for (ConsumerRecord<String, MigrationStatus> r : statuses.poll(Duration.ofMillis(100))) {
                if (r.value().getMigrationId().equals(CLUSTER + "/repair")) {
                    repair.add(r.value());
                }
            }
            for (ConsumerRecord<String, NodeMembership> r : membership.poll(Duration.ofMillis(100))) {
                if (r.value().getSource().equals("migrator")) {
                    members.add(r.value());
                }
            }
        }
    }

    private static CapacitySnapshot snapshot(InMemoryNodeStore store) {
        Map<Integer, Long> shards = store.shardBytes();
        long used = shards.values().stream().mapToLong(Long::longValue).sum();
        return new CapacitySnapshot(used, CAPACITY, null, shards);
    }

    /** Population CV of utilisation over the nodes that hold data or are members (all but a drained one). */
    private static double cv(Map<String, InMemoryNodeStore> stores) {
        double[] u = stores.values().stream().mapToDouble(s -> (double) s.usedBytes() / CAPACITY).toArray();
        double mean = Arrays.stream(u).average().orElseThrow();
        double var = Arrays.stream(u).map(x -> (x - mean) * (x - mean)).average().orElseThrow();
        return Math.sqrt(var) / mean;
    }

    static Map<Integer, SlotAssignment> readTable(EmbeddedKafka kafka, String topic, SchemaRegistrySerde<SlotAssignment> serde) {
        Map<Integer, SlotAssignment> table = new TreeMap<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (KafkaConsumer<String, SlotAssignment> c = consumer(kafka, topic, serde)) {
            Map<TopicPartition, Long> end = c.endOffsets(c.assignment());
            while (end.entrySet().stream().anyMatch(e -> c.position(e.getKey()) < e.getValue())) {
                assertThat(System.nanoTime()).as("reading %s", topic).isLessThan(deadline);
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
}
