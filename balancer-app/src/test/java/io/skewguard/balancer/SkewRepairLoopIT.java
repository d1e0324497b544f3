package io.skewguard.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.agent.RoutingView;
import io.skewguard.agent.WeightedRouter;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.detector.DetectorApp;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.runtime.settings.Durations;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole weight loop on a real broker: writers place keys with a {@link WeightedRouter} and report
 * their writes, the real detector turns them into reports and alerts, the balancer turns those into
 * weights, and the writers follow the weights.
 *
 * <p>8 nodes, four of 1 TB and four of 2 TB, every slot's candidate set holding all 8: with equal
 * weights the small nodes take twice their capacity share (heat Gini ≈ 0.17). Time is scaled down
 * (tick 1 s, window 3 s, cooldown 5 s, round interval 6 s, heat threshold 0.12, repair target 0.06)
 * and event time runs with the wall clock, so the test takes about a minute.
 */
class SkewRepairLoopIT {

    private static final Logger LOG = LoggerFactory.getLogger(SkewRepairLoopIT.class);

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String SCOPE = "loop-it-" + UUID.randomUUID();
    /** Event time starts now: records with old timestamps would fall to the topics' time retention. */
    private static final long T0 = System.currentTimeMillis() / 1000 * 1000;
    private static final long STEP = 100;
    private static final int KEYS_PER_STEP = 500;
    private static final long BYTES_PER_KEY = 1024;
    private static final long ROUND_INTERVAL = 6_000;
    private static final String[] NODES = {"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"};
    private static final long TB = 1L << 40;

    @AfterAll
    static void dropRegistry() {
        MockSchemaRegistry.drop(SCOPE);
    }

    private static long capacity(int node) {
        return node < 4 ? TB : 2 * TB;
    }

