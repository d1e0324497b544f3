package io.skewguard.migrator;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.migrator.control.ControlChange;
import io.skewguard.migrator.control.CtlCommand;
import io.skewguard.migrator.membership.OperatorWriter;
import io.skewguard.runtime.control.ControlRecords;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Every operator control once on the whole loop ({@link RepairLoopRig}: real broker, detector,
 * migrator, agents, reporters, stores that hold keys, a writer), driven by {@code skewguard ctl} as an
 * operator would: a dry run proposes and sends no command; an excluded node is never a source or a
 * target; a throttle is in the next COPY rate; a pause starts no new batch; resume finishes the
 * repair with every key readable at its last version.
 */
class OperatorControlLoopIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    private static final String SCOPE = "control-loop-it-" + UUID.randomUUID();
    private static final Duration WAIT = Duration.ofSeconds(90);

    @AfterAll
    static void dropRegistry() {
        MockSchemaRegistry.drop(SCOPE);
    }

    private final List<MigrationCommand> commands = new ArrayList<>();
    private final List<Proposal> proposals = new ArrayList<>();
    private final List<Decision> decisions = new ArrayList<>();
    private final List<MigrationStatus> repair = new ArrayList<>();

    private String ctl(RepairLoopRig rig, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--cluster", RepairLoopRig.CLUSTER, "--bootstrap-servers", KAFKA.bootstrapServers(), "--schema-registry-url",
                "mock://" + SCOPE, "--topic-prefix", rig.topics.prefix(), "--operator", "alice"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new CtlCommand(Map.of()));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        int code = cmd.execute(all.toArray(String[]::new));
        assertThat(code).as("ctl %s: %s", String.join(" ", args), err).isZero();
        return out.toString();
    }

    /** Polls the loop's topics until {@code done} holds, the deadline passes, or a part of the loop fails. */
    private void until(RepairLoopRig rig, Consumers c, String what, Predicate<OperatorControlLoopIT> done) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!done.test(this)) {
            assertThat(System.nanoTime()).as("waiting for %s", what).isLessThan(deadline);
            assertThat(rig.healthy()).as("the loop runs").isTrue();
            c.poll(this);
        }
    }

    /** The consumers of the topics the test watches. */
    private record Consumers(KafkaConsumer<String, MigrationCommand> commands, KafkaConsumer<String, Proposal> proposals,
                             KafkaConsumer<String, Decision> decisions, KafkaConsumer<String, MigrationStatus> statuses)
            implements AutoCloseable {
        void poll(OperatorControlLoopIT t) {
            for (ConsumerRecord<String, MigrationCommand> r : commands.poll(Duration.ofMillis(50))) {
                t.commands.add(r.value());
            }
            for (ConsumerRecord<String, Proposal> r : proposals.poll(Duration.ofMillis(50))) {
                t.proposals.add(r.value());
            }
            for (ConsumerRecord<String, Decision> r : decisions.poll(Duration.ofMillis(50))) {
                t.decisions.add(r.value());
            }
            for (ConsumerRecord<String, MigrationStatus> r : statuses.poll(Duration.ofMillis(50))) {
                if (r.value().getMigrationId().equals(RepairLoopRig.CLUSTER + "/repair")) {
                    t.repair.add(r.value());
                }
            }
        }

        @Override
        public void close() {
            commands.close();
            proposals.close();
            decisions.close();
            statuses.close();
        }
    }

    private boolean decided(String reason) {
        return decisions.stream().anyMatch(d -> d.getApp().equals("migrator") && d.getReason().equals(reason));
    }

    @Test
    void dryRunExcludeThrottlePauseAndResumeOnTheWholeLoop(@TempDir Path dir) throws Exception {
        RepairLoopRig rig = new RepairLoopRig(KAFKA.broker(), SCOPE, "ctl.");
        Map<String, Object> serde = rig.serde;
        assertThat(rig.initialStoreCv).isGreaterThan(0.25);
        // a dry run from the first moment, written as ctl writes it (ctl itself wants the cluster on the topics first)
        Properties producer = new Properties();
        producer.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        OperatorControl dryRun = OperatorControl.newBuilder().setCluster(RepairLoopRig.CLUSTER).setControl(ControlKind.DRY_RUN)
                .setEnabled(new ControlChange.DryRun(true).on()).setOperator("alice").setReason("look first").setUpdatedAt(Instant.now())
                .build();
        OperatorWriter.write(producer, serde, rig.topics.control(), ControlRecords.key(RepairLoopRig.CLUSTER, ControlKind.DRY_RUN, null),
                dryRun, null, Duration.ofSeconds(30), "control-loop-it", "ctl status");

        try (rig;
             Consumers c = new Consumers(
                     RepairLoopRig.consumer(rig.broker, rig.topics.migrationCommands(), SchemaRegistrySerde.of(MigrationCommand.class, serde, false)),
                     RepairLoopRig.consumer(rig.broker, rig.topics.proposals(), SchemaRegistrySerde.of(Proposal.class, serde, false)),
                     RepairLoopRig.consumer(rig.broker, rig.topics.decisions(), SchemaRegistrySerde.of(Decision.class, serde, false)),
                     rig.statuses(SchemaRegistrySerde.of(MigrationStatus.class, serde, false)))) {
            rig.start(dir, "control-loop", rig.migratorSettings(dir, "control-loop-migrator", Map.of("max-parallel", "2")));

            // 1. dry run: the repair is due, plans are proposed, no command is sent
            until(rig, c, "a dry run's proposal", t -> t.proposals.stream().anyMatch(p -> p.getApp().equals("migrator")));
            assertThat(decided("DRY_RUN")).isTrue();
            assertThat(commands).as("no migration command in dry run").isEmpty();
            Proposal first = proposals.get(0);
            assertThat(first.getMoves()).isNotEmpty();
            assertThat(first.getExpected()).isLessThan(first.getCurrent());

            // 2. exclude n0 (a small, full node: a source in the first plan) and fix the budget
            assertThat(first.getMoves()).as("n0 is a source of the first plan").anyMatch(m -> m.getSource().equals("n0"));
            assertThat(ctl(rig, "exclude", "n0", "--reason", "suspect disk")).contains("written by alice");
            assertThat(ctl(rig, "throttle", "200000")).contains("the migration budget is 195.3 KiB/s");
            int proposed = proposals.size();
            until(rig, c, "a proposal without n0", t -> t.proposals.size() > proposed);
            assertThat(proposals.get(proposals.size() - 1).getMoves()).isNotEmpty()
                    .noneMatch(m -> m.getSource().equals("n0") || m.getTarget().equals("n0"));

            // 3. the dry run ends: the first batch starts at the throttled rate
            ctl(rig, "dry-run", "off");
            until(rig, c, "the first COPY", t -> t.commands.stream().anyMatch(m -> m.getPhase() == MigrationPhase.COPY));
            assertThat(commands).filteredOn(m -> m.getPhase() == MigrationPhase.COPY)
                    .allSatisfy(m -> assertThat(m.getMaxBytesPerSec()).isBetween(100_000L, 200_000L));

            // 4. pause: from the moment the migrator takes it (its CONTROL decision), no migration starts
            //    and no switch starts; copies running go on; the migrator says why
            ctl(rig, "pause");
            until(rig, c, "the migrator taking the pause", t -> t.decisions.stream().anyMatch(d -> d.getReason().equals("CONTROL")
                    && d.getMessage().startsWith("paused:")));
            Instant pausedAt = decisions.stream().filter(d -> d.getReason().equals("CONTROL") && d.getMessage().startsWith("paused:"))
                    .findFirst().orElseThrow().getDecidedAt();
            long holdUntil = System.nanoTime() + Duration.ofSeconds(4).toNanos();
            until(rig, c, "four seconds of pause", t -> System.nanoTime() > holdUntil);
            Set<String> started = new HashSet<>();
            commands.stream().filter(m -> !m.getIssuedAt().isAfter(pausedAt)).forEach(m -> started.add(m.getMigrationId()));
            List<MigrationCommand> whilePaused = commands.stream().filter(m -> m.getIssuedAt().isAfter(pausedAt)).toList();
            assertThat(whilePaused).as("commands while paused").allSatisfy(m -> {
                assertThat(started).as("a migration started while paused").contains(m.getMigrationId());
                assertThat(m.getPhase()).as("a switch started while paused").isNotEqualTo(MigrationPhase.PREPARE);
            });
            assertThat(decided("PAUSED")).isTrue();

            // 5. a new throttle while paused, then resume: every COPY from then on carries its share
            ctl(rig, "throttle", "400000");
            until(rig, c, "the migrator taking the throttle", t -> t.decisions.stream().anyMatch(d -> d.getReason().equals("CONTROL")
                    && d.getMessage().startsWith("throttle 390.6 KiB/s")));
            Instant throttledAt = decisions.stream().filter(d -> d.getMessage().startsWith("throttle 390.6 KiB/s")).findFirst()
                    .orElseThrow().getDecidedAt();
            ctl(rig, "resume");
            until(rig, c, "the repair's end", t -> t.repair.stream().anyMatch(s -> s.getOutcome() != StepResult.PROGRESS));
            List<MigrationCommand> later = commands.stream()
                    .filter(m -> m.getPhase() == MigrationPhase.COPY && m.getIssuedAt().isAfter(throttledAt)).toList();
            assertThat(later).as("COPYs after the second throttle").isNotEmpty()
                    .allSatisfy(m -> assertThat(m.getMaxBytesPerSec()).isBetween(200_000L, 400_000L));
            rig.stopWriting();

            // 6. n0 was never a source or target, the table and the stores agree, and every key reads back
            assertThat(commands).isNotEmpty().allSatisfy(m -> {
                assertThat(m.getSourceNode()).isNotEqualTo("n0");
                assertThat(m.getTargetNode()).isNotEqualTo("n0");
            });
            Map<Integer, SlotAssignment> table = RepairLoopRig.readTable(rig.broker, rig.topics.slotTable(),
                    SchemaRegistrySerde.of(SlotAssignment.class, serde, false), Duration.ofSeconds(30));
            assertThat(table.values()).allSatisfy(row -> assertThat(row.getInFlightTarget()).isNull());
            assertThat(rig.unreadableKeys(table)).as("keys not readable at their last version").isEmpty();
            assertThat(decided("BATCH_STARTED")).isTrue();
            assertThat(decisions).anySatisfy(d -> {
                assertThat(d.getReason()).isEqualTo("CONTROL");
                assertThat(d.getMessage()).contains("node n0 excluded").contains("alice").contains("suspect disk");
            });
        }
    }
}
