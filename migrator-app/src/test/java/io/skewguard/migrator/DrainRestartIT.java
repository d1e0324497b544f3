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
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A drain survives restarts of the migrator, with the real pieces (a broker, the migrator, real
 * {@link CommandAgent}s on {@link InMemoryNodeStore}s with their reporters): an operator drains
 * {@code n2}, whose shards go one migration at a time (a node is in one migration at a time); the
 * migrator is stopped with a migration committed and another in flight, restarted with its state;
 * stopped again the same way, and restarted with its state directory deleted under a new
 * application id, so that it adopts the slot table on the topic and reads the operator's DRAINING
 * record again. Everything is judged from the topics: the drain ends (DRAINED by the migrator,
 * {@code n2} in no candidate set and holding nothing), every key reads back at its version, no
 * migration id names two moves, no slot switches away from {@code n2} twice, and routing epochs
 * only go up, each switch by one.
 */
class DrainRestartIT {

    private static final Logger LOG = LoggerFactory.getLogger(DrainRestartIT.class);

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String SCOPE = "drain-restart-it-" + UUID.randomUUID();
    private static final String CLUSTER = "c1";
    private static final List<String> NODES = List.of("n0", "n1", "n2", "n3", "n4");
    private static final String DRAINED = "n2";
    private static final int SLOTS = 16;
    private static final int CANDIDATES = 2;
    private static final int KEYS = 2_000;
    private static final int VALUE_BYTES = 200;
    private static final long CAPACITY = 4_000_000L;
    /** Slow enough that a copy is in flight for a while (a shard is about 13 kB), fast enough for the run time. */
    private static final long COPY_BYTES_PER_SEC = 20_000;
    private static final Duration DEADLINE = Duration.ofSeconds(90);

    @AfterAll
    static void dropRegistry() {
        MockSchemaRegistry.drop(SCOPE);
    }

    @Test
    void aMigratorRestartedMidDrainWithItsStateAndThenWithoutItFinishesTheDrainAndMovesNoShardTwice(@TempDir Path dir)
            throws Exception {
        EmbeddedKafka broker = KAFKA.broker();
        Topics topics = new Topics("drain.");
        broker.createTopics(2, topics.nodeWrites(), topics.nodeCapacity());
        broker.createTopics(1, topics.reports(), topics.alerts(), topics.migrationCommands(), topics.migrationStatus(),
                topics.weightCommands(), topics.dlq());
        broker.createCompactedTopics(1, topics.slotTable(), topics.nodeWeights(), topics.membership(), topics.control());
        broker.createTopics(1, topics.proposals(), topics.decisions());
        Map<String, Object> serde = Map.of("schema.registry.url", "mock://" + SCOPE);
        Map<String, Object> kafka = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                "schema.registry.url", "mock://" + SCOPE);
        Path stateDir = dir.resolve("migrator");

