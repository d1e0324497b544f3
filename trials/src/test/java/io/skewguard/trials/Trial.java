package io.skewguard.trials;

import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.MigrationRecord;
import io.skewguard.agent.command.Stage;
import io.skewguard.agent.service.WriteJournal;
import io.skewguard.agent.store.NodeStore;
import io.skewguard.agent.store.RocksDbNodeStore;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.embedded.EmbeddedKafka;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.testkit.AppProcess;
import io.skewguard.trials.TrialStack.App;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One trial of the loop: a {@link TrialStack} driven into a repair with migrations in flight, then
 * disturbed step by step — processes killed with SIGKILL at chosen points of the loop (each started
 * again at once with its state and data), the broker restarted or stopped for a while —, the loop
 * brought to rest, and {@link TrialChecks} run on what the topics and the stores hold.
 *
 * <p><b>Kill points.</b> A point is a moment seen from outside: in the topics (both PREPAREs of a
 * migration answered, a new weight epoch), in the agents' state files and consumer-group offsets.
 * When the moment comes, the process is frozen ({@link AppProcess#freeze()}, SIGSTOP), the trial
 * checks that it is really at that point (e.g. the migrator has sent no COMMIT of the prepared
 * migration yet, an agent has recorded a command it has not committed the offset of), and kills it
 * there; otherwise it lets the process go on and waits for the next such moment. Nothing in the
 * applications knows about the trial.
 *
 * <p><b>The broker.</b> A restart stops the broker and starts it at once on the same ports with the
 * same data; an outage keeps it stopped for a given time. Every process must still run throughout
 * (none may exit), and the loop must go on by itself afterwards: a command is sent after the broker
 * is back.
 *
 * <p><b>Rest.</b> After the steps, the agent service is stopped with SIGTERM and started without
 * load, and the migrator is stopped and started with a target it has reached, so that the repair
 * ends after its running batch; the trial then waits until no migration is in flight, every agent
 * has consumed and committed every command and no command has come for a while, stops every
 * process with SIGTERM and reads the history.
 */
final class Trial {

    private static final Logger LOG = LoggerFactory.getLogger(Trial.class);

    /** Where in the loop a process is killed. */
    enum Point {
        /** A seeded random moment while the repairs run. */
        RANDOM(EnumSet.allOf(App.class)),
        /** Right after the balancer's transaction of a weight round (a new epoch) became visible. */
        AFTER_WEIGHT_ROUND(EnumSet.of(App.BALANCER)),
        /** A migration's copy under way (bytes copied, not done; the migrator has not prepared it). */
        MID_COPY(EnumSet.of(App.MIGRATOR, App.AGENT)),
        /** Both participants answered PREPARE DONE; no COMMIT of the migration sent yet. */
        AFTER_PREPARED(EnumSet.of(App.MIGRATOR, App.AGENT)),
        /** Both participants answered COMMIT DONE; the source has not cleaned up (the migrator: not sent CLEANUP). */
        BETWEEN_COMMIT_AND_CLEANUP(EnumSet.of(App.MIGRATOR, App.AGENT)),
        /** An agent has applied a command (its state file says so) and not committed the command's offset. */
        BETWEEN_APPLY_AND_COMMIT(EnumSet.of(App.AGENT));

        final Set<App> apps;

        Point(Set<App> apps) {
            this.apps = apps;
        }
    }

    /** One disturbance of a trial. */
    sealed interface Step permits Kill, BrokerRestart, BrokerOutage {}

    /** Kill {@code app} at {@code point}, then start it again. */
    record Kill(App app, Point point) implements Step {
        Kill {
            if (!point.apps.contains(app)) {
                throw new IllegalArgumentException(point + " is not a point of the " + app);
            }
        }

        @Override
        public String toString() {
            return app.label() + " " + point.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        }
    }

    /** Stop the broker and start it again at once, same ports and data. */
    record BrokerRestart() implements Step {
        @Override
        public String toString() {
            return "broker restart";
        }
    }

    /**
     * Stop the broker for {@code down}, then start it again, same ports and data; with
     * {@code atAgentCommit}, the outage begins while an agent has applied a command and not committed
     * its offset (the agent frozen there, the broker stopped, the agent let go on).
     */
    record BrokerOutage(Duration down, boolean atAgentCommit) implements Step {
        @Override
        public String toString() {
            return "broker down " + down.toSeconds() + " s" + (atAgentCommit ? " from an agent's apply before its commit" : "");
        }
    }

    /** A step as it happened: what the trial saw when it took it, and when (ms after the start). */
    record Taken(Step step, String moment, long atMillis) {}

    /** What a trial found. */
    record Outcome(String name, long seed, List<Taken> steps, Map<String, Long> figures, List<String> violations,
                   long startMillis, long totalMillis, Path dir) {
        boolean passed() {
            return violations.isEmpty();
        }

        /** This outcome with one violation more. */
        Outcome with(String violation) {
            List<String> more = new ArrayList<>(violations);
            more.add(violation);
            return new Outcome(name, seed, steps, figures, more, startMillis, totalMillis, dir);
        }
    }

    private static final Duration POINT_WAIT = Duration.ofSeconds(90);
    private static final Duration REST_WAIT = Duration.ofSeconds(120);
    /** No command for this long (with everything finished and consumed): the loop is at rest. */
    private static final Duration QUIET = Duration.ofSeconds(3);

    private final TrialStack stack;
    private final Random random;
    private final long startedAt = System.nanoTime();
    private final Follower<SkewAlert> alerts;
    private final Follower<SkewReport> reports;
    private final Follower<WeightCommand> weights;
    private final Follower<NodeWeight> nodeWeights;
    private final Follower<MigrationCommand> commands;
    private final Follower<MigrationStatus> statuses;
    private final Follower<SlotAssignment> slots;
    /** Effects a look found applied and their offsets committed: no later look asks about them again. */
    private final Set<String> settled = new HashSet<>();

    private Trial(TrialStack stack, long seed) {
        this.stack = stack;
        this.random = new Random(seed);
        EmbeddedKafka b = stack.broker();
        var t = stack.topics();
        var serde = stack.serdeConfig();
        this.alerts = new Follower<>(b, t.alerts(), SkewAlert.class, serde);
        this.reports = new Follower<>(b, t.reports(), SkewReport.class, serde);
        this.weights = new Follower<>(b, t.weightCommands(), WeightCommand.class, serde);
        this.nodeWeights = new Follower<>(b, t.nodeWeights(), NodeWeight.class, serde);
        this.commands = new Follower<>(b, t.migrationCommands(), MigrationCommand.class, serde);
        this.statuses = new Follower<>(b, t.migrationStatus(), MigrationStatus.class, serde);
        this.slots = new Follower<>(b, t.slotTable(), SlotAssignment.class, serde);
    }

    /**
     * Runs a trial named {@code name} (its topic prefix) on {@code broker}, files under {@code dir}:
     * starts the stack (its processes' settings adjusted by {@code configure}), takes {@code steps} in
     * order, brings the loop to rest and checks.
     */
    static Outcome run(EmbeddedKafka broker, Path dir, String name, long seed, List<? extends Step> steps,
                       java.util.function.Consumer<TrialStack> configure) throws Exception {
        long t0 = System.nanoTime();
        long startMillis = 0;
        List<Taken> done = new ArrayList<>();
        org.apache.kafka.common.utils.Utils.delete(dir.toFile()); // a run before this one left its files
        try (TrialStack stack = new TrialStack(broker, dir, name)) {
            stack.createTopics();
            configure.accept(stack);
            Trial trial = new Trial(stack, seed);
            try {
                stack.start();
                startMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                LOG.info("TRIAL {} seed {}: started in {} ms; steps {}", name, seed, startMillis, steps);
                trial.takeAll(steps, done);
                trial.rest();
                TrialHistory history = trial.history();
                List<String> violations = new ArrayList<>(TrialChecks.violations(history));
                Map<String, Long> figures = new LinkedHashMap<>(TrialChecks.figures(history));
                figures.putAll(trial.deadLetters());
                // a trial that did not drive the loop through a repair proves nothing
                for (String exercised : List.of("weight epochs", "migrations committed", "keys written", "alert transitions")) {
                    if (figures.getOrDefault(exercised, 0L) == 0) {
                        violations.add("the trial did not exercise the loop: no " + exercised);
                    }
                }
                long total = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                return new Outcome(name, seed, done, figures, violations, startMillis, total, dir);
            } catch (RuntimeException | AssertionError e) {
                LOG.error("TRIAL {}: did not complete", name, e);
                long total = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
                return new Outcome(name, seed, done, Map.of(), List.of("the trial did not complete: " + e), startMillis, total, dir);
            } finally {
                trial.closeFollowers();
            }
        }
    }

    private long elapsedMillis() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedAt);
    }

    // ------------------------------------------------------------------------------------ steps

    private void takeAll(List<? extends Step> steps, List<Taken> done) throws Exception {
        // both repairs under way: a weight epoch and a copy
        weights.await("the balancer's first round", ws -> !ws.isEmpty(), TrialStack.START);
        commands.await("the migrator's first COPY", cs -> cs.stream().anyMatch(c -> c.getPhase() == MigrationPhase.COPY),
                TrialStack.START);
        for (Step step : steps) {
            if (step instanceof Kill kill) {
                String moment = killAt(kill);
                Taken t = new Taken(kill, moment, elapsedMillis());
                LOG.info("TRIAL {}: killed {} at {} ms: {}", stack.name(), kill, t.atMillis(), moment);
                done.add(t);
                stack.restart(kill.app());
                LOG.info("TRIAL {}: {} ready again after {} ms", stack.name(), kill.app().label(), elapsedMillis() - t.atMillis());
            } else if (step instanceof BrokerOutage outage) {
                done.add(brokerDown(outage, outage.down()));
                LOG.info("TRIAL {}: {}", stack.name(), done.get(done.size() - 1).moment());
            } else {
                done.add(brokerDown(step, Duration.ZERO));
            }
            stepsDoneAt = commits();
        }
    }

    /** COMMITs sent so far. */
    private long commits() {
        return commands.values().stream().filter(c -> c.getPhase() == MigrationPhase.COMMIT).count();
    }

    private long stepsDoneAt;

    /**
     * Lets the loop run on after the last step until a migration commits after it, for at most
     * {@link #RUN_ON}: none comes if the repair reached its target meanwhile, which the checks then
     * judge as it is (every migration finished, at least one committed in the trial).
     */
    private void runOnAfterTheSteps() throws InterruptedException {
        long before = stepsDoneAt;
        long deadline = System.nanoTime() + RUN_ON.toNanos();
        while (commits() <= before && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    private static final Duration RUN_ON = Duration.ofSeconds(20);

    /**
     * Stops the broker for {@code down} (a restart: at once), checking every 100 ms meanwhile that no
     * process ends, starts it again, and waits until a command is sent after it is back.
     */
    private Taken brokerDown(Step step, Duration down) throws Exception {
        commands.awaitCaughtUp(Duration.ofSeconds(10));
        weights.awaitCaughtUp(Duration.ofSeconds(10));
        String inFlight = inFlight();
        EmbeddedKafka broker = stack.broker();
        String when = "";
        int commandsBefore;
        long at;
        if (step instanceof BrokerOutage o && o.atAgentCommit()) {
            // the broker goes away while the agent holds an applied command whose offset it has not committed
            when = "; it went while " + atApplyBeforeCommit(agent -> {
                broker.stop();
                agent.thaw();
            });
            commandsBefore = commands.records().size() + weights.records().size();
            at = elapsedMillis();
        } else {
            commandsBefore = commands.records().size() + weights.records().size();
            at = elapsedMillis();
            broker.stop();
        }
        long until = System.nanoTime() + down.toNanos();
        do {
            List<App> ended = stack.ended();
            if (!ended.isEmpty()) {
                throw new IllegalStateException(stack.name() + ": " + ended + " ended while the broker was down; output:\n"
                        + stack.lastOutput(ended.get(0)));
            }
            Thread.sleep(100);
        } while (System.nanoTime() < until);
        broker.resume();
        long back = elapsedMillis();
        LOG.info("TRIAL {}: {} at {} ms (in flight: {}), back after {} ms", stack.name(), step, at, inFlight, back - at);
        long deadline = System.nanoTime() + POINT_WAIT.toNanos();
        while (commands.records().size() + weights.records().size() == commandsBefore
                || !commands.caughtUp() || !weights.caughtUp()) {
            List<App> ended = stack.ended();
            if (!ended.isEmpty()) {
                throw new IllegalStateException(stack.name() + ": " + ended + " ended after the broker came back; output:\n"
                        + stack.lastOutput(ended.get(0)));
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(stack.name() + ": no command within " + POINT_WAIT + " after the broker came back");
            }
            Thread.sleep(100);
        }
        // every command sent while the broker was away, and the one after, is on the topics now
        long resumed = elapsedMillis() - back;
        return new Taken(step, "broker away " + (back - at) + " ms with in flight: " + inFlight + when + "; a command "
                + resumed + " ms after it was back; no process ended", at);
    }

    private String killAt(Kill kill) throws Exception {
        return switch (kill.point()) {
            case RANDOM -> random(kill.app());
            case AFTER_WEIGHT_ROUND -> afterWeightRound();
            case MID_COPY -> midCopy(kill.app());
            case AFTER_PREPARED -> afterPrepared(kill.app());
            case BETWEEN_COMMIT_AND_CLEANUP -> betweenCommitAndCleanup(kill.app());
            case BETWEEN_APPLY_AND_COMMIT -> betweenApplyAndCommit();
        };
    }

    private String random(App app) throws InterruptedException {
        long delay = random.nextInt(4_000);
        Thread.sleep(delay);
        String inFlight = inFlight();
        stack.kill(app);
        return delay + " ms after the previous step; in flight: " + inFlight;
    }

    private String inFlight() {
        Map<Integer, SlotAssignment> latest = new TreeMap<>();
        slots.values().forEach(r -> latest.put(r.getSlot(), r));
        List<String> flying = latest.values().stream().filter(r -> r.getMigrationId() != null)
                .map(r -> r.getMigrationId().substring(r.getMigrationId().indexOf('/') + 1)).toList();
        return flying.isEmpty() ? "no migration" : String.join(", ", flying);
    }

    private String afterWeightRound() throws Exception {
        long before = maxEpoch(weights.values());
        weights.await("a weight round after epoch " + before, ws -> maxEpoch(ws) > before, POINT_WAIT);
        long epoch = maxEpoch(weights.values());
        stack.kill(App.BALANCER);
        return "right after weight epoch " + epoch + " became visible";
    }

    private static long maxEpoch(List<WeightCommand> ws) {
        return ws.stream().mapToLong(WeightCommand::getEpoch).max().orElse(0);
    }

    /** The shard of every migration id seen so far: slot, source, target. */
    private record Shard(String migrationId, int slot, String source, String target) {}

    private Map<String, Shard> shards() {
        Map<String, Shard> m = new LinkedHashMap<>();
        for (MigrationCommand c : commands.values()) {
            m.putIfAbsent(c.getMigrationId(), new Shard(c.getMigrationId(), c.getSlot(), c.getSourceNode(), c.getTargetNode()));
        }
        return m;
    }

    private boolean answered(String migrationId, MigrationPhase phase, String node, StepResult outcome) {
        return statuses.values().stream().anyMatch(s -> s.getMigrationId().equals(migrationId) && s.getPhase() == phase
                && s.getNode().equals(node) && s.getOutcome() == outcome);
    }

    private boolean sent(String migrationId, MigrationPhase phase) {
        return commands.values().stream().anyMatch(c -> c.getMigrationId().equals(migrationId) && c.getPhase() == phase);
    }

    private Stage stage(String node, String migrationId) {
        MigrationRecord r = stack.appliedState(node).migration(migrationId);
        return r == null ? null : r.stage();
    }

    private String midCopy(App app) throws Exception {
        return freezeAndKill(app, "a copy under way", s -> {
            boolean progressed = statuses.values().stream().anyMatch(a -> a.getMigrationId().equals(s.migrationId())
                    && a.getPhase() == MigrationPhase.COPY && a.getOutcome() == StepResult.PROGRESS && a.getBytesCopied() > 0);
            return progressed && !answered(s.migrationId(), MigrationPhase.COPY, s.target(), StepResult.DONE);
        }, s -> app == App.MIGRATOR
                ? !sent(s.migrationId(), MigrationPhase.PREPARE)
                : stage(s.target(), s.migrationId()) == Stage.COPYING,
                s -> "copying " + s.migrationId() + " (slot " + s.slot() + " " + s.source() + " -> " + s.target() + ")");
    }

    private String afterPrepared(App app) throws Exception {
        return freezeAndKill(app, "both PREPAREs of a migration answered", s ->
                answered(s.migrationId(), MigrationPhase.PREPARE, s.source(), StepResult.DONE)
                        && answered(s.migrationId(), MigrationPhase.PREPARE, s.target(), StepResult.DONE)
                        && !sent(s.migrationId(), MigrationPhase.COMMIT),
                s -> !sent(s.migrationId(), MigrationPhase.COMMIT) && (app == App.MIGRATOR
                        || (stage(s.source(), s.migrationId()) == Stage.PREPARED && stage(s.target(), s.migrationId()) == Stage.PREPARED)),
                s -> "prepared on " + s.source() + " and " + s.target() + ", no COMMIT sent: " + s.migrationId());
    }

    private String betweenCommitAndCleanup(App app) throws Exception {
        return freezeAndKill(app, "both COMMITs of a migration answered", s ->
                answered(s.migrationId(), MigrationPhase.COMMIT, s.source(), StepResult.DONE)
                        && answered(s.migrationId(), MigrationPhase.COMMIT, s.target(), StepResult.DONE)
                        && !answered(s.migrationId(), MigrationPhase.CLEANUP, s.source(), StepResult.DONE),
                s -> app == App.MIGRATOR
                        ? !sent(s.migrationId(), MigrationPhase.CLEANUP)
                        : stage(s.source(), s.migrationId()) == Stage.COMMITTED,
                s -> "committed on " + s.source() + " and " + s.target() + ", " + (app == App.MIGRATOR ? "no CLEANUP sent" : "the source not cleaned up")
                        + ": " + s.migrationId());
    }

    /**
     * Waits for a migration at which {@code moment} holds, freezes {@code app}, and once the
     * followers have read what was sent until the freeze, kills it if {@code stillThere} holds;
     * otherwise thaws it and waits for another migration. Each migration is tried once.
     */
    private String freezeAndKill(App app, String what, Predicate<Shard> moment, Predicate<Shard> stillThere,
                                 java.util.function.Function<Shard, String> describe) throws Exception {
        Set<String> tried = new HashSet<>();
        long deadline = System.nanoTime() + POINT_WAIT.toNanos();
        int misses = 0;
        while (System.nanoTime() < deadline) {
            Optional<Shard> candidate = shards().values().stream()
                    .filter(s -> !tried.contains(s.migrationId())).filter(moment).findFirst();
            if (candidate.isEmpty()) {
                Thread.sleep(10);
                continue;
            }
            Shard s = candidate.get();
            tried.add(s.migrationId());
            AppProcess p = stack.process(app);
            p.freeze();
            commands.awaitCaughtUp(Duration.ofSeconds(10));
            statuses.awaitCaughtUp(Duration.ofSeconds(10));
            if (stillThere.test(s)) {
                stack.kill(app);
                return describe.apply(s) + (misses == 0 ? "" : " (" + misses + " earlier moments passed before the freeze)");
            }
            misses++;
            p.thaw();
        }
        throw new IllegalStateException(stack.name() + ": no moment '" + what + "' to kill the " + app.label() + " at within "
                + POINT_WAIT + " (" + misses + " passed before the freeze took hold)");
    }

    /** A command record for a node: where it is and what it says. */
    private record Delivered(String topic, int partition, long offset, String node, Object command) {}

    /**
     * Looks at the agent service frozen, again and again (freeze, look, thaw, a few ms of running),
     * until one look finds a node that has applied a command (its state file shows the command's
     * effect) whose offset its consumer group has not committed (and still has not 50 ms later, so no
     * commit request was on its way): then kills it there. Only the first record of each effect counts
     * (the first PREPARE of a migration to a node, the first command of a weight epoch): a repeat
     * finds its effect recorded before it is read.
     */
    private String betweenApplyAndCommit() throws Exception {
        return atApplyBeforeCommit(agent -> stack.kill(App.AGENT));
    }

    /** What the trial does with the agent service frozen between an apply and its offset commit. */
    @FunctionalInterface
    private interface AtCommit {
        void act(AppProcess frozenAgent) throws Exception;
    }

    /** Finds the moment (see {@link #betweenApplyAndCommit}) and runs {@code there} on the frozen agent service. */
    private String atApplyBeforeCommit(AtCommit there) throws Exception {
        long deadline = System.nanoTime() + POINT_WAIT.toNanos();
        int looks = 0;
        while (System.nanoTime() < deadline) {
            AppProcess agent = stack.process(App.AGENT);
            agent.freeze();
            looks++;
            Optional<Delivered> caught = appliedNotCommitted();
            if (caught.isPresent()) {
                Thread.sleep(50); // a commit request on its way when the freeze came has arrived by now
                Delivered d = caught.get();
                if (!committed(d)) {
                    there.act(agent);
                    return d.node() + " applied " + describe(d) + " (" + d.topic() + "-" + d.partition() + "@" + d.offset()
                            + ") and had not committed its offset (" + looks + " looks)";
                }
            }
            agent.thaw();
            Thread.sleep(1 + random.nextInt(10));
        }
        throw new IllegalStateException(stack.name() + ": no command of an agent caught between its apply and its offset commit within "
                + POINT_WAIT + " (" + looks + " looks)");
    }

    /** A command record that is the first of its effect, applied by its node, its offset not committed by the node's group. */
    private Optional<Delivered> appliedNotCommitted() throws Exception {
        Map<String, Delivered> firstOfEffect = new LinkedHashMap<>();
        for (Delivered d : newCommands()) {
            String effect = d.node() + " " + (d.command() instanceof WeightCommand w ? "weight " + w.getEpoch()
                    : ((MigrationCommand) d.command()).getMigrationId() + " " + ((MigrationCommand) d.command()).getPhase());
            firstOfEffect.putIfAbsent(effect, d);
        }
        // the agent service is frozen while this runs: the state files (local reads) first, the broker's
        // committed offsets only for an effect applied and not known committed, so that a look is short
        // and the agents run most of the time
        Map<String, Map<TopicPartition, Long>> committed = new HashMap<>();
        Map<String, AgentState> states = new HashMap<>();
        for (Map.Entry<String, Delivered> e : firstOfEffect.entrySet()) {
            Delivered d = e.getValue();
            if (settled.contains(e.getKey()) || !applied(states.computeIfAbsent(d.node(), stack::appliedState), d)) {
                continue;
            }
            Long o = committed.computeIfAbsent(d.node(), this::committedOffsets).get(new TopicPartition(d.topic(), d.partition()));
            if (o != null && o > d.offset()) {
                settled.add(e.getKey()); // committed: it stays so
                continue;
            }
            return Optional.of(d);
        }
        return Optional.empty();
    }

    /** What {@code node}'s agent group has committed, per partition. */
    private Map<TopicPartition, Long> committedOffsets(String node) {
        return stack.broker().committedOffsets(TrialStack.agentGroup(node));
    }

    private List<Delivered> newCommands() {
        List<Delivered> all = new ArrayList<>();
        for (var r : weights.records()) {
            if (r.value() != null) {
                all.add(new Delivered(stack.topics().weightCommands(), r.partition(), r.offset(), r.value().getNode(), r.value()));
            }
        }
        for (var r : commands.records()) {
            if (r.value() != null) {
                all.add(new Delivered(stack.topics().migrationCommands(), r.partition(), r.offset(), r.value().getNode(), r.value()));
            }
        }
        return all;
    }

    private static boolean applied(AgentState s, Delivered d) {
        if (d.command() instanceof WeightCommand w) {
            return s.weightEpoch() >= w.getEpoch();
        }
        MigrationCommand c = (MigrationCommand) d.command();
        MigrationRecord r = s.migration(c.getMigrationId());
        if (r == null) {
            return false;
        }
        return switch (c.getPhase()) {
            case COPY -> r.stage() != Stage.ABORTED; // a tombstone of an ABORT that came first is not the COPY's doing
            case PREPARE -> r.stage() == Stage.PREPARED || r.stage() == Stage.COMMITTED || r.stage() == Stage.CLEANED;
            case COMMIT -> r.stage() == Stage.COMMITTED || r.stage() == Stage.CLEANED;
            case CLEANUP -> r.stage() == Stage.CLEANED;
            case ABORT -> r.stage() == Stage.ABORTED;
        };
    }

    private static String describe(Delivered d) {
        if (d.command() instanceof WeightCommand w) {
            return "weight epoch " + w.getEpoch();
        }
        MigrationCommand c = (MigrationCommand) d.command();
        return c.getPhase() + " of " + c.getMigrationId();
    }

    private boolean committed(Delivered d) {
        Long o = committedOffsets(d.node()).get(new TopicPartition(d.topic(), d.partition()));
        return o != null && o > d.offset();
    }

    // ------------------------------------------------------------------------------------ rest

    private void rest() throws Exception {
        runOnAfterTheSteps();
        long restFrom = elapsedMillis();
        // no more load, and a target the repair has reached: it ends after its running batch
        stack.set(App.AGENT, "write-load", "0");
        stack.set(App.MIGRATOR, "target-cv", "10");
        CompletableFuture<Integer> agent = CompletableFuture.supplyAsync(() -> stopQuietly(App.AGENT));
        CompletableFuture<Integer> migrator = CompletableFuture.supplyAsync(() -> stopQuietly(App.MIGRATOR));
        agent.join();
        migrator.join();
        CompletableFuture.allOf(CompletableFuture.runAsync(() -> stack.restart(App.AGENT)),
                CompletableFuture.runAsync(() -> stack.restart(App.MIGRATOR))).join();

        long deadline = System.nanoTime() + REST_WAIT.toNanos();
        long quietSince = System.nanoTime();
        int seenCommands = -1;
        while (true) {
            int now = commands.records().size() + weights.records().size();
            if (now != seenCommands) {
                seenCommands = now;
                quietSince = System.nanoTime();
            }
            boolean atRest = System.nanoTime() - quietSince > QUIET.toNanos() && allFinished() && unconsumed().values().stream().allMatch(l -> l == 0);
            if (atRest) {
                break;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(stack.name() + ": the loop did not come to rest within " + REST_WAIT + ": in flight "
                        + inFlight() + ", unconsumed " + unconsumed() + ", unfinished " + unfinished());
            }
            Thread.sleep(200);
        }
        LOG.info("TRIAL {}: at rest {} ms after the rest began", stack.name(), elapsedMillis() - restFrom);
        // the stores can be opened only once the agent service has let go of them
        List<CompletableFuture<Integer>> stops = new ArrayList<>();
        for (App app : App.values()) {
            stops.add(CompletableFuture.supplyAsync(() -> stopQuietly(app)));
        }
        stops.forEach(CompletableFuture::join);
    }

    private int stopQuietly(App app) {
        try {
            return stack.stop(app);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private List<String> unfinished() {
        List<String> open = new ArrayList<>();
        Map<String, Set<MigrationPhase>> phases = new TreeMap<>();
        commands.values().forEach(c -> phases.computeIfAbsent(c.getMigrationId(), id -> EnumSet.noneOf(MigrationPhase.class)).add(c.getPhase()));
        Map<String, Shard> shards = shards();
        phases.forEach((id, p) -> {
            boolean cleaned = answered(id, MigrationPhase.CLEANUP, shards.get(id).source(), StepResult.DONE);
            if (!(p.contains(MigrationPhase.ABORT) || cleaned)) {
                open.add(id);
            }
        });
        Map<Integer, SlotAssignment> latest = new TreeMap<>();
        slots.values().forEach(r -> latest.put(r.getSlot(), r));
        latest.values().stream().filter(r -> r.getInFlightTarget() != null).forEach(r -> open.add("row of slot " + r.getSlot()));
        return open;
    }

    private boolean allFinished() {
        return unfinished().isEmpty();
    }

    /** Per node, the command records its agent group has not committed past. */
    private Map<String, Long> unconsumed() throws Exception {
        Map<String, Long> lag = new TreeMap<>();
        List<Delivered> all = newCommands();
        for (String node : stack.nodes()) {
            Map<TopicPartition, Long> offsets = committedOffsets(node);
            long behind = all.stream().filter(d -> {
                Long o = offsets.get(new TopicPartition(d.topic(), d.partition()));
                return o == null || o <= d.offset();
            }).count();
            lag.put(node, behind);
        }
        return lag;
    }

    // ------------------------------------------------------------------------------------ history

    private TrialHistory history() throws Exception {
        for (Follower<?> f : List.of(alerts, reports, weights, nodeWeights, commands, statuses, slots)) {
            f.awaitCaughtUp(Duration.ofSeconds(30));
        }
        Map<String, AgentState> agents = new TreeMap<>();
        for (String node : stack.nodes()) {
            agents.put(node, stack.appliedState(node));
        }
        Map<String, Map<Integer, Map<String, Long>>> stores = new TreeMap<>();
        Map<String, NodeStore> peers = new ConcurrentHashMap<>();
        List<RocksDbNodeStore> open = new ArrayList<>();
        try {
            for (String node : stack.nodes()) {
                RocksDbNodeStore s = RocksDbNodeStore.open(stack.storeDir(node), node, TrialStack.SLOTS, System::currentTimeMillis, peers::get);
                open.add(s);
                peers.put(node, s);
            }
            for (RocksDbNodeStore s : open) {
                Map<Integer, Map<String, Long>> bySlot = new TreeMap<>();
                for (int slot = 0; slot < TrialStack.SLOTS; slot++) {
                    Map<String, Long> keys = new HashMap<>();
                    for (String key : s.keys(slot)) {
                        s.get(key).ifPresent(v -> keys.put(key, v.version()));
                    }
                    if (!keys.isEmpty()) {
                        bySlot.put(slot, keys);
                    }
                }
                stores.put(s.node(), bySlot);
            }
        } finally {
            open.forEach(RocksDbNodeStore::close);
        }
        var journal = Files.exists(stack.journal()) ? WriteJournal.lastWrites(stack.journal()) : Map.<String, WriteJournal.LastWrite>of();
        return new TrialHistory(TrialStack.CLUSTER, startingTable(), alerts.values(), reports.values(), weights.values(),
                nodeWeights.values(), commands.values(), statuses.values(), slots.values(), agents, stores, journal, unconsumed());
    }

    /**
     * The dead-letter topic, counted by the code of each letter's reason ({@code late}, {@code
     * invalid}, …): not part of the checks (a dead letter is the apps' documented answer to input they
     * refuse), but of the trial's figures.
     */
    private Map<String, Long> deadLetters() {
        Map<String, Object> config = new HashMap<>(stack.broker().clientProperties());
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<String, Long> byReason = new TreeMap<>();
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<>(config,
                new org.apache.kafka.common.serialization.ByteArrayDeserializer(), new org.apache.kafka.common.serialization.ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(stack.topics().dlq(), Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp)) && System.nanoTime() < deadline) {
                for (var r : consumer.poll(Duration.ofMillis(200))) {
                    var h = r.headers().lastHeader(io.skewguard.schemas.DeadLetter.REASON);
                    String reason = h == null ? "(no reason)" : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
                    byReason.merge("dead letters " + reason.split(":", 2)[0], 1L, Long::sum);
                }
            }
        }
        return byReason;
    }

    /** The writers' starting table: the ring of the hosted nodes, as the agent service builds it. */
    private List<List<String>> startingTable() {
        List<Node> ring = stack.nodes().stream().sorted().map(id -> new Node(id, null, 1.0)).toList();
        SlotTable table = SlotTable.fromRing(HashRing.of(ring), Math.min(TrialStack.CANDIDATES, ring.size()), TrialStack.SLOTS);
        List<List<String>> sets = new ArrayList<>();
        for (int slot = 0; slot < TrialStack.SLOTS; slot++) {
            sets.add(table.candidateIds(slot));
        }
        return sets;
    }

    private void closeFollowers() {
        for (Follower<?> f : List.of(alerts, reports, weights, nodeWeights, commands, statuses, slots)) {
            f.close();
        }
    }
}
