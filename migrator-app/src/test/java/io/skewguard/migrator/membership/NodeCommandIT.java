package io.skewguard.migrator.membership;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import picocli.CommandLine;

/**
 * The node command through picocli against one real broker: the cluster's report and slot table
 * written first, then each subcommand run as an operator would, and the membership topic read back.
 * Every test has its own topic prefix and registry scope.
 */
class NodeCommandIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final long TB = 1_000_000_000_000L;
    private static final String CLUSTER = "prod";

    private final String registry = "mock://node-it-" + UUID.randomUUID();
    private final String prefix = "n" + UUID.randomUUID().toString().substring(0, 8) + ".";
    private final Topics topics = new Topics(prefix);

    private record Run(int exitCode, String out, String err) {
    }

    private Run node(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        if (!all.contains("--help")) {
            all.addAll(List.of("--cluster", CLUSTER, "--bootstrap-servers", KAFKA.bootstrapServers(), "--schema-registry-url", registry,
                    "--topic-prefix", prefix, "--timeout", "30s"));
        }
        return raw(all.toArray(String[]::new));
    }

    private static Run raw(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new NodeCommand(Map.of()));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    /**
     * Six nodes on three racks, 10 TB each; n1 and n2 (rack r1) at 80%, the others at 40%; a slot
     * table of four slots with sets of three, and one node (n7) known only from the slot table.
     */
    private void cluster() {
        KAFKA.broker().createTopics(1, topics.reports());
        KAFKA.broker().createCompactedTopics(1, topics.slotTable(), topics.membership());
        Instant now = Instant.now();
        List<NodeFigures> figures = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            long used = i <= 2 ? 8 * TB : 4 * TB;
            figures.add(NodeFigures.newBuilder().setNode("n" + i).setRack("r" + ((i + 1) / 2)).setHeatBytes(0).setUsedBytes(used)
                    .setTotalBytes(10 * TB).setUtilisation(used / (10.0 * TB)).build());
        }
        try (KafkaProducer<String, SpecificRecord> producer = KAFKA.broker().producer(new StringSerializer(), anySerializer())) {
            // an older report of the cluster and one of another cluster: the latest of this one counts
            producer.send(new ProducerRecord<>(topics.reports(), CLUSTER, report(CLUSTER, now.minusSeconds(60), figures.subList(0, 2))));
            producer.send(new ProducerRecord<>(topics.reports(), CLUSTER, report(CLUSTER, now, figures)));
            producer.send(new ProducerRecord<>(topics.reports(), "other", report("other", now, figures.subList(0, 1))));
            List<List<String>> sets = List.of(List.of("n1", "n3", "n5"), List.of("n2", "n4", "n6"), List.of("n1", "n4", "n6"),
                    List.of("n3", "n5", "n7"));
            for (int slot = 0; slot < sets.size(); slot++) {
                producer.send(new ProducerRecord<>(topics.slotTable(), CLUSTER + "/" + slot, SlotAssignment.newBuilder().setCluster(CLUSTER)
                        .setSlot(slot).setRoutingEpoch(12).setCandidates(sets.get(slot)).setUpdatedAt(now).build()));
            }
            producer.flush();
        }
    }

    private static SkewReport report(String cluster, Instant at, List<NodeFigures> nodes) {
        return SkewReport.newBuilder().setCluster(cluster).setWindowStart(at.minusSeconds(60)).setWindowEnd(at).setHeatGini(0.1)
                .setCapacityCv(0.33).setShardCapacityCv(0).setNodeCount(nodes.size()).setTotalWriteBytes(0).setNodes(nodes)
                .setHottestSlots(List.of()).setHeatState(AlertState.NORMAL).setCapacityState(AlertState.NORMAL).build();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private org.apache.kafka.common.serialization.Serializer<SpecificRecord> anySerializer() {
        Map<Class<?>, SchemaRegistrySerde> serdes = Map.of(
                SkewReport.class, SchemaRegistrySerde.of(SkewReport.class, Map.of("schema.registry.url", registry), false),
                SlotAssignment.class, SchemaRegistrySerde.of(SlotAssignment.class, Map.of("schema.registry.url", registry), false));
        return (topic, value) -> serdes.get(value.getClass()).serializer().serialize(topic, value);
    }

    private List<ConsumerRecord<String, NodeMembership>> membership(int expected) {
        return KAFKA.broker().consumeUntil(topics.membership(), new StringDeserializer(),
                SchemaRegistrySerde.of(NodeMembership.class, Map.of("schema.registry.url", registry), false).deserializer(),
                expected, Duration.ofSeconds(30));
    }

    private long membershipRecords() {
        return KAFKA.broker().endOffsets(topics.membership()).get(new TopicPartition(topics.membership(), 0));
    }

    @Test
    void drainWritesDrainingAfterSayingWhatWillHappenAndListShowsIt() throws Exception {
        cluster();

        Run drain = node("drain", "n3", "--reason", "disk replacement");

        assertThat(drain.exitCode()).as(drain.err()).isZero();
        assertThat(drain.out()).contains("n3 now: a member without a membership record; rack r2; 4.0 TB used of 10.0 TB (40.0%); "
                        + "candidate in 2 sets, read-only in 0.")
                .contains("It holds 4.0 TB in 2 candidate sets; the other 6 live nodes have 17.0 TB free below the drain-headroom of 10.0%.")
                .contains("moves its shards away at the normal rate limits, then takes it out of every candidate set")
                .contains("written: n3 DRAINING (reason \"drain by ");
        List<ConsumerRecord<String, NodeMembership>> written = membership(1);
        assertThat(written).hasSize(1);
        assertThat(written.get(0).key()).isEqualTo("prod/n3");
        NodeMembership r = written.get(0).value();
        assertThat(r.getState()).isEqualTo(MembershipState.DRAINING);
        assertThat(r.getSource()).isEqualTo("operator");
        assertThat(r.getRack()).isEqualTo("r2");
        assertThat(r.getReason()).startsWith("drain by ").endsWith(": disk replacement");

        Run list = node("list");
        assertThat(list.exitCode()).as(list.err()).isZero();
        assertThat(list.out()).contains("cluster prod: 7 nodes, 6 live;").contains("slot table of 4 slots, 3 candidates per set, routing epoch 12");
        assertThat(list.out().lines().filter(l -> l.startsWith("n3 "))).singleElement().asString()
                .contains("DRAINING", "operator", "4.0 TB", "10.0 TB", "40.0%", "disk replacement");
        assertThat(list.out().lines().filter(l -> l.startsWith("n7 "))).singleElement().asString()
                .contains("member", "no membership record (known from the slot table)");

        Run cancel = node("drain", "n3", "--cancel");
        assertThat(cancel.exitCode()).as(cancel.err()).isZero();
        assertThat(membership(2).get(1).value().getState()).isEqualTo(MembershipState.ACTIVE);
    }

    @Test
    void addWritesActiveWithRackAndCapacityAndAddingAnActiveNodeAgainWritesNothing() throws Exception {
        cluster();

        Run add = node("add", "n8", "--rack", "r4", "--capacity", "100TB");
        assertThat(add.exitCode()).as(add.err()).isZero();
        NodeMembership r = membership(1).get(0).value();
        assertThat(r.getState()).isEqualTo(MembershipState.ACTIVE);
        assertThat(r.getCapacityBytes()).isEqualTo(100 * TB);
        assertThat(r.getRack()).isEqualTo("r4");

        Run again = node("add", "n8");
        assertThat(again.exitCode()).isZero();
        assertThat(again.out()).contains("n8 is already ACTIVE in cluster prod: nothing written");
        assertThat(membershipRecords()).isEqualTo(1);
    }

    @Test
    void everyRefusalIsOneLineWithExitCodeTwoAndWritesNothing() throws Exception {
        cluster();

        Run unknown = node("drain", "n9");
        Run lastOfRack = node("remove", "n1", "--dry-run");
        node("drain", "n2", "--dry-run");
        Run badSize = node("add", "n8", "--capacity", "12XB");
        Run badCluster = raw("list", "--cluster", "a/b", "--bootstrap-servers", KAFKA.bootstrapServers(), "--schema-registry-url", registry);

        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err()).isEqualToIgnoringNewLines("node: drain of n9 refused: cluster prod has no node n9 (no membership record, "
                + "not in the latest report, not in the slot table); nothing written");
        assertThat(badSize.exitCode()).isEqualTo(2);
        assertThat(badSize.err()).isEqualToIgnoringNewLines("node: --capacity: '12XB' is not a size; write it like 100TB, 512GiB or "
                + "2000000000000 (bytes)");
        assertThat(badCluster.exitCode()).isEqualTo(2);
        assertThat(badCluster.err()).startsWith("node: --cluster: a cluster id cannot hold '/'");
        for (Run r : List.of(unknown, badSize, badCluster)) {
            assertThat(r.err().lines()).hasSize(1);
            assertThat(r.out()).isEmpty();
        }
        // n1 is not the last of rack r1 (n2 is there), so the dry run passes; with n2 draining it is the last
        assertThat(lastOfRack.exitCode()).as(lastOfRack.err()).isZero();
        assertThat(lastOfRack.out()).contains("dry run: nothing written");
        assertThat(membershipRecords()).isZero();

        // n7 is on no known rack, so it counts as a rack of its own: drain it too
        assertThat(node("drain", "n2").exitCode()).isZero();
        assertThat(node("drain", "n7").exitCode()).isZero();
        Run refused = node("remove", "n1");
        assertThat(refused.exitCode()).isEqualTo(2);
        assertThat(refused.err()).isEqualToIgnoringNewLines("node: remove of n1 refused: it is the last live node of rack r1, and the other "
                + "4 live nodes span 2 racks, fewer than the candidate-set size 3, so candidate sets could no longer put every candidate "
                + "on its own rack; add a node on another rack first (node add NODE --cluster prod --rack RACK); nothing written");
        assertThat(membershipRecords()).as("only the drains of n2 and n7").isEqualTo(2);
    }

    @Test
    void aDrainThatWouldLeaveTheClusterOverCapacityIsRefused() throws Exception {
        cluster();
        // take racks r2 and r3 down to one node each: the four live nodes left cannot take another 8 TB below 75%
        assertThat(node("drain", "n4").exitCode()).isZero();
        assertThat(node("drain", "n6").exitCode()).isZero();

        Run refused = node("drain", "n1", "--drain-headroom", "0.25");

        assertThat(refused.exitCode()).isEqualTo(2);
        assertThat(refused.err()).startsWith("node: drain of n1 refused: it holds 8.0 TB but the other 4 live nodes have only 7.0 TB free "
                + "below the drain-headroom of 25.0%");
        assertThat(membershipRecords()).isEqualTo(2);
    }

    @Test
    void anUnreachableBrokerEndsTheCommandWithThreeAndSaysWhere() {
        Run run = raw("list", "--cluster", CLUSTER, "--bootstrap-servers", "127.0.0.1:1", "--schema-registry-url", registry,
                "--timeout", "2s");
        assertThat(run.exitCode()).isEqualTo(NodeCommand.KAFKA_FAILED);
        assertThat(run.err()).isEqualToIgnoringNewLines("node: cannot read " + Topics.DEFAULT_PREFIX + "membership on 127.0.0.1:1: no answer "
                + "within 2s (is Kafka reachable at that address? the wait is set by --timeout)");
    }

    @Test
    void aRegistryUrlOfNoKnownSchemeIsABadSetting() {
        Run run = raw("list", "--cluster", CLUSTER, "--bootstrap-servers", KAFKA.bootstrapServers(), "--schema-registry-url", "ftp://x");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err().lines()).singleElement().asString().startsWith("node: ").contains("ftp://x");
    }

    @Test
    void aMissingTopicNamesTheCommandThatCreatesIt() {
        Run run = node("list");
        assertThat(run.exitCode()).isEqualTo(NodeCommand.KAFKA_FAILED);
        assertThat(run.err()).contains("topic " + topics.membership() + " does not exist on " + KAFKA.bootstrapServers())
                .contains("./skewguard topics create");
    }

    @Test
    void eachSubcommandsHelpSaysWhatTheMigratorDoesNextAndTheRefusals() {
        Run drain = raw("drain", "--help");
        assertThat(drain.exitCode()).isZero();
        assertThat(drain.out().replaceAll("\\s+", " ")).contains("moves its shards away at the normal rate limits", "Refused", "drain-headroom", "--cancel",
                "--dry-run", "--bootstrap-servers", "--config", "SKEWGUARD_NODE_");
        assertThat(raw("remove", "--help").out().replaceAll("\\s+", " ")).contains("rebuild from replicas", "Refused");
        assertThat(raw("add", "--help").out().replaceAll("\\s+", " ")).contains("--capacity", "--rack", "already ACTIVE");
        assertThat(raw("list", "--help").out().replaceAll("\\s+", " ")).contains("read-only");
    }
}
