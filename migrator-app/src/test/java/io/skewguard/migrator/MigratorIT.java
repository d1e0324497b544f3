package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.embedded.EmbeddedKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The migrator on a real broker with exactly_once_v2: a CONFIRMED CAPACITY alert, agents (simulated
 * in this test) answering every command read from the committed output, and the repair running batch
 * after batch until the capacity CV is at the target and the repair status says DONE.
 */
class MigratorIT {

    private static final long GB = 1L << 30;
    static final String CLUSTER = "it";

    @TempDir
    Path stateDir;

    @Test
    void aConfirmedCapacityAlertIsRepairedToTheTargetCvOverARealBrokerWithExactlyOnce() throws Exception {
        String registry = "mock://migrator-it-" + UUID.randomUUID();
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().build().start()) {
            Topics topics = Topics.defaults();
            kafka.createTopics(2, topics.alerts(), topics.reports(), topics.nodeCapacity(), topics.migrationStatus(),
                    topics.migrationCommands(), topics.dlq());
            kafka.createCompactedTopics(1, topics.slotTable(), topics.membership(), topics.control());
        kafka.createTopics(1, topics.proposals(), topics.decisions());
            MigratorSettings settings = MigratorSettings.of(Map.of(
                    "bootstrap.servers", kafka.bootstrapServers(),
                    "schema.registry.url", registry,
                    "state.dir", stateDir.toString(),
                    "slot-count", "16",
                    "candidates", "2",
                    "max-parallel", "2",
                    "commit-interval", "100ms",
                    "tick-interval", "200ms"));
            SimulatedAgents agents = skewedCluster();
            double before = agents.capacityCv();

            try (KafkaStreams streams = new KafkaStreams(MigratorTopology.build(settings), MigratorTopology.streamsConfig(settings));
                    KafkaProducer<String, SpecificRecord> producer = kafka.producer(new StringSerializer(), anySerializer(registry));
                    KafkaConsumer<String, MigrationCommand> commands = consumer(kafka, topics.migrationCommands(),
                            serde(registry, MigrationCommand.class))) {
                streams.start();
                long now = System.currentTimeMillis();
                for (CapacityEvent e : agents.capacityReports(now)) {
                    producer.send(new ProducerRecord<>(topics.nodeCapacity(), e.getNode(), e));
                }
                producer.send(new ProducerRecord<>(topics.reports(), CLUSTER, report(agents, now)));
                producer.flush();
                // the four inputs are separate topics: let the coordinator hold every node's capacity
                // before the alert, or it may plan from some of them (and find no improving move)
                awaitProcessed(kafka, settings.applicationId(), Duration.ofSeconds(60));
                producer.send(new ProducerRecord<>(topics.alerts(), CLUSTER, alert(before, now)));
                producer.flush();

                long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
                List<MigrationStatus> repair = new ArrayList<>();
                try (KafkaConsumer<String, MigrationStatus> statuses = consumer(kafka, topics.migrationStatus(),
                        serde(registry, MigrationStatus.class))) {
                    while (repair.stream().noneMatch(s -> s.getOutcome() != StepResult.PROGRESS) && System.nanoTime() < deadline) {
                        for (ConsumerRecord<String, MigrationCommand> r : commands.poll(Duration.ofMillis(200))) {
                            long at = System.currentTimeMillis();
                            for (MigrationStatus s : agents.answer(r.value(), at)) {
                                producer.send(new ProducerRecord<>(topics.migrationStatus(), s.getMigrationId(), s));
                            }
                            if (r.value().getPhase() == MigrationPhase.CLEANUP) {
                                for (CapacityEvent e : agents.capacityReports(at)) {
                                    producer.send(new ProducerRecord<>(topics.nodeCapacity(), e.getNode(), e));
                                }
                            }
                        }
                        producer.flush();
                        for (ConsumerRecord<String, MigrationStatus> r : statuses.poll(Duration.ofMillis(10))) {
                            if (r.value().getMigrationId().equals(CLUSTER + "/repair")) {
                                repair.add(r.value());
                            }
                        }
                    }
                }

                assertThat(before).isGreaterThan(0.25);
                assertThat(repair).extracting(MigrationStatus::getOutcome).containsExactly(StepResult.PROGRESS, StepResult.DONE);
                assertThat(agents.capacityCv()).isLessThanOrEqualTo(0.10);
                assertThat(agents.serialQueueViolations).isEmpty();
                assertThat(agents.received).extracting(MigrationCommand::getCommandId).doesNotHaveDuplicates();
                List<ConsumerRecord<String, SlotAssignment>> rows = kafka.consumeUntil(topics.slotTable(), new StringDeserializer(),
                        serde(registry, SlotAssignment.class).deserializer(), 16, Duration.ofSeconds(10));
                assertThat(rows).allMatch(r -> r.key().equals(CLUSTER + "/" + r.value().getSlot()));
            }
        }
    }

    static SimulatedAgents skewedCluster() {
        List<String> ids = List.of("n1", "n2", "n3", "n4", "n5", "n6");
        SlotTable table = SlotTable.fromRing(HashRing.of(ids.stream().map(id -> new Node(id, null, 1.0)).toList(), 150), 2, 16);
        SimulatedAgents agents = new SimulatedAgents(CLUSTER);
        for (String id : ids) {
            List<Integer> held = new ArrayList<>();
            for (int slot = 0; slot < 16; slot++) {
                if (table.candidateIds(slot).contains(id)) {
                    held.add(slot);
                }
            }
            boolean heavy = id.equals("n1") || id.equals("n2");
            Map<Integer, Long> shards = new HashMap<>();
            held.forEach(slot -> shards.put(slot, heavy ? 800 * GB / held.size() : 30 * GB));
            agents.node(id, 1000 * GB, shards);
        }
        return agents;
    }

    static SkewReport report(SimulatedAgents agents, long now) {
        return SkewReport.newBuilder()
                .setCluster(CLUSTER).setWindowStart(Instant.ofEpochMilli(now - 60_000)).setWindowEnd(Instant.ofEpochMilli(now))
                .setHeatGini(0.1).setCapacityCv(agents.capacityCv()).setShardCapacityCv(0).setNodeCount(agents.nodes.size())
                .setTotalWriteBytes(1_000_000).setNodes(List.of()).setHottestSlots(List.of()).setSlotHeat(List.of())
                .setHeatState(AlertState.NORMAL).setCapacityState(AlertState.CONFIRMED).build();
    }

    static SkewAlert alert(double cv, long now) {
        return SkewAlert.newBuilder()
                .setAlertId(CLUSTER + "/CAPACITY/CONFIRMED/" + now).setCluster(CLUSTER).setKind(AlertKind.CAPACITY)
                .setPreviousState(AlertState.OBSERVING).setState(AlertState.CONFIRMED).setValue(cv).setThreshold(0.25)
                .setSince(Instant.ofEpochMilli(now)).setEventTime(Instant.ofEpochMilli(now)).build();
    }

    static <T extends SpecificRecord> Serde<T> serde(String registry, Class<T> type) {
        return SchemaRegistrySerde.of(type, Map.of("schema.registry.url", registry), false);
    }

    /** One serializer for the four input types, each through its own registry serde. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    static org.apache.kafka.common.serialization.Serializer<SpecificRecord> anySerializer(String registry) {
        Map<Class<?>, Serde> serdes = new HashMap<>();
        for (Class c : List.of(SkewAlert.class, SkewReport.class, CapacityEvent.class, MigrationStatus.class)) {
            serdes.put(c, serde(registry, c));
        }
        return (topic, value) -> serdes.get(value.getClass()).serializer().serialize(topic, value);
    }

    static <V> KafkaConsumer<String, V> consumer(EmbeddedKafka kafka, String topic, Serde<V> serde) {
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

    /**
     * Waits until the Streams app {@code groupId} has committed, on every partition it reads that
     * holds records (sources and its repartition topic), an offset at the partition's end.
     */
    static void awaitProcessed(EmbeddedKafka kafka, String groupId, Duration timeout) throws Exception {
        org.apache.kafka.clients.admin.Admin admin = kafka.adminClient();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata().get();
            Map<TopicPartition, org.apache.kafka.clients.admin.OffsetSpec> ends = new HashMap<>();
            for (String topic : admin.listTopics().names().get()) {
                if (topic.startsWith(groupId + "-") && topic.endsWith("-repartition") || topic.equals(Topics.defaults().nodeCapacity())
                        || topic.equals(Topics.defaults().reports())) {
                    for (var p : admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions()) {
                        ends.put(new TopicPartition(topic, p.partition()), org.apache.kafka.clients.admin.OffsetSpec.latest());
                    }
                }
            }
            var latest = admin.listOffsets(ends, new org.apache.kafka.clients.admin.ListOffsetsOptions(
                    org.apache.kafka.common.IsolationLevel.READ_COMMITTED)).all().get();
            boolean done = latest.entrySet().stream().allMatch(e -> e.getValue().offset() == 0
                    || committed.containsKey(e.getKey()) && committed.get(e.getKey()).offset() >= e.getValue().offset());
            boolean repartitionSeen = latest.keySet().stream().anyMatch(tp -> tp.topic().endsWith("-repartition"));
            if (done && repartitionSeen && latest.values().stream().anyMatch(v -> v.offset() > 0)) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the migrator did not process its inputs within " + timeout);
    }
}
