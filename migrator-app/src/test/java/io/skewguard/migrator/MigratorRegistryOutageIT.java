package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.runtime.lifecycle.StreamsService;
import io.skewguard.runtime.lifecycle.ThreadReplacementPolicy;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.testkit.KafkaBrokerExtension;
import io.skewguard.testkit.RegistryOverHttp;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The migrator while its schema registry is down (docs/design.md §5, "A registry outage is not bad
 * input"): a confirmed alert, then the agents' answers, each arrive while the registry is stopped
 * and the migrator has never read a record of their schema. Neither is dead-lettered: the stream
 * thread stops at the record and is replaced after a back-off (not counted as a failure), and once
 * the registry is back the repair is planned (its COPY commands come out) and the answers move it on
 * (its PREPARE commands come out).
 */
class MigratorRegistryOutageIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final Duration WAIT = Duration.ofSeconds(90);

    private final String scope = "migrator-outage-" + UUID.randomUUID();

    @AfterEach
    void dropScope() {
        MockSchemaRegistry.drop(scope);
    }

    @Test
    void anAlertAndStatusesReadWhileTheRegistryIsDownAreProcessedWhenItIsBackAndNothingIsDeadLettered(
            @TempDir Path stateDir) throws Exception {
        EmbeddedKafka broker = KAFKA.broker();
        Topics topics = Topics.defaults();
        broker.createTopics(1, topics.alerts(), topics.reports(), topics.nodeCapacity(), topics.migrationStatus(),
                topics.migrationCommands(), topics.dlq());
        broker.createCompactedTopics(1, topics.slotTable(), topics.membership(), topics.control());
        broker.createTopics(1, topics.proposals(), topics.decisions());
        String mine = "mock://" + scope;
        SimulatedAgents agents = MigratorIT.skewedCluster();

        try (RegistryOverHttp registry = RegistryOverHttp.serve(scope);
                KafkaProducer<String, SpecificRecord> producer = broker.producer(new StringSerializer(),
                        MigratorIT.anySerializer(mine));
                KafkaConsumer<String, MigrationCommand> commands = MigratorIT.consumer(broker, topics.migrationCommands(),
                        MigratorIT.serde(mine, MigrationCommand.class))) {
            MigratorSettings settings = MigratorSettings.of(Map.of(
                    "bootstrap.servers", broker.bootstrapServers(),
                    "schema.registry.url", registry.url(),
                    "state.dir", stateDir.toString(),
                    "slot-count", "16",
                    "candidates", "2",
                    "max-parallel", "2",
                    "commit-interval", "100ms",
                    "tick-interval", "200ms"));
            StreamsService first = migrator(settings);
            List<MigrationCommand> copies = new ArrayList<>();
            try {
                long now = System.currentTimeMillis();
                for (CapacityEvent e : agents.capacityReports(now)) {
                    producer.send(new ProducerRecord<>(topics.nodeCapacity(), e.getNode(), e));
                }
                producer.send(new ProducerRecord<>(topics.reports(), MigratorIT.CLUSTER, MigratorIT.report(agents, now)));
                producer.flush();
                MigratorIT.awaitProcessed(broker, settings.applicationId(), WAIT);

                // the migrator has read no alert yet: it needs the registry for the alert's schema
                registry.stop();
                producer.send(new ProducerRecord<>(topics.alerts(), MigratorIT.CLUSTER,
                        MigratorIT.alert(agents.capacityCv(), now))).get();
                awaitOutageMet(registry, "the alert");
                assertThat(first.failure()).isEmpty();
                assertThat(commands.poll(Duration.ZERO)).isEmpty();

                registry.restart();
                await(() -> {
                    commands.poll(Duration.ofMillis(100)).forEach(r -> copies.add(r.value()));
                    return !copies.isEmpty();
                }, "the repair's COPY commands come out");
                // the batch's commands are written in one transaction: what is visible now is all of them
                commands.poll(Duration.ofMillis(200)).forEach(r -> copies.add(r.value()));
                assertThat(copies).allSatisfy(c -> {
                    assertThat(c.getPhase()).isEqualTo(MigrationPhase.COPY);
                    assertThat(c.getNode()).isEqualTo(c.getTargetNode());
                });
                Set<String> migrations = copies.stream().map(MigrationCommand::getMigrationId).collect(Collectors.toSet());
                assertThat(migrations).hasSameSizeAs(copies).hasSizeBetween(1, 2);
                assertThat(first.failure()).isEmpty();
                // the registry goes down again, and the migrator is restarted meanwhile
                registry.stop();
            } finally {
                assertThat(first.close(Duration.ofSeconds(30))).isTrue();
            }

            // a restarted migrator has nothing cached: it needs the registry for every schema it reads
            StreamsService second = migrator(settings);
            try {
                for (MigrationCommand copy : copies) {
                    for (MigrationStatus s : agents.answer(copy, System.currentTimeMillis())) {
                        producer.send(new ProducerRecord<>(topics.migrationStatus(), s.getMigrationId(), s));
                    }
                }
                producer.flush();
                awaitOutageMet(registry, "the COPY answers");
                assertThat(second.failure()).isEmpty();

                registry.restart();
                Set<String> prepares = new HashSet<>();
                Set<String> expected = new HashSet<>();
                for (MigrationCommand copy : copies) {
                    expected.add(copy.getMigrationId() + " " + copy.getSourceNode());
                    expected.add(copy.getMigrationId() + " " + copy.getTargetNode());
                }
                await(() -> {
                    for (ConsumerRecord<String, MigrationCommand> r : commands.poll(Duration.ofMillis(100))) {
                        if (r.value().getPhase() == MigrationPhase.PREPARE) {
                            prepares.add(r.value().getMigrationId() + " " + r.value().getNode());
                        }
                    }
                    // the first complete copy starts the switch; copies whose DONE came after it are carried
                    // to the next batch (docs/migrator.md §4), which needs this switch's answers first
                    return !prepares.isEmpty() && prepares.stream().allMatch(p -> {
                        String id = p.substring(0, p.indexOf(' '));
                        return prepares.stream().filter(q -> q.startsWith(id + " ")).count() == 2;
                    });
                }, "the switch's migrations are prepared on both their nodes");
                assertThat(expected).containsAll(prepares);

                // a marker: the one dead letter is this bad alert, none came from the outages
                try (KafkaProducer<byte[], byte[]> raw = broker.producer(new ByteArraySerializer(), new ByteArraySerializer())) {
                    raw.send(new ProducerRecord<>(topics.alerts(), "not avro".getBytes(StandardCharsets.UTF_8))).get();
                }
                List<ConsumerRecord<byte[], byte[]>> dead = broker.consumeUntil(topics.dlq(), new ByteArrayDeserializer(),
                        new ByteArrayDeserializer(), 1, WAIT);
                assertThat(dead).singleElement().satisfies(r -> {
                    assertThat(r.value()).asString(StandardCharsets.UTF_8).isEqualTo("not avro");
                    assertThat(DeadLetter.fromHeaders(r.headers()).sourceTopic()).isEqualTo(topics.alerts());
                });
                assertThat(second.failure()).isEmpty();
            } finally {
                assertThat(second.close(Duration.ofSeconds(30))).isTrue();
            }
        }
    }

    /** The migrator, started and running; no thread replacement allowed for failures: an outage must not count as one. */
    private static StreamsService migrator(MigratorSettings settings) throws InterruptedException {
        StreamsService service = new StreamsService("migrator-streams", MigratorTopology.build(settings),
                MigratorTopology.streamsConfig(settings), new ThreadReplacementPolicy(0, Duration.ofMinutes(10)),
                Clock.systemUTC());
        service.start();
        await(service::ready, "the migrator runs");
        return service;
    }

    /** Waits until the migrator has asked the stopped registry again and again, i.e. waited for it. */
    private static void awaitOutageMet(RegistryOverHttp registry, String what) throws InterruptedException {
        long before = registry.attemptsWhileStopped();
        await(() -> registry.attemptsWhileStopped() >= before + 3, "the migrator asked the stopped registry about " + what);
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }
}