        Map<String, InMemoryNodeStore> stores = new ConcurrentHashMap<>();
        for (String node : NODES) {
            stores.put(node, new InMemoryNodeStore(node, SLOTS, System::currentTimeMillis, stores::get));
        }
        // the keys are placed by the table the migrator builds on its first plan: the ring of the nodes
        SlotTable ring = SlotTable.fromRing(HashRing.of(NODES.stream().map(n -> new Node(n, null, 1.0)).toList(),
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
        long drainedShards = stores.get(DRAINED).shardBytes().values().stream().filter(b -> b > 0).count();
        LOG.info("{} holds {} shards ({} bytes)", DRAINED, drainedShards, stores.get(DRAINED).usedBytes());
        assertThat(drainedShards).as("shards of the drained node").isGreaterThanOrEqualTo(4);

        List<AutoCloseable> closeLast = new ArrayList<>();
        Map<String, CommandAgent> agents = new TreeMap<>();
        SchemaRegistrySerde<MigrationStatus> statusSerde = SchemaRegistrySerde.of(MigrationStatus.class, serde, false);
        SchemaRegistrySerde<SkewAlert> alertSerde = SchemaRegistrySerde.of(SkewAlert.class, serde, false);
        SchemaRegistrySerde<NodeMembership> membershipSerde = SchemaRegistrySerde.of(NodeMembership.class, serde, false);
        SchemaRegistrySerde<SlotAssignment> slotSerde = SchemaRegistrySerde.of(SlotAssignment.class, serde, false);
        SchemaRegistrySerde<MigrationCommand> commandSerde = SchemaRegistrySerde.of(MigrationCommand.class, serde, false);
        try (KafkaConsumer<String, MigrationStatus> statusConsumer = MembershipIT.consumer(broker, topics.migrationStatus(), statusSerde);
             KafkaConsumer<String, NodeMembership> membershipConsumer = MembershipIT.consumer(broker, topics.membership(), membershipSerde);
             KafkaConsumer<String, SlotAssignment> slotConsumer = MembershipIT.consumer(broker, topics.slotTable(), slotSerde);
             KafkaConsumer<String, MigrationCommand> commandConsumer = MembershipIT.consumer(broker, topics.migrationCommands(),
                     commandSerde);
             KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                     "bootstrap.servers", broker.bootstrapServers()), new StringSerializer(), new ByteArraySerializer())) {
            Seen seen = new Seen(statusConsumer, membershipConsumer, slotConsumer, commandConsumer);
            for (String node : NODES) {
                start(node, stores, agents, closeLast, topics, kafka, serde, broker, dir);
            }

            // 1. the first deployment builds the table on its first plan (a CONFIRMED CAPACITY alert; the
            // target CV is so high that this repair moves nothing), then an operator drains n2
            Migrator migrator = Migrator.start(settings(broker, "drain-first", stateDir));
            // the table is built from the ring of the nodes whose capacity the migrator has: all of them, as the keys were placed
            seen.await(migrator, () -> seen.members.stream().map(NodeMembership::getNode).distinct().count() == NODES.size(),
                    "every node a member");
            Instant now = Instant.now();
            producer.send(new ProducerRecord<>(topics.alerts(), CLUSTER, alertSerde.serializer().serialize(topics.alerts(),
                    SkewAlert.newBuilder().setAlertId(CLUSTER + "/CAPACITY/CONFIRMED/1").setCluster(CLUSTER).setKind(AlertKind.CAPACITY)
                            .setPreviousState(AlertState.OBSERVING).setState(AlertState.CONFIRMED).setValue(0.3).setThreshold(0.25)
                            .setSince(now).setEventTime(now).build()))).get();
            seen.await(migrator, () -> seen.latest().size() == SLOTS && seen.repair.stream().anyMatch(s -> s.getOutcome() != StepResult.PROGRESS),
                    "the table built and the first repair over");
            seen.latest().forEach((slot, row) -> assertThat(row.getCandidates()).as("slot %d", slot).isEqualTo(ring.candidateIds(slot)));
            Instant drainAt = Instant.now();
            producer.send(new ProducerRecord<>(topics.membership(), CLUSTER + "/" + DRAINED, membershipSerde.serializer().serialize(
                    topics.membership(), NodeMembership.newBuilder().setCluster(CLUSTER).setNode(DRAINED).setState(MembershipState.DRAINING)
                            .setSource("operator").setReason("test").setUpdatedAt(drainAt).build()))).get();

            // 2. stopped with a migration of the drain committed and another in flight; restarted with its state
            seen.await(migrator, () -> seen.switchesFromDrained() >= 1 && seen.inFlightFromDrained(), "a switch and a copy in flight");
            migrator.close();
            seen.catchUp();
            int switchesBefore = seen.switchesFromDrained();
            LOG.info("first deployment stopped after {} switches from {}", switchesBefore, DRAINED);
            migrator = Migrator.start(settings(broker, "drain-first", stateDir));

            // 3. stopped the same way; its state directory deleted, restarted under a new application id
            seen.await(migrator, () -> seen.switchesFromDrained() > switchesBefore && seen.inFlightFromDrained(),
                    "a switch by the restarted migrator and a copy in flight");
            migrator.close();
            seen.catchUp();
            LOG.info("restarted deployment stopped after {} switches from {}", seen.switchesFromDrained(), DRAINED);
            assertThat(seen.switchesFromDrained()).as("switches left for the deployment without state").isLessThan((int) drainedShards);
            deleteTree(stateDir);
            int statusesBefore = seen.repair.size();
            migrator = Migrator.start(settings(broker, "drain-second", stateDir));
            seen.await(migrator, () -> seen.members.stream().anyMatch(m -> m.getNode().equals(DRAINED)
                    && m.getState() == MembershipState.DRAINED), DRAINED + " drained");
            // the last switch's CLEANUP may still be on its way to n2
            seen.await(migrator, () -> stores.get(DRAINED).usedBytes() == 0, DRAINED + " empty");
            migrator.close();
            seen.catchUp();

            // the deployment without state learnt of the drain from the operator's record on the membership topic
            assertThat(seen.repair.subList(statusesBefore, seen.repair.size())).extracting(MigrationStatus::getMessage)
                    .anyMatch(m -> m.startsWith("repair started: node " + DRAINED + " draining"));

            // the drain ended: DRAINED by the migrator, n2 in no candidate set and holding no shard
            NodeMembership drained = seen.members.stream().filter(m -> m.getNode().equals(DRAINED)
                    && m.getState() == MembershipState.DRAINED).findFirst().orElseThrow();
            LOG.info("{}: {}", DRAINED, drained.getReason());
            assertThat(drained.getSource()).isEqualTo("migrator");
            Map<Integer, SlotAssignment> table = MembershipIT.readTable(broker, topics.slotTable(), slotSerde);
            assertThat(table).hasSize(SLOTS);
            assertThat(table.values()).noneMatch(r -> r.getCandidates().contains(DRAINED) || r.getReadOnly().contains(DRAINED)
                    || r.getMigrationId() != null);
            assertThat(stores.get(DRAINED).shardBytes().values()).allMatch(b -> b == 0);
            // after the operator's DRAINING the migrator says nothing of n2 but that it is drained
            assertThat(seen.members).filteredOn(m -> m.getNode().equals(DRAINED) && !m.getUpdatedAt().isBefore(drainAt))
                    .extracting(m -> m.getState() + ": " + m.getReason()).singleElement().asString().startsWith("DRAINED: drained");

            // every key reads back at its version through the final table
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

            seen.assertNoMigrationRepeated();
            seen.assertEpochsOnlyGoUpOneUpdateAtATime();
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
            commandSerde.close();
        }
    }

    private static MigratorSettings settings(EmbeddedKafka broker, String applicationId, Path stateDir) {
        return MigratorSettings.of(Map.ofEntries(
                Map.entry("bootstrap.servers", broker.bootstrapServers()),
                Map.entry("schema.registry.url", "mock://" + SCOPE),
                Map.entry("application.id", applicationId),
                Map.entry("topic-prefix", "drain."),
                Map.entry("state.dir", stateDir.toString()),
                Map.entry("target-cv", "1.0"), // only the drain moves shards
                Map.entry("slot-count", Integer.toString(SLOTS)),
                Map.entry("candidates", Integer.toString(CANDIDATES)),
                Map.entry("commit-interval", "100ms"),
                Map.entry("tick-interval", "200ms"),
                Map.entry("max-parallel", "2"),
                Map.entry("max-bytes-per-sec", Long.toString(COPY_BYTES_PER_SEC)),
                Map.entry("copy-stall-timeout", "10s"),
                Map.entry("prepare-timeout", "10s"),
                Map.entry("retry-interval", "2s"),
                Map.entry("abort-timeout", "5s")));
    }

    /** One running migrator, in this JVM; a stream thread that dies fails the test. */
    private record Migrator(KafkaStreams streams, AtomicReference<Throwable> failure) implements AutoCloseable {

        static Migrator start(MigratorSettings settings) {
            Properties config = MigratorTopology.streamsConfig(settings);
            // leave the group on close, as the app's StreamsService does: the restarted migrator then
            // gets the partitions at once instead of after the session timeout
            config.put(StreamsConfig.mainConsumerPrefix("internal.leave.group.on.close"), "true");
            KafkaStreams streams = new KafkaStreams(MigratorTopology.build(settings), config);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            streams.setUncaughtExceptionHandler(e -> {
                failure.compareAndSet(null, e);
                return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            });
            streams.start();
            return new Migrator(streams, failure);
        }

        @Override
        public void close() {
            assertThat(streams.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(Duration.ofSeconds(30))))
                    .as("the migrator stopped").isTrue();
            assertThat(failure.get()).as("migrator failure").isNull();
        }
    }

    /** Everything read from the topics, in topic order. */
    private static final class Seen {
        final KafkaConsumer<String, MigrationStatus> statuses;
        final KafkaConsumer<String, NodeMembership> membership;
        final KafkaConsumer<String, SlotAssignment> slotTable;
        final KafkaConsumer<String, MigrationCommand> commands;
        final List<MigrationStatus> repair = new ArrayList<>();
        final List<NodeMembership> members = new ArrayList<>();
        final List<SlotAssignment> rows = new ArrayList<>();
        final List<MigrationCommand> sent = new ArrayList<>();

        Seen(KafkaConsumer<String, MigrationStatus> statuses, KafkaConsumer<String, NodeMembership> membership,
                KafkaConsumer<String, SlotAssignment> slotTable, KafkaConsumer<String, MigrationCommand> commands) {
            this.statuses = statuses;
            this.membership = membership;
            this.slotTable = slotTable;
            this.commands = commands;
        }

        void await(Migrator migrator, BooleanSupplier done, String what) {
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (!done.getAsBoolean()) {
                assertThat(migrator.failure().get()).as("migrator failure").isNull();
                assertThat(System.nanoTime()).as("waiting for %s; repair statuses %s", what,
                        repair.stream().map(MigrationStatus::getMessage).toList()).isLessThan(deadline);
                poll();
            }
        }

        void poll() {
            for (ConsumerRecord<String, MigrationStatus> r : statuses.poll(Duration.ofMillis(50))) {
                if (r.value().getMigrationId().equals(CLUSTER + "/repair")) {
                    repair.add(r.value());
                }
            }
            for (ConsumerRecord<String, NodeMembership> r : membership.poll(Duration.ofMillis(50))) {
                if (r.value().getSource().equals("migrator")) {
                    members.add(r.value());
                }
            }
            slotTable.poll(Duration.ofMillis(50)).forEach(r -> rows.add(r.value()));
            commands.poll(Duration.ofMillis(50)).forEach(r -> sent.add(r.value()));
        }

        /** Reads every topic to its end (after a migrator stopped: what it published last). */
        void catchUp() {
            for (KafkaConsumer<String, ?> c : List.of(statuses, membership, slotTable, commands)) {
                Map<org.apache.kafka.common.TopicPartition, Long> end = c.endOffsets(c.assignment());
                long deadline = System.nanoTime() + DEADLINE.toNanos();
                while (end.entrySet().stream().anyMatch(e -> c.position(e.getKey()) < e.getValue())) {
                    assertThat(System.nanoTime()).as("reading to the end").isLessThan(deadline);
                    poll();
                }
            }
        }

        Map<Integer, SlotAssignment> latest() {
            Map<Integer, SlotAssignment> latest = new TreeMap<>();
            rows.forEach(r -> latest.put(r.getSlot(), r));
            return latest;
        }

        /** Rows that took the drained node out of a candidate set that held it (switches, or its final replacement). */
        int switchesFromDrained() {
            Map<Integer, SlotAssignment> before = new HashMap<>();
            int switches = 0;
            for (SlotAssignment r : rows) {
                SlotAssignment previous = before.put(r.getSlot(), r);
                if (previous != null && previous.getCandidates().contains(DRAINED) && !r.getCandidates().contains(DRAINED)) {
                    switches++;
                }
            }
            return switches;
        }

        boolean inFlightFromDrained() {
            return latest().values().stream().anyMatch(r -> DRAINED.equals(r.getInFlightSource()));
        }

        /**
         * A migration id names one move; a slot leaves the drained node once, by one committed
         * migration, and no COPY of that slot from the drained node is sent after its COMMIT.
         */
        void assertNoMigrationRepeated() {
            Map<String, String> moves = new HashMap<>();
            for (MigrationCommand c : sent) {
                String move = c.getSlot() + ":" + c.getSourceNode() + "->" + c.getTargetNode();
                String other = moves.putIfAbsent(c.getMigrationId(), move);
                assertThat(other == null || other.equals(move)).as("migration %s names %s and %s", c.getMigrationId(), other, move)
                        .isTrue();
            }
            Map<Integer, Set<String>> committedBySlot = new TreeMap<>();
            Map<Integer, Instant> commitAt = new HashMap<>();
            for (MigrationCommand c : sent) {
                if (c.getPhase() == MigrationPhase.COMMIT && c.getSourceNode().equals(DRAINED)) {
                    committedBySlot.computeIfAbsent(c.getSlot(), s -> new HashSet<>()).add(c.getMigrationId());
                    commitAt.merge(c.getSlot(), c.getIssuedAt(), (a, b) -> a.isBefore(b) ? a : b);
                }
            }
            LOG.info("committed moves from {}: {}", DRAINED, committedBySlot);
            assertThat(committedBySlot.values()).as("committed migrations per slot from %s", DRAINED).allMatch(ids -> ids.size() == 1);
            for (MigrationCommand c : sent) {
                if (c.getPhase() == MigrationPhase.COPY && c.getSourceNode().equals(DRAINED) && commitAt.containsKey(c.getSlot())) {
                    assertThat(c.getIssuedAt()).as("COPY %s after slot %d was switched", c.getCommandId(), c.getSlot())
                            .isBefore(commitAt.get(c.getSlot()));
                }
            }
            Map<Integer, Integer> leftDrained = new TreeMap<>();
            Map<Integer, SlotAssignment> before = new HashMap<>();
            for (SlotAssignment r : rows) {
                SlotAssignment previous = before.put(r.getSlot(), r);
                if (previous != null && previous.getCandidates().contains(DRAINED) && !r.getCandidates().contains(DRAINED)) {
                    leftDrained.merge(r.getSlot(), 1, Integer::sum);
                }
                if (previous != null && !previous.getCandidates().contains(DRAINED)) {
                    assertThat(r.getCandidates()).as("slot %d after it left %s", r.getSlot(), DRAINED).doesNotContain(DRAINED);
                }
            }
            assertThat(leftDrained.values()).as("times each slot left %s", DRAINED).allMatch(n -> n == 1);
            assertThat(committedBySlot.keySet()).isSubsetOf(leftDrained.keySet());
        }

        /**
         * In topic order: a row's epoch never goes below the epoch it had; a row that changes its
         * candidates or read-only marks opens a new update at the table's epoch + 1, or belongs to the
         * update that the row before it opened (same epoch); a row that changes neither keeps its epoch.
         */
        void assertEpochsOnlyGoUpOneUpdateAtATime() {
            Map<Integer, SlotAssignment> before = new HashMap<>();
            long tableEpoch = -1;
            long lastChangeEpoch = -1;
            int switches = 0;
            for (SlotAssignment r : rows) {
                SlotAssignment previous = before.put(r.getSlot(), r);
                if (previous == null) {
                    assertThat(r.getRoutingEpoch()).as("slot %d built", r.getSlot()).isZero();
                    tableEpoch = Math.max(tableEpoch, 0);
                    continue;
                }
                boolean changed = !previous.getCandidates().equals(r.getCandidates()) || !previous.getReadOnly().equals(r.getReadOnly());
                if (!changed) {
                    assertThat(r.getRoutingEpoch()).as("slot %d republished unchanged", r.getSlot()).isEqualTo(previous.getRoutingEpoch());
                    continue;
                }
                if (r.getRoutingEpoch() == tableEpoch + 1) {
                    tableEpoch = r.getRoutingEpoch();
                    switches++;
                } else {
                    assertThat(r.getRoutingEpoch()).as("slot %d changed %s -> %s", r.getSlot(), previous.getCandidates(),
                            r.getCandidates()).isEqualTo(tableEpoch).isEqualTo(lastChangeEpoch);
                }
                lastChangeEpoch = r.getRoutingEpoch();
            }
            LOG.info("{} slot-table updates, last routing epoch {}", switches, tableEpoch);
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

    private static CapacitySnapshot snapshot(InMemoryNodeStore store) {
        Map<Integer, Long> shards = store.shardBytes();
        long used = shards.values().stream().mapToLong(Long::longValue).sum();
        return new CapacitySnapshot(used, CAPACITY, null, shards);
    }

    private static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
        assertThat(root).doesNotExist();
    }
}