    @Test
    void writersFollowingTheBalancersWeightsBringTheDetectorsHeatGiniDown(@TempDir Path dir) throws Exception {
        EmbeddedKafka broker = KAFKA.broker();
        Topics topics = new Topics("loop.");
        broker.createTopics(3, topics.nodeWrites(), topics.nodeCapacity());
        broker.createTopics(1, topics.reports(), topics.alerts(), topics.weightCommands(), topics.dlq());
        broker.createTopics(1, topics.proposals(), topics.decisions());
        broker.createCompactedTopics(1, topics.nodeWeights(), topics.control(), topics.slotTable());
        Map<String, Object> serde = Map.of("schema.registry.url", "mock://" + SCOPE);

        DetectorSettings detectorSettings = DetectorSettings.of(Map.ofEntries(
                Map.entry("session.timeout.ms", "6000"),
                Map.entry("heartbeat.interval.ms", "1500"),
                Map.entry(DetectorSettings.BOOTSTRAP_SERVERS, broker.bootstrapServers()),
                Map.entry(DetectorSettings.SCHEMA_REGISTRY_URL, "mock://" + SCOPE),
                Map.entry(DetectorSettings.APPLICATION_ID, "loop-it-detector"),
                Map.entry(DetectorSettings.TOPIC_PREFIX, topics.prefix()),
                Map.entry(DetectorSettings.TICK, "1s"),
                Map.entry(DetectorSettings.WINDOW, "3s"),
                Map.entry(DetectorSettings.GRACE, "2s"),
                Map.entry(DetectorSettings.COOLDOWN, "5s"),
                Map.entry(DetectorSettings.HEAT_THRESHOLD, "0.12"),
                Map.entry(DetectorSettings.COMMIT_INTERVAL, "300ms"),
                Map.entry(DetectorSettings.STATE_DIR, dir.resolve("detector").toString())));

        BalancerSettings balancerSettings = BalancerSettings.of(Map.ofEntries(
                Map.entry(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), "6000"),
                Map.entry(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), "1500"),
                Map.entry("bootstrap.servers", broker.bootstrapServers()),
                Map.entry("schema.registry.url", "mock://" + SCOPE),
                Map.entry("application.id", "loop-it-balancer"),
                Map.entry("topic-prefix", topics.prefix()),
                Map.entry("round-interval", Durations.format(Duration.ofMillis(ROUND_INTERVAL))),
                Map.entry("repair-target", "0.06"),
                Map.entry("commit-interval", "300ms"),
                Map.entry("replication-factor", "1"),
                Map.entry("state.dir", dir.resolve("balancer").toString())));

        SchemaRegistrySerde<WriteEvent> writeSerde = SchemaRegistrySerde.of(WriteEvent.class, serde, false);
        SchemaRegistrySerde<CapacityEvent> capacitySerde = SchemaRegistrySerde.of(CapacityEvent.class, serde, false);
        SchemaRegistrySerde<SkewReport> reportSerde = SchemaRegistrySerde.of(SkewReport.class, serde, false);
        SchemaRegistrySerde<SkewAlert> alertSerde = SchemaRegistrySerde.of(SkewAlert.class, serde, false);
        SchemaRegistrySerde<WeightCommand> commandSerde = SchemaRegistrySerde.of(WeightCommand.class, serde, false);

        RoutingView view = RoutingView.of("c1", SlotTable.fromRing(HashRing.ofIds(NODES), 8));
        try (DetectorApp.Running detector = DetectorApp.start(detectorSettings);
             KafkaStreams balancer = new KafkaStreams(BalancerTopology.build(balancerSettings),
                     balancerSettings.streamsProperties());
             WeightedRouter router = WeightedRouter.start(view, topics,
                     Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), serde);
             KafkaProducer<String, WriteEvent> writes = broker.producer(new StringSerializer(), writeSerde.serializer());
             KafkaProducer<String, CapacityEvent> capacities =
                     broker.producer(new StringSerializer(), capacitySerde.serializer())) {
            balancer.start();
            assertThat(detector.awaitRunning(Duration.ofSeconds(60))).as("detector running").isTrue();
            assertThat(router.awaitCaughtUp(Duration.ofSeconds(60))).isTrue();

            long key = 0;
            long lastChangeAt = -1;
            long lastEpochSeen = -1;
            long clock = T0;
            // at most 150 s of event time; stop 4 round intervals after the last weight change
            for (; clock < T0 + 150_000; clock += STEP) {
                long[] bytes = new long[NODES.length];
                for (int k = 0; k < KEYS_PER_STEP; k++) {
                    String node = router.pick("object-" + key++);
                    bytes[node.charAt(1) - '0'] += BYTES_PER_KEY;
                }
                for (int n = 0; n < NODES.length; n++) {
                    // writers pre-aggregate: one event per node and step (slot: that of the step's first key)
                    WriteEvent event = new WriteEvent("c1", NODES[n], view.slotOf("object-" + key), bytes[n],
                            bytes[n] / BYTES_PER_KEY, Instant.ofEpochMilli(clock));
                    writes.send(new ProducerRecord<>(topics.nodeWrites(), null, clock, NODES[n], event));
                }
                if ((clock - T0) % 1_000 == 0) {
                    for (int n = 0; n < NODES.length; n++) {
                        capacities.send(new ProducerRecord<>(topics.nodeCapacity(), null, clock, NODES[n],
                                new CapacityEvent("c1", NODES[n], capacity(n) / 2, capacity(n), null, List.of(),
                                        Instant.ofEpochMilli(clock))));
                    }
                }
                writes.flush();
                capacities.flush();
                long epoch = view.weightEpoch("n0");
                if (epoch != lastEpochSeen) {
                    lastEpochSeen = epoch;
                    lastChangeAt = clock;
                }
                if (lastEpochSeen > 0 && clock - lastChangeAt > 4 * ROUND_INTERVAL) {
                    break;
                }
                Thread.sleep(STEP);
            }
            long end = clock;

            long lastEpoch = view.weightEpoch("n0");
            List<SkewAlert> alerts = broker.consumeUntil(topics.alerts(), new StringDeserializer(),
                    alertSerde.deserializer(),
                    records -> records.stream().anyMatch(r -> r.value().getState() == AlertState.CONFIRMED),
                    Duration.ofSeconds(30)).stream().map(ConsumerRecord::value)
                    .filter(a -> a.getKind() == AlertKind.HEAT).toList();
            List<WeightCommand> commands = broker.consumeUntil(topics.weightCommands(), new StringDeserializer(),
                    commandSerde.deserializer(),
                    records -> records.stream().anyMatch(r -> r.value().getEpoch() == lastEpoch),
                    Duration.ofSeconds(30)).stream().map(ConsumerRecord::value).toList();
            List<SkewReport> reports = broker.consumeUntil(topics.reports(), new StringDeserializer(),
                    reportSerde.deserializer(),
                    records -> !records.isEmpty()
                            && records.get(records.size() - 1).value().getWindowEnd().toEpochMilli() >= end - 3_000,
                    Duration.ofSeconds(30)).stream().map(ConsumerRecord::value).toList();

            double initialGini = reports.get(Math.min(5, reports.size() - 1)).getHeatGini();
            double finalGini = reports.get(reports.size() - 1).getHeatGini();
            long confirmedAt = alerts.stream().filter(a -> a.getState() == AlertState.CONFIRMED)
                    .mapToLong(a -> a.getEventTime().toEpochMilli()).min().orElseThrow();
            List<Long> roundTimes = commands.stream().map(c -> c.getIssuedAt().toEpochMilli()).distinct().sorted().toList();
            List<Long> epochs = commands.stream().map(WeightCommand::getEpoch).distinct().sorted().toList();
            LOG.info("loop: heat alerts {}, {} rounds at {} s, heat Gini {} -> {}, weights {}",
                    alerts.stream().map(a -> a.getState() + "@" + (a.getEventTime().toEpochMilli() - T0) / 1000.0).toList(),
                    roundTimes.size(), roundTimes.stream().map(t -> (t - T0) / 1000.0).toList(),
                    String.format("%.3f", initialGini), String.format("%.3f", finalGini),
                    java.util.Arrays.stream(NODES).map(n -> n + "=" + String.format("%.3f", view.weight(n))).toList());

            assertThat(initialGini).as("heat Gini with equal weights").isGreaterThan(0.12);
            assertThat(roundTimes.get(0)).as("no command before the CONFIRMED alert").isGreaterThanOrEqualTo(confirmedAt);
            assertThat(epochs).as("one epoch per round, none skipped")
                    .isEqualTo(java.util.stream.LongStream.rangeClosed(1, epochs.size()).boxed().toList());
            for (int i = 1; i < roundTimes.size(); i++) {
                assertThat(roundTimes.get(i) - roundTimes.get(i - 1)).isGreaterThanOrEqualTo(ROUND_INTERVAL);
            }
            assertThat(commands).allSatisfy(c -> {
                assertThat(c.getNewWeight()).isBetween(0.5, 2.0);
                assertThat(Math.abs(c.getNewWeight() - c.getOldWeight())).isLessThanOrEqualTo(0.05 * c.getOldWeight() + 1e-12);
            });
            for (int n = 0; n < 4; n++) {
                assertThat(view.weight(NODES[n])).as("1 TB node %s", NODES[n]).isLessThan(1.0);
                assertThat(view.weight(NODES[n + 4])).as("2 TB node %s", NODES[n + 4]).isGreaterThan(1.0);
            }
            assertThat(finalGini).as("heat Gini at the end").isLessThan(initialGini / 2);
            alerts.stream().filter(a -> a.getState() == AlertState.CLEARED).findFirst().ifPresent(cleared ->
                    assertThat(roundTimes).as("rounds go on after CLEARED")
                            .anySatisfy(t -> assertThat(t).isGreaterThan(cleared.getEventTime().toEpochMilli())));
        } finally {
            writeSerde.close();
            capacitySerde.close();
            reportSerde.close();
            alertSerde.close();
            commandSerde.close();
        }
    }
}
