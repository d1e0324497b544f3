package io.skewguard.runtime.acls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.runtime.lifecycle.StartRefused;
import io.skewguard.runtime.topics.RequiredTopics;
import io.skewguard.runtime.topics.TopicPlan;
import io.skewguard.runtime.topics.TopicProvisioner;
import io.skewguard.schemas.Topics;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A broker with the standard authorizer and {@code allow.everyone.if.no.acl.found=false}, one SCRAM
 * user per role, the SkewGuard topics under {@code sec.} and the ACLs of {@link AclPlan} applied
 * through {@code skewguard acls --apply} with an administrator's properties file.
 */
class AclsIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Topics TOPICS = new Topics("sec.");

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension(EmbeddedKafka.builder()
            .saslUser("detector", "detector-secret")
            .saslUser("balancer", "balancer-secret")
            .saslUser("migrator", "migrator-secret")
            .saslUser("node-n1", "n1-secret")
            .saslUser("node-n2", "n2-secret")
            .saslUser("nobody", "nobody-secret")
            .authorizer());

    @TempDir
    static Path dir;

    private static String applyOutput;

    @BeforeAll
    static void topicsAndAcls() {
        try (TopicProvisioner provisioner = new TopicProvisioner(KAFKA.broker().adminClient(), KAFKA.bootstrapServers(), TIMEOUT)) {
            provisioner.create(TopicPlan.defaults(TOPICS.prefix()));
        }
        Run run = acls(KAFKA.broker().writeClientProperties(dir.resolve("admin.properties")), "--apply");
        assertThat(run.exit).as("stderr: %s", run.err).isZero();
        applyOutput = run.out;
    }

    @Test
    void applyPrintsTheTableAndCreatesEveryLineOnTheCluster() throws Exception {
        AclPlan plan = plan();
        List<AclBinding> wanted = plan.grants().stream().map(AclGrant::binding).distinct().toList();

        assertThat(applyOutput).startsWith("ROLE").contains("agent n2", "User:migrator", "Write", "topic sec.migration-commands")
                .contains(wanted.size() + " ACLs created, 0 already there");
        assertThat(KAFKA.broker().adminClient().describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS))
                .containsAll(wanted);
    }

    @Test
    void applyingAgainCreatesNothing() {
        Run again = acls(KAFKA.broker().writeClientProperties(dir.resolve("admin-again.properties")), "--apply");

        assertThat(again.exit).isZero();
        assertThat(again.out).contains("0 ACLs created, " + plan().grants().stream().map(AclGrant::binding).distinct().count()
                + " already there");
    }

    @Test
    void applyWithoutTheRightToManageAclsFailsWithOneClearLine() {
        Run refused = acls(KAFKA.broker().writeClientProperties(dir.resolve("nobody.properties"), "nobody"), "--apply");

        assertThat(refused.exit).isEqualTo(AclsCommand.KAFKA_FAILED);
        assertThat(refused.err.strip()).doesNotContain("\n").startsWith("acls: cannot list the ACLs on " + KAFKA.bootstrapServers())
                .contains("ClusterAuthorizationException", "may not manage ACLs");
    }

    @Test
    void anAgentsPrincipalProducingAMigrationCommandIsRefusedByTheBroker() {
        try (var agent = producer("node-n1")) {
            assertThatThrownBy(() -> agent.send(new ProducerRecord<>(TOPICS.migrationCommands(), "c1/n2", "forged"))
                    .get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            assertThatThrownBy(() -> agent.send(new ProducerRecord<>(TOPICS.slotTable(), "c1/7", "forged")).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        try (var balancer = producer("balancer")) {
            assertThatThrownBy(() -> balancer.send(new ProducerRecord<>(TOPICS.migrationCommands(), "c1/n2", "forged"))
                    .get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void eachRoleWritesWhatItsLinesAllow() throws Exception {
        try (var migrator = producer("migrator")) {
            migrator.send(new ProducerRecord<>(TOPICS.migrationCommands(), "c1/n1", "command")).get(30, TimeUnit.SECONDS);
        }
        try (var agent = producer("node-n1")) {
            agent.send(new ProducerRecord<>(TOPICS.migrationStatus(), "c1/n1", "answer")).get(30, TimeUnit.SECONDS);
            agent.send(new ProducerRecord<>(TOPICS.nodeCapacity(), "c1/n1", "capacity")).get(30, TimeUnit.SECONDS);
        }
        try (var balancer = producer("balancer")) {
            balancer.send(new ProducerRecord<>(TOPICS.weightCommands(), "c1/n1", "weight")).get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void anAgentReadsItsCommandsInItsOwnGroupButCannotJoinAnotherNodes() {
        try (var own = consumer("node-n1", "skewguard-agent-n1")) {
            own.subscribe(List.of(TOPICS.migrationCommands()));
            pollOnce(own);
            own.commitSync();
        }
        try (var other = consumer("node-n1", "skewguard-agent-n2")) {
            other.subscribe(List.of(TOPICS.migrationCommands()));
            assertThatThrownBy(() -> pollOnce(other)).isInstanceOf(GroupAuthorizationException.class);
        }
    }

    @Test
    void everyRolePassesTheStartUpCheckOfTheTopicsUnderItsAcls() {
        for (String user : List.of("detector", "balancer", "migrator", "node-n1", "node-n2")) {
            new RequiredTopics(TopicPlan.defaults(TOPICS.prefix()), properties(user), false).start();
        }
    }

    @Test
    void aWrongPasswordStopsTheStartWithOneLineNamingTheCredentials() {
        Properties impostor = properties("migrator");
        impostor.put("sasl.jaas.config", impostor.getProperty("sasl.jaas.config").replace("migrator-secret", "guessed"));

        assertThatThrownBy(() -> new RequiredTopics(TopicPlan.defaults(TOPICS.prefix()), impostor, false).start())
                .isInstanceOf(StartRefused.class)
                .hasMessageNotContaining("\n")
                .hasMessageContaining("Kafka refused this app's credentials (SaslAuthenticationException")
                .hasMessageContaining("sasl.jaas.config")
                .hasMessageContaining(KAFKA.bootstrapServers());
    }

    @Test
    void aPrincipalWithoutAclsSeesNoTopicsAndIsToldWhy() {
        assertThatThrownBy(() -> new RequiredTopics(TopicPlan.defaults(TOPICS.prefix()), properties("nobody"), false).start())
                .isInstanceOf(StartRefused.class)
                .hasMessageContaining("missing SkewGuard topics")
                .hasMessageContaining("may not describe looks missing")
                .hasMessageContaining("./skewguard acls");
    }

    // ---------------------------------------------------------------- helpers

    private static AclPlan plan() {
        return new AclPlan(TOPICS, new AclPlan.StreamsRole("User:detector", AclPlan.DETECTOR_APPLICATION_ID),
                new AclPlan.StreamsRole("User:balancer", AclPlan.BALANCER_APPLICATION_ID),
                new AclPlan.StreamsRole("User:migrator", AclPlan.MIGRATOR_APPLICATION_ID),
                Map.of("n1", "User:node-n1", "n2", "User:node-n2"));
    }

    private record Run(int exit, String out, String err) {}

    private static Run acls(Path config, String... more) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new AclsCommand(Map.of()));
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        List<String> args = new ArrayList<>(List.of("--config", config.toString(), "--topic-prefix", TOPICS.prefix(),
                "--principal-detector", "User:detector", "--principal-balancer", "User:balancer",
                "--principal-migrator", "User:migrator", "--principal-agents", "n1=User:node-n1,n2=User:node-n2"));
        args.addAll(List.of(more));
        int exit = cli.execute(args.toArray(String[]::new));
        return new Run(exit, out.toString(), err.toString());
    }

    private static Properties properties(String user) {
        Properties p = new Properties();
        p.putAll(KAFKA.broker().clientProperties(user));
        return p;
    }

    private static KafkaProducer<String, String> producer(String user) {
        Map<String, Object> config = new HashMap<>(KAFKA.broker().clientProperties(user));
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static KafkaConsumer<String, String> consumer(String user, String group) {
        Map<String, Object> config = new HashMap<>(KAFKA.broker().clientProperties(user));
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
    }

    /** Polls until the consumer has its partitions (or a refusal is thrown); bounded by {@link #TIMEOUT}. */
    private static void pollOnce(KafkaConsumer<String, String> consumer) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (consumer.assignment().isEmpty() && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(200));
        }
        assertThat(consumer.assignment()).as("partitions assigned within %s", TIMEOUT).isNotEmpty();
    }
}
