package io.skewguard.migrator.control;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.runtime.control.ControlRecords;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.ProposedMove;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.auth.NodeSignature;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The ctl command through picocli against one real broker: the cluster's report, slot table,
 * membership and decision log written first as the apps write them, then each subcommand run as an
 * operator would, and the control topic read back. Every test has its own topic prefix and registry.
 */
class CtlCommandIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final long TB = 1_000_000_000_000L;
    private static final String CLUSTER = "prod";

    private final String registry = "mock://ctl-it-" + UUID.randomUUID();
    private final String prefix = "c" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private final Topics topics = new Topics(prefix);

    private record Run(int exitCode, String out, String err) {
    }

    private Run ctl(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--cluster", CLUSTER, "--bootstrap-servers", KAFKA.bootstrapServers(), "--schema-registry-url", registry,
                "--topic-prefix", prefix, "--timeout", "30s", "--operator", "alice"));
        return raw(all.toArray(String[]::new));
    }

    private static Run raw(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new CtlCommand(Map.of()));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    /** Three nodes (n3 DRAINING), a report, a slot table at routing epoch 7, and each app's latest decision. */
    private void cluster(boolean withDecisions) {
        KAFKA.broker().createTopics(1, topics.reports(), topics.decisions(), topics.proposals());
        KAFKA.broker().createCompactedTopics(1, topics.slotTable(), topics.membership(), topics.control());
        Instant now = Instant.now();
        List<NodeFigures> figures = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            figures.add(NodeFigures.newBuilder().setNode("n" + i).setHeatBytes(0).setUsedBytes(4 * TB).setTotalBytes(10 * TB)
                    .setUtilisation(0.4).build());
        }
        try (KafkaProducer<String, SpecificRecord> producer = KAFKA.broker().producer(new StringSerializer(), anySerializer())) {
            producer.send(new ProducerRecord<>(topics.reports(), CLUSTER, SkewReport.newBuilder().setCluster(CLUSTER)
                    .setWindowStart(now.minusSeconds(60)).setWindowEnd(now).setHeatGini(0.21).setCapacityCv(0.31).setShardCapacityCv(0)
                    .setNodeCount(3).setTotalWriteBytes(0).setNodes(figures).setHottestSlots(List.of()).setHeatState(AlertState.NORMAL)
                    .setCapacityState(AlertState.CONFIRMED).build()));
            producer.send(new ProducerRecord<>(topics.slotTable(), CLUSTER + "/0", SlotAssignment.newBuilder().setCluster(CLUSTER)
                    .setSlot(0).setRoutingEpoch(7).setCandidates(List.of("n1", "n2", "n3")).setUpdatedAt(now).build()));
            producer.send(new ProducerRecord<>(topics.membership(), CLUSTER + "/n3", NodeMembership.newBuilder().setCluster(CLUSTER)
                    .setNode("n3").setState(MembershipState.DRAINING).setSource("operator").setUpdatedAt(now).build()));
            if (withDecisions) {
                producer.send(new ProducerRecord<>(topics.decisions(), CLUSTER, Decision.newBuilder().setCluster(CLUSTER).setApp("balancer")
                        .setActed(false).setReason("TOO_SOON").setMessage("next round at …").setFigures(Map.of("weightsEpoch", 12.0))
                        .setDecidedAt(now.minusSeconds(5)).build()));
                producer.send(new ProducerRecord<>(topics.decisions(), CLUSTER, Decision.newBuilder().setCluster(CLUSTER).setApp("migrator")
                        .setActed(true).setReason("BATCH_RUNNING").setMessage("batch b000003: 2 migrations")
                        .setFigures(Map.ofEntries(Map.entry("routingEpoch", 7.0), Map.entry("budgetBytesPerSec", 104857600.0),
                                Map.entry("budgetFloorBytesPerSec", 10485760.0), Map.entry("repairing", 1.0),
                                Map.entry("bytesMoved", 3.0 * TB), Map.entry("batchesCommitted", 2.0), Map.entry("batchesAborted", 0.0),
                                Map.entry("migrations.copying", 2.0), Map.entry("migrations.copied", 0.0),
                                Map.entry("migrations.preparing", 0.0), Map.entry("migrations.committing", 0.0),
                                Map.entry("migrations.cleaningUp", 0.0), Map.entry("migrations.aborting", 0.0)))
                        .setDecidedAt(now).build()));
                producer.send(new ProducerRecord<>(topics.proposals(), CLUSTER, Proposal.newBuilder().setCluster(CLUSTER).setApp("migrator")
                        .setMoves(List.of(new ProposedMove(5, "n1", "n2", 2 * TB))).setMetric("capacity CV").setCurrent(0.31)
                        .setExpected(0.08).setBytesToMove(2 * TB).setFirstBatch(1).setProposedAt(now).build()));
            }
            producer.flush();
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private org.apache.kafka.common.serialization.Serializer<SpecificRecord> anySerializer() {
        Map<String, Object> config = Map.of("schema.registry.url", registry);
        Map<Class<?>, SchemaRegistrySerde> serdes = Map.of(
                SkewReport.class, SchemaRegistrySerde.of(SkewReport.class, config, false),
                SlotAssignment.class, SchemaRegistrySerde.of(SlotAssignment.class, config, false),
                NodeMembership.class, SchemaRegistrySerde.of(NodeMembership.class, config, false),
                Decision.class, SchemaRegistrySerde.of(Decision.class, config, false),
                Proposal.class, SchemaRegistrySerde.of(Proposal.class, config, false));
        return (topic, value) -> serdes.get(value.getClass()).serializer().serialize(topic, value);
    }

    private List<ConsumerRecord<String, byte[]>> controls(int expected) {
        return KAFKA.broker().consumeUntil(topics.control(), new StringDeserializer(), new ByteArrayDeserializer(), expected,
                Duration.ofSeconds(30));
    }

    private OperatorControl decode(ConsumerRecord<String, byte[]> r) {
        return SchemaRegistrySerde.of(OperatorControl.class, Map.of("schema.registry.url", registry), false).deserializer()
                .deserialize(topics.control(), r.value());
    }

    private long controlRecords() {
        return KAFKA.broker().endOffsets(topics.control()).get(new TopicPartition(topics.control(), 0));
    }

    @Test
    void pauseWritesOneRecordUnderItsKeyAfterSayingWhatWillHappenAndStatusShowsIt() {
        cluster(true);

        Run pause = ctl("pause", "--reason", "maintenance window");

        assertThat(pause.exitCode()).as(pause.err()).isZero();
        assertThat(pause.out()).contains("cluster prod: controls now none")
                .contains("next: no new weight round and no new migration batch; running copies finish their current step")
                .contains("written by alice (unsigned) to " + topics.control());
        List<ConsumerRecord<String, byte[]>> written = controls(1);
        assertThat(written).hasSize(1);
        assertThat(written.get(0).key()).isEqualTo("prod/pause");
        OperatorControl c = decode(written.get(0));
        assertThat(c.getControl()).isEqualTo(ControlKind.PAUSE);
        assertThat(c.getEnabled()).isTrue();
        assertThat(c.getOperator()).isEqualTo("alice");
        assertThat(c.getReason()).isEqualTo("maintenance window");

        Run status = ctl("status");
        assertThat(status.exitCode()).as(status.err()).isZero();
        assertThat(status.out()).contains("alerts     HEAT NORMAL (heat Gini 0.210), CAPACITY CONFIRMED (capacity CV 0.310)")
                .contains("paused     yes")
                .contains("paused — set by alice at ").contains("(\"maintenance window\")")
                .contains("dry run    off").contains("throttle   auto").contains("excluded   none")
                .contains("balancer   weights epoch 12")
                .contains("migrator   routing epoch 7; budget 100.0 MiB/s (floor 10.0 MiB/s); repairing")
                .contains("migrations: 2 copying, 0 copied (waiting for their switch), 0 preparing, 0 committing, 0 cleaning up, "
                        + "0 aborting; 2 batches committed, 0 aborted, 3.0 TB moved")
                .contains("last decision ").contains("BATCH_RUNNING — batch b000003");

        Run again = ctl("pause");
        assertThat(again.exitCode()).isZero();
        assertThat(again.out()).contains("nothing to write: already paused");
        assertThat(controls(1)).as("nothing written the second time").hasSize(1);
    }

    @Test
    void everyChangeHasItsKeyAndTheRecordsFoldIntoTheControlsStatusShows() {
        cluster(true);
        assertThat(ctl("dry-run", "on").exitCode()).isZero();
        assertThat(ctl("throttle", "50MiB/s").exitCode()).isZero();
        assertThat(ctl("exclude", "n2").exitCode()).isZero();

        List<ConsumerRecord<String, byte[]>> written = controls(3);
        assertThat(written).extracting(ConsumerRecord::key).containsExactly("prod/dry-run", "prod/throttle", "prod/exclude/n2");
        assertThat(decode(written.get(1)).getBytesPerSec()).isEqualTo(50L * 1024 * 1024);
        for (ConsumerRecord<String, byte[]> r : written) {
            assertThat(ControlRecords.problem(r.key(), decode(r), io.skewguard.schemas.auth.NodeKeys.none(), r.headers(),
                    topics.control(), r.key().getBytes(StandardCharsets.UTF_8), r.value())).as("the apps take it").isEmpty();
        }
        Run status = ctl("status");
        assertThat(status.out()).contains("dry run    on").contains("throttle   50.0 MiB/s").contains("excluded   n2");
    }

    @Test
    void refusalsSayWhyAndWriteNothing() throws Exception {
        cluster(true);

        Run unknownNode = ctl("exclude", "n9");
        assertThat(unknownNode.exitCode()).isEqualTo(CtlCommand.REFUSED);
        assertThat(unknownNode.err()).isEqualTo("ctl: exclude of n9 refused: cluster prod has no node n9 (its nodes: n1, n2, n3)\n");

        Run draining = ctl("exclude", "n3");
        assertThat(draining.exitCode()).isEqualTo(CtlCommand.REFUSED);
        assertThat(draining.err()).contains("it is DRAINING").contains("node drain n3 --cancel");

        Run slow = ctl("throttle", "5MiB");
        assertThat(slow.exitCode()).isEqualTo(CtlCommand.REFUSED);
        assertThat(slow.err()).isEqualTo("ctl: throttle 5242880 B/s (5.0 MiB/s) refused: below the migration budget's floor 10485760 B/s "
                + "(10.0 MiB/s), budget-floor × max-bytes-per-sec as the migrator last stated it\n");

        Run badRate = ctl("throttle", "fast");
        assertThat(badRate.exitCode()).isEqualTo(CtlCommand.REFUSED);
        assertThat(badRate.err()).startsWith("ctl: throttle: ").contains("(or auto)");

        Run unknownCluster = raw("pause", "--cluster", "nowhere", "--bootstrap-servers", KAFKA.bootstrapServers(), "--schema-registry-url",
                registry, "--topic-prefix", prefix);
        assertThat(unknownCluster.exitCode()).isEqualTo(CtlCommand.REFUSED);
        assertThat(unknownCluster.err()).startsWith("ctl: cluster nowhere is unknown: no report, slot table, membership record");

        assertThat(controlRecords()).as("nothing written").isZero();
    }

    @Test
    void planPrintsTheProposalAndExplainTheDecisionsWithTheirFigures() {
        cluster(true);

        Run plan = ctl("plan");
        assertThat(plan.exitCode()).as(plan.err()).isZero();
        assertThat(plan.out()).contains("note: dry run is off; these are the last proposals made while it was on")
                .contains("migration plan proposed by the migrator at ").contains("capacity CV 0.3100 → 0.0800, 1 move, 2.0 TB to move")
                .containsPattern("1\\s+5\\s+n1\\s+n2\\s+2\\.0 TB");

        Run explain = ctl("explain", "--last", "5");
        assertThat(explain.exitCode()).as(explain.err()).isZero();
        assertThat(explain.out()).contains("the 2 newest decisions, newest first")
                .containsPattern("migrator  BATCH_RUNNING \\(acted\\)[\\s\\S]*balancer  TOO_SOON")
                .contains("budgetFloorBytesPerSec=10485760").contains("weightsEpoch=12");
    }

    @Test
    void withAnOperatorKeyTheRecordIsSignedWithIt() throws Exception {
        cluster(false);
        byte[] secret = new byte[32];
        Arrays.fill(secret, (byte) 9);

        Run run = ctl("dry-run", "on", "--operator-key", Base64.getEncoder().encodeToString(secret));

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("written by alice (signed)");
        ConsumerRecord<String, byte[]> r = controls(1).get(0);
        assertThat(NodeSignature.of(secret).problem(r.headers(), topics.control(), r.key().getBytes(StandardCharsets.UTF_8), r.value()))
                .isEmpty();
        assertThat(ctl("throttle", "1MiB").out()).as("no migrator decision states the floor: the migrator judges it")
                .contains("note: no decision of the migrator states its budget's floor yet");
        Run badKey = ctl("pause", "--operator-key", "short");
        assertThat(badKey.exitCode()).isEqualTo(CtlCommand.REFUSED);
        assertThat(badKey.err()).startsWith("ctl: operator-key (from ");
    }

    @Test
    void helpNamesEverySubcommandAndSaysWhatEachDoes() {
        Run help = raw("--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out()).contains("status", "plan", "explain", "dry-run", "pause", "resume", "throttle", "exclude", "include");
        Run throttle = raw("throttle", "--help");
        assertThat(throttle.out().replaceAll("\\s+", " ")).contains("shared by the running copies").contains("below the budget's floor");
    }
}
