package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.runtime.topics.TopicPlan;
import io.skewguard.runtime.topics.TopicProvisioner;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.testkit.AppProcess;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.RegistryOverHttp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The migrator keeps one slot table for life, on a real broker with the app in its own JVM: a first
 * deployment builds the table and switches a batch; it is stopped while its second batch copies; its
 * state directory is deleted and a deployment with another {@code application.id} starts. That one
 * adopts the table on the topic (same candidates, the routing epoch goes on), aborts the copies it
 * has no state for, and its own first switch publishes the adopted epoch + 1.
 */
class SlotTableAdoptionIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(120);

    @Test
    void aNewDeploymentWithoutStateAdoptsTheTableOnTheTopicAndItsNextSwitchIsAtTheAdoptedEpochPlusOne(@TempDir Path dir)
            throws Exception {
        EmbeddedKafka kafka = KAFKA.broker();
        Topics topics = Topics.defaults(); // MigratorIT.awaitProcessed reads the default topic names
        try (TopicProvisioner provisioner = new TopicProvisioner(kafka.adminClient(), kafka.bootstrapServers(), WAIT)) {
            TopicPlan defaults = TopicPlan.defaults(topics.prefix());
            provisioner.create(new TopicPlan(topics.prefix(), 2, defaults.clusterPartitions(), defaults.replicationFactor(),
                    defaults.eventRetention(), defaults.commandRetention(), defaults.deadLetterRetention()));
        }
        String scope = "slot-table-adoption-it-" + UUID.randomUUID();
        String registry = "mock://" + scope;
        Path stateDir = dir.resolve("state");
        SimulatedAgents agents = MigratorIT.skewedCluster();

        try (RegistryOverHttp http = RegistryOverHttp.serve(scope);
                KafkaProducer<String, SpecificRecord> producer = kafka.producer(new StringSerializer(), MigratorIT.anySerializer(registry));
                KafkaConsumer<String, MigrationCommand> commands = MigratorIT.consumer(kafka, topics.migrationCommands(),
                        MigratorIT.serde(registry, MigrationCommand.class));
                KafkaConsumer<String, SlotAssignment> slotTable = MigratorIT.consumer(kafka, topics.slotTable(),
                        MigratorIT.serde(registry, SlotAssignment.class))) {
            List<SlotAssignment> rows = new ArrayList<>();

            // the first deployment: builds the table, commits its first batch, is stopped while the second copies
            String first = "adoption-it-first-" + UUID.randomUUID();
            List<MigrationCommand> unanswered = new ArrayList<>();
            try (AppProcess migrator = start(kafka, http, first, stateDir, dir.resolve("first.log"))) {
                long now = System.currentTimeMillis();
                for (CapacityEvent e : agents.capacityReports(now)) {
                    producer.send(new ProducerRecord<>(topics.nodeCapacity(), e.getNode(), e));
                }
                producer.send(new ProducerRecord<>(topics.reports(), MigratorIT.CLUSTER, MigratorIT.report(agents, now)));
                producer.flush();
                MigratorIT.awaitProcessed(kafka, first, WAIT);
                producer.send(new ProducerRecord<>(topics.alerts(), MigratorIT.CLUSTER, MigratorIT.alert(agents.capacityCv(), now))).get();

                answerUntil(commands, producer, agents, topics, c -> batchOf(c).equals("b000002"), unanswered, migrator);
                assertThat(migrator.stop(WAIT)).as("exit code; output:\n%s", migrator.output()).isZero();
            }
            rows.addAll(readToEnd(slotTable));
            Map<Integer, SlotAssignment> left = latest(rows);
            long epoch = left.values().stream().mapToLong(SlotAssignment::getRoutingEpoch).max().orElseThrow();
            List<SlotAssignment> inFlight = left.values().stream().filter(r -> r.getMigrationId() != null).toList();
            assertThat(epoch).as("the first deployment switched").isGreaterThanOrEqualTo(1);
            assertThat(left).hasSize(16);
            // a copy of the first batch may still run, carried next to the second (batches do not wait for their slowest copy)
            assertThat(inFlight).isNotEmpty();
            int publishedByFirst = rows.size();

            // its state is lost and the next deployment has an application id of its own
            deleteTree(stateDir);
            String second = "adoption-it-second-" + UUID.randomUUID();
            try (AppProcess migrator = start(kafka, http, second, stateDir, dir.resolve("second.log"))) {
                // it reads the inputs from their start (a new group); fresh capacity and a report as well
                long now = System.currentTimeMillis();
                for (CapacityEvent e : agents.capacityReports(now)) {
                    producer.send(new ProducerRecord<>(topics.nodeCapacity(), e.getNode(), e));
                }
                producer.send(new ProducerRecord<>(topics.reports(), MigratorIT.CLUSTER, MigratorIT.report(agents, now)));
                producer.flush();
                // the replayed alert may have come before any capacity (then its repair found nothing to move): a new one
                MigratorIT.awaitProcessed(kafka, second, WAIT);
                producer.send(new ProducerRecord<>(topics.alerts(), MigratorIT.CLUSTER, MigratorIT.alert(agents.capacityCv(), now))).get();

                List<MigrationCommand> seen = new ArrayList<>();
                long deadline = System.nanoTime() + WAIT.toNanos();
                while (rows.stream().skip(publishedByFirst).noneMatch(r -> r.getRoutingEpoch() > epoch) && System.nanoTime() < deadline) {
                    seen.addAll(answer(commands, producer, agents, topics, c -> false, new ArrayList<>()));
                    slotTable.poll(Duration.ofMillis(100)).forEach(r -> rows.add(r.value()));
                    assertThat(migrator.isAlive()).as("the second deployment runs; output:\n%s", migrator.output()).isTrue();
                }
                List<SlotAssignment> bySecond = rows.subList(publishedByFirst, rows.size());
                int firstSwitch = indexOf(bySecond, r -> r.getRoutingEpoch() > epoch);
                assertThat(firstSwitch).as("a switch by the second deployment; output:\n%s", migrator.output()).isNotNegative();
                assertThat(bySecond.get(firstSwitch).getRoutingEpoch()).isEqualTo(epoch + 1);
                // before it, nothing was rebuilt: every row it published keeps the adopted candidates and epoch
                for (SlotAssignment r : bySecond.subList(0, firstSwitch)) {
                    assertThat(r.getCandidates()).as("slot %d", r.getSlot()).isEqualTo(left.get(r.getSlot()).getCandidates());
                    assertThat(r.getRoutingEpoch()).as("slot %d", r.getSlot()).isEqualTo(left.get(r.getSlot()).getRoutingEpoch());
                }
                // the copies the first deployment left running were aborted on both participants, their marks cleared
                for (SlotAssignment r : inFlight) {
                    String id = r.getMigrationId();
                    assertThat(seen).filteredOn(c -> c.getMigrationId().equals(id)).extracting(MigrationCommand::getCommandId)
                            .containsExactlyInAnyOrder(id + "/ABORT/" + r.getInFlightSource(), id + "/ABORT/" + r.getInFlightTarget());
                    assertThat(bySecond).anyMatch(c -> c.getSlot() == r.getSlot() && c.getMigrationId() == null
                            && c.getRoutingEpoch() == r.getRoutingEpoch());
                }
                assertThat(migrator.output()).contains("adopted the slot table of cluster " + MigratorIT.CLUSTER
                        + " from the topic: 16 slots at routing epoch " + epoch);
                assertThat(migrator.output()).doesNotContain("built the slot table from the ring");
                assertThat(agents.serialQueueViolations).isEmpty();
            }
        }
    }

    private static AppProcess start(EmbeddedKafka kafka, RegistryOverHttp http, String applicationId, Path stateDir, Path log)
            throws Exception {
        int healthPort = AppProcess.freePort();
        Path config = kafka.writeClientProperties(log.resolveSibling(applicationId + ".properties"));
        Files.writeString(config, String.join("\n",
                "schema.registry.url=" + http.url(),
                "application.id=" + applicationId,
                "state.dir=" + stateDir,
                "health-port=" + healthPort,
                "slot-count=16",
                "candidates=2",
                "max-parallel=2",
                "commit-interval=100ms",
                "tick-interval=200ms",
                ""), StandardOpenOption.APPEND);
        AppProcess migrator = AppProcess.start(MigratorApp.class, log, "--config", config.toString());
        migrator.awaitReady(healthPort, WAIT);
        return migrator;
    }

    /** Answers commands as the agents would until one matches {@code stop}; that one and those after it stay unanswered. */
    private static void answerUntil(KafkaConsumer<String, MigrationCommand> commands, KafkaProducer<String, SpecificRecord> producer,
            SimulatedAgents agents, Topics topics, Predicate<MigrationCommand> stop, List<MigrationCommand> unanswered,
            AppProcess migrator) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (unanswered.isEmpty() && System.nanoTime() < deadline) {
            answer(commands, producer, agents, topics, stop, unanswered);
            assertThat(migrator.isAlive()).as("the migrator runs; output:\n%s", migrator.output()).isTrue();
        }
        assertThat(unanswered).as("a command of the second batch; output:\n%s", migrator.output()).isNotEmpty();
    }

    /** One poll of the commands, answered (and a capacity report of every node after a CLEANUP); returns them. */
    private static List<MigrationCommand> answer(KafkaConsumer<String, MigrationCommand> commands,
            KafkaProducer<String, SpecificRecord> producer, SimulatedAgents agents, Topics topics, Predicate<MigrationCommand> stop,
            List<MigrationCommand> unanswered) {
        List<MigrationCommand> polled = new ArrayList<>();
        for (ConsumerRecord<String, MigrationCommand> r : commands.poll(Duration.ofMillis(200))) {
            MigrationCommand c = r.value();
            polled.add(c);
            if (!unanswered.isEmpty() || stop.test(c)) {
                unanswered.add(c);
                continue;
            }
            long at = System.currentTimeMillis();
            for (MigrationStatus s : agents.answer(c, at)) {
                producer.send(new ProducerRecord<>(topics.migrationStatus(), s.getMigrationId(), s));
            }
            if (c.getPhase() == MigrationPhase.CLEANUP) {
                for (CapacityEvent e : agents.capacityReports(at)) {
                    producer.send(new ProducerRecord<>(topics.nodeCapacity(), e.getNode(), e));
                }
            }
        }
        producer.flush();
        return polled;
    }

    private static List<SlotAssignment> readToEnd(KafkaConsumer<String, SlotAssignment> consumer) {
        List<SlotAssignment> rows = new ArrayList<>();
        Map<org.apache.kafka.common.TopicPartition, Long> end = consumer.endOffsets(consumer.assignment());
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue()) && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(100)).forEach(r -> rows.add(r.value()));
        }
        return rows;
    }

    private static Map<Integer, SlotAssignment> latest(List<SlotAssignment> rows) {
        Map<Integer, SlotAssignment> latest = new HashMap<>();
        rows.forEach(r -> latest.put(r.getSlot(), r));
        return latest;
    }

    private static int indexOf(List<SlotAssignment> rows, Predicate<SlotAssignment> p) {
        for (int i = 0; i < rows.size(); i++) {
            if (p.test(rows.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private static String batchOf(MigrationCommand c) {
        return c.getMigrationId().split("/")[1];
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
