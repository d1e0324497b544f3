package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.AgentSettings;
import io.skewguard.agent.CommandAgent;
import io.skewguard.agent.RoutingView;
import io.skewguard.agent.WeightedRouter;
import io.skewguard.agent.report.CapacitySnapshot;
import io.skewguard.agent.report.NodeReporter;
import io.skewguard.agent.report.ReporterSettings;
import io.skewguard.agent.store.InMemoryNodeStore;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unplanned loss on a real broker: six nodes on three racks with their agents and reporters,
 * the migrator, and a writer's {@link WeightedRouter} following the slot-table topic. One node
 * stops (agent and reporter closed, as a crashed machine would); after {@code node-expiry} the
 * migrator replaces it in every candidate set with one update, writes LOST naming the slots to
 * rebuild, and from that update on the router never picks it.
 */
class NodeLossIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String SCOPE = "node-loss-it-" + UUID.randomUUID();
    private static final String CLUSTER = "c1";
    private static final List<String> NODES = List.of("n0", "n1", "n2", "n3", "n4", "n5");
    private static final String LOST = "n3";
    private static final int SLOTS = 64;
    private static final int CANDIDATES = 3;
    private static final long CAPACITY = 4_000_000L;
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @AfterAll
    static void dropRegistry() {
        MockSchemaRegistry.drop(SCOPE);
    }

    @Test
    void aSilentNodeIsReplacedInEveryCandidateSetByOneUpdateAndNoWriteIsRoutedToItAfterwards(@TempDir Path dir) throws Exception {
        EmbeddedKafka broker = KAFKA.broker();
        Topics topics = new Topics("loss.");
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
                Map.entry("application.id", "loss-migrator"),
                Map.entry("topic-prefix", topics.prefix()),
                Map.entry("state.dir", dir.resolve("migrator").toString()),
                Map.entry("target-cv", "0.9"), // the first plan builds the table and moves nothing
                Map.entry("slot-count", Integer.toString(SLOTS)),
                Map.entry("candidates", Integer.toString(CANDIDATES)),
                Map.entry("commit-interval", "100ms"),
                Map.entry("tick-interval", "200ms"),
                Map.entry("node-expiry", "6s")));

        Map<String, InMemoryNodeStore> stores = new ConcurrentHashMap<>();
        NODES.forEach(n -> stores.put(n, new InMemoryNodeStore(n, SLOTS, System::currentTimeMillis, stores::get)));
        Map<String, List<AutoCloseable>> running = new TreeMap<>();
        SchemaRegistrySerde<SkewAlert> alertSerde = SchemaRegistrySerde.of(SkewAlert.class, serde, false);
        SchemaRegistrySerde<NodeMembership> membershipSerde = SchemaRegistrySerde.of(NodeMembership.class, serde, false);
        SchemaRegistrySerde<SlotAssignment> slotSerde = SchemaRegistrySerde.of(SlotAssignment.class, serde, false);
        try (KafkaStreams migrator = new KafkaStreams(MigratorTopology.build(settings), MigratorTopology.streamsConfig(settings));
             KafkaConsumer<String, NodeMembership> membership = MembershipIT.consumer(broker, topics.membership(), membershipSerde);
             KafkaConsumer<String, SlotAssignment> rows = MembershipIT.consumer(broker, topics.slotTable(), slotSerde);
             KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                     "bootstrap.servers", broker.bootstrapServers()), new StringSerializer(), new ByteArraySerializer());
             WeightedRouter router = WeightedRouter.start(RoutingView.empty(CLUSTER, SLOTS), topics,
                     Map.of("bootstrap.servers", broker.bootstrapServers()), serde)) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            migrator.setUncaughtExceptionHandler(e -> {
                failure.compareAndSet(null, e);
                return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
            });
            migrator.start();
            for (int i = 0; i < NODES.size(); i++) {
                running.put(NODES.get(i), start(NODES.get(i), "rack-" + (i % 3), stores, topics, kafka, serde, broker, dir));
            }

            // the first plan builds the table from the ring of the six nodes
            Instant now = Instant.now();
            producer.send(new ProducerRecord<>(topics.alerts(), CLUSTER, alertSerde.serializer().serialize(topics.alerts(),
                    SkewAlert.newBuilder().setAlertId(CLUSTER + "/CAPACITY/CONFIRMED/1").setCluster(CLUSTER).setKind(AlertKind.CAPACITY)
                            .setPreviousState(AlertState.OBSERVING).setState(AlertState.CONFIRMED).setValue(0.3).setThreshold(0.25)
                            .setSince(now).setEventTime(now).build()))).get();
            List<SlotAssignment> published = new ArrayList<>();
            long deadline = System.nanoTime() + DEADLINE.toNanos();
            while (latest(published).size() < SLOTS) {
                assertThat(System.nanoTime()).as("the table is built").isLessThan(deadline);
                assertThat(failure.get()).isNull();
                rows.poll(Duration.ofMillis(100)).forEach(r -> published.add(r.value()));
            }
            Map<Integer, SlotAssignment> built = latest(published);
            long epochBefore = built.values().stream().mapToLong(SlotAssignment::getRoutingEpoch).max().orElseThrow();
            Set<Integer> naming = new HashSet<>();
            built.values().stream().filter(r -> r.getCandidates().contains(LOST)).forEach(r -> naming.add(r.getSlot()));
            assertThat(naming).isNotEmpty();
            assertThat(router.awaitCaughtUp(Duration.ofSeconds(30))).isTrue();

            // n3 crashes: its agent and reporter stop
            for (AutoCloseable c : running.remove(LOST)) {
                c.close();
            }

            NodeMembership lost = null;
            while (lost == null) {
                assertThat(System.nanoTime()).as("waiting for %s to be taken as lost", LOST).isLessThan(deadline);
                assertThat(failure.get()).isNull();
                for (ConsumerRecord<String, NodeMembership> r : membership.poll(Duration.ofMillis(200))) {
                    if (r.value().getNode().equals(LOST) && r.value().getState() == MembershipState.LOST) {
                        lost = r.value();
                    }
                }
            }
            assertThat(lost.getSource()).isEqualTo("migrator");
            assertThat(lost.getReason()).startsWith("lost: no capacity report for 6s")
                    .contains("replaced in " + naming.size() + " candidate sets")
                    .contains("rebuild from replicas: " + naming.size() + " slots");
            long updateEpoch = lost.getRoutingEpoch();
            assertThat(updateEpoch).isEqualTo(epochBefore + 1);

            // one update: every row that named n3 changed at that one epoch, and no other row did
            while (latest(published).values().stream().anyMatch(r -> r.getCandidates().contains(LOST))) {
                assertThat(System.nanoTime()).as("the update reaches the topic").isLessThan(deadline);
                rows.poll(Duration.ofMillis(100)).forEach(r -> published.add(r.value()));
            }
            Map<Integer, SlotAssignment> after = latest(published);
            for (SlotAssignment r : after.values()) {
                if (naming.contains(r.getSlot())) {
                    assertThat(r.getRoutingEpoch()).as("slot %d", r.getSlot()).isEqualTo(updateEpoch);
                    assertThat(r.getCandidates()).hasSize(CANDIDATES).doesNotHaveDuplicates().doesNotContain(LOST);
                    // the replacement keeps the rack rule: three candidates on three racks
                    assertThat(r.getCandidates().stream().map(n -> NODES.indexOf(n) % 3).distinct().count())
                            .as("racks of slot %d", r.getSlot()).isEqualTo(CANDIDATES);
                } else {
                    assertThat(r).isEqualTo(built.get(r.getSlot()));
                }
            }

            // the writer: once it applied the update, no key goes to n3
            while (naming.stream().anyMatch(s -> router.view().routingEpoch(s) < updateEpoch)) {
                assertThat(System.nanoTime()).as("the router applies the update").isLessThan(deadline);
                Thread.sleep(50);
            }
            int toLost = 0;
            for (int i = 0; i < 20_000; i++) {
                if (LOST.equals(router.pick("key-" + i))) {
                    toLost++;
                }
            }
            assertThat(toLost).as("writes routed to the lost node after its update").isZero();
            assertThat(failure.get()).isNull();
        } finally {
            for (List<AutoCloseable> cs : running.values()) {
                for (AutoCloseable c : cs) {
                    c.close();
                }
            }
            alertSerde.close();
            membershipSerde.close();
            slotSerde.close();
        }
    }

    private static List<AutoCloseable> start(String node, String rack, Map<String, InMemoryNodeStore> stores, Topics topics,
            Map<String, Object> kafka, Map<String, Object> serde, EmbeddedKafka broker, Path dir) {
        InMemoryNodeStore store = stores.get(node);
        CommandAgent agent = new CommandAgent(new AgentSettings(CLUSTER, node, SLOTS, topics, dir.resolve("agent-" + node + ".state"),
                Duration.ofMillis(100), Duration.ofMillis(200), kafka), store, System::currentTimeMillis);
        agent.start();
        NodeReporter reporter = new NodeReporter(new ReporterSettings(CLUSTER, node, SLOTS, topics, Duration.ofMillis(500),
                Duration.ofMillis(500), serde), broker.producer(new ByteArraySerializer(), new ByteArraySerializer()),
                () -> new CapacitySnapshot(store.usedBytes(), CAPACITY, rack, store.shardBytes()), System::currentTimeMillis);
        reporter.start();
        return List.of(reporter, agent);
    }

    private static Map<Integer, SlotAssignment> latest(List<SlotAssignment> rows) {
        Map<Integer, SlotAssignment> latest = new HashMap<>();
        rows.stream().filter(r -> r.getCluster().equals(CLUSTER)).forEach(r -> latest.put(r.getSlot(), r));
        return latest;
    }

}
