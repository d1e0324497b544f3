package io.skewguard.sim.demo;

import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.sim.run.PolicyRun;
import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Series;
import io.skewguard.sim.scenario.ScenarioEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One run of the embedded demo, start to end: starts the {@link EmbeddedStack}, lays down the
 * {@link DemoCluster}'s starting data, steps simulated time at the chosen speed while a
 * {@link LoopObserver} watches the loop, drains (no more writes; time goes on until no migration is
 * in flight and no drain is unfinished), reads every key back, and closes everything in order:
 * writers and reporters, agents, observer, apps, broker, temporary directory.
 *
 * <p><b>Membership events.</b> A {@code join} starts the node in the {@link DemoCluster} at the
 * event's time; a {@code drain} writes what {@code skewguard node drain} writes ({@link DemoOperator})
 * and the migrator does the rest. Both wait for the migrator's first slot table: before it, the
 * table the migrator would build from the ring of the nodes reporting capacity would include the
 * joined node, and the writers' starting table does not.
 *
 * <p>{@link #stop()} (the Ctrl-C hook) asks the loop to end at the next step; {@link #close()} may be
 * called from any thread, is idempotent, and returns once everything is closed.
 */
public final class DemoRun implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DemoRun.class);
    /** Longest wall time the end of a run waits for running migrations. */
    private static final Duration DRAIN = Duration.ofSeconds(60);
    /**
     * Longest wall time the end of a run waits for a requested node drain to be recorded DRAINED: a
     * drained node is the source of one migration per batch (a batch's nodes are disjoint), so its
     * last shards go one batch after the other.
     */
    private static final Duration NODE_DRAINS = Duration.ofSeconds(120);

    private final DemoSettings settings;
    private final Consumer<Progress> progress;
    private final Consumer<EmbeddedStack> started;
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile boolean stopRequested;
    private boolean closing;
    private EmbeddedStack stack;
    private DemoCluster cluster;
    private LoopObserver observer;
    private Admin admin;
    private DemoOperator operator;
    private int nextEvent;
    private final List<ScenarioEvent.Drain> cancels = new ArrayList<>();
    private final List<String> played = new ArrayList<>();
    private final List<String> joined = new ArrayList<>();
    private final Map<String, Boolean> drains = new LinkedHashMap<>();
    private boolean waitNoted;

    /**
     * One progress line's figures; migrations are counted by where they stand now; {@code ending}: the
     * writes have stopped and the run waits for migrations and node drains to finish ("end" instead of
     * the percentage).
     */
    public record Progress(long simulatedMillis, long step, long steps, boolean ending, Double heatGini, double capacityCv,
                           AlertState heat, AlertState capacity, long weightChanges, int weightRounds,
                           int copying, int switching, int cleaningUp, int done, int aborted, long bytesMoved,
                           String membership) {

        /**
         * The line, without a line end (about 140 characters, more with the membership:
         * {@code members 10+1 joined, 1 draining (n3: 4 shards left)}, null when the scenario changes none).
         */
        public String line() {
            long minutes = simulatedMillis / 60_000;
            return String.format(Locale.ROOT,
                    "t+%02d:%02d %s | heat Gini %s %-9s | capacity CV %.3f %-9s | weights changed %d (%d rounds) "
                            + "| migrations copy %d, switch %d, cleanup %d, done %d, aborted %d | moved %s",
                    minutes / 60, minutes % 60, ending ? "  end" : String.format(Locale.ROOT, "%4d%%", 100 * step / Math.max(1, steps)),
                    heatGini == null ? "  -  " : String.format(Locale.ROOT, "%.3f", heatGini), heat, capacityCv, capacity,
                    weightChanges, weightRounds, copying, switching, cleaningUp, done, aborted, DemoReport.bytes(bytesMoved))
                    + (membership == null ? "" : " | " + membership);
        }
    }

    /**
     * @param progress called on the stepping thread after every step
     * @param started called once the broker and the apps run, before the starting data is laid down
     */
    public DemoRun(DemoSettings settings, Consumer<Progress> progress, Consumer<EmbeddedStack> started) {
        this.settings = settings;
        this.progress = progress;
        this.started = started;
    }

    /** Asks the run to end at its next step (the drain and the key check are skipped). */
    public void stop() {
        stopRequested = true;
    }

    /** The stack, once started (for tests: its ports and directories). */
    public synchronized EmbeddedStack stack() {
        return stack;
    }

    /** Runs the scenario; the caller closes this run afterwards. */
    public DemoOutcome run() throws InterruptedException {
        synchronized (this) {
            if (closing) {
                throw new IllegalStateException("the demo is closing");
            }
            stack = EmbeddedStack.start(settings);
        }
        started.accept(stack);
        Path agentDir = stack.workDir().resolve("agents");
        try {
            Files.createDirectories(agentDir);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        long durationMs = settings.scenario().durationMillis();
        long stepMs = settings.stepMillis();
        // simulated time ends an hour before the wall clock: no timestamp is ever in the broker's future
        long start = (System.currentTimeMillis() - durationMs - 3_600_000L) / stepMs * stepMs;
        synchronized (this) {
            if (closing) {
                throw new IllegalStateException("the demo is closing");
            }
            cluster = new DemoCluster(settings, stack.bootstrapServers(), agentDir, start);
            observer = new LoopObserver(DemoSettings.CLUSTER, settings.topics(), settings.clientKeys("demo"), stack.bootstrapServers(),
                    Map.of("schema.registry.url", settings.registryUrl()), settings.applicationId("observer"),
                    cluster::elapsed).start();
            operator = new DemoOperator(DemoSettings.CLUSTER, settings.topics(), settings.clientKeys("demo"), stack.bootstrapServers(),
                    Map.of("schema.registry.url", settings.registryUrl()), settings.applicationId("operator"));
            admin = Admin.create(settings.clientConfig("demo", Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers(),
                    AdminClientConfig.CLIENT_ID_CONFIG, settings.applicationId("observer-admin"))));
        }
        cluster.fill();

        Series series = new Series();
        series.nodes = cluster.nodeIds();
        double[] before = cluster.utilisation();
        series.utilisationBefore = before;
        double baselineCv = cluster.capacityCv();
        double baselineGap = cluster.utilisationGap();
        double minimum = cluster.minimumBytesToMove();
        long steps = durationMs / stepMs;
        long wallStart = System.nanoTime();
        long wallPerStep = settings.wallPerStep().toNanos();
        boolean completed = true;
        for (long i = 1; i <= steps; i++) {
            if (stopRequested) {
                completed = false;
                break;
            }
            cluster.step();
            playEvents();
            sample(series, false, i, steps);
            checkHealthy();
            long wait = wallStart + i * wallPerStep - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
        }
        LoopObserver.View view;
        DemoCluster.KeyCheck keys = null;
        long writesEnd = cluster.now();
        if (completed) {
            // drain: no more writes; time goes on so that running copies finish, batches end and
            // requested node drains complete
            long endStart = System.nanoTime();
            while (!stopRequested && (observer.inFlight() > 0 && System.nanoTime() - endStart < DRAIN.toNanos()
                    || !unfinishedDrains().isEmpty() && System.nanoTime() - endStart < NODE_DRAINS.toNanos())) {
                cluster.idleStep();
                sample(series, true, steps, steps);
                checkHealthy();
                Thread.sleep(Math.max(50, wallPerStep / 1_000_000));
            }
            if (!stopRequested) {
                // the last line shows how the run ended (a drain recorded DRAINED after the last step's line)
                progress(true, steps, steps);
            }
            if (observer.inFlight() > 0) {
                LOG.warn("{} migration(s) still in flight after the drain; keys are read through the source", observer.inFlight());
            }
            if (!unfinishedDrains().isEmpty()) {
                LOG.warn("no DRAINED record for {} by the end of the run", unfinishedDrains());
            }
            if (!observer.awaitCaughtUp(admin, Duration.ofSeconds(30))) {
                throw new IllegalStateException("the observer did not catch up with the loop's topics within 30 s");
            }
            keys = cluster.checkKeys(observer.slotTable());
        }
        double wall = (System.nanoTime() - wallStart) / 1e9;
        view = observer.view();
        series.utilisationAfter = cluster.utilisation();
        PolicySummary summary = summary(baselineCv, baselineGap, minimum, view, keys, wall, completed, writesEnd);
        Map<String, Integer> shards = new LinkedHashMap<>();
        cluster.storedBytes().keySet().forEach(n -> shards.put(n, cluster.shardsHeld(n)));
        return new DemoOutcome(completed, cluster.elapsed(), wall, view.weightCommands(), view.weightRounds(),
                view.committed(), view.aborted(), view.routingEpoch(), view.bytesMoved(), cluster.keysWritten(),
                keys == null ? -1 : keys.unreadable(), keys == null ? List.of() : keys.examples(),
                new PolicyRun(summary, series), played, observer.membership(), observer.slotTable(), shards,
                cluster.storedBytes());
    }

    /**
     * Plays the scenario's membership events that are due: joins start their node, drains and their
     * cancellations write what the operator's command writes. They wait, in order, for the migrator's
     * first slot table (see the class comment).
     */
    private void playEvents() {
        List<ScenarioEvent> events = settings.scenario().events();
        long now = cluster.elapsed();
        while (nextEvent < events.size() && events.get(nextEvent).atMillis() <= now) {
            ScenarioEvent e = events.get(nextEvent);
            if (observer.slotTable().isEmpty()) {
                if (!waitNoted) {
                    LOG.info("event {} waits for the migrator's first slot table", e.name());
                    waitNoted = true;
                }
                return;
            }
            String late = e.atMillis() + settings.stepMillis() <= now
                    ? " (due at " + DemoReport.clock(e.atMillis()) + ": waited for the migrator's first slot table)" : "";
            if (e instanceof ScenarioEvent.Join j) {
                cluster.join(j.node());
                joined.add(j.node().id());
                played.add(DemoReport.clock(now) + " " + j.node().id() + " started with an empty store (event " + e.name() + ")" + late);
            } else if (e instanceof ScenarioEvent.Drain d) {
                cluster.leaving(d.node(), true);
                operator.drain(d.node(), cluster.now());
                drains.put(d.node(), true);
                played.add(DemoReport.clock(now) + " drain of " + d.node() + " requested: DRAINING written as the operator (event "
                        + e.name() + ")" + late);
                if (d.cancelled()) {
                    cancels.add(d);
                }
            }
            nextEvent++;
        }
        for (var it = cancels.iterator(); it.hasNext(); ) {
            ScenarioEvent.Drain d = it.next();
            if (d.cancelAtMillis() <= now) {
                operator.cancelDrain(d.node(), cluster.now());
                cluster.leaving(d.node(), false);
                drains.put(d.node(), false);
                played.add(DemoReport.clock(now) + " drain of " + d.node() + " cancelled: ACTIVE written as the operator (event " + d.name() + ")");
                it.remove();
            }
        }
    }

    /** Nodes whose drain was requested, not cancelled, and has no DRAINED record yet. */
    private List<String> unfinishedDrains() {
        Map<String, LoopObserver.MembershipChange> latest = observer.members();
        List<String> open = new ArrayList<>();
        drains.forEach((node, requested) -> {
            LoopObserver.MembershipChange m = latest.get(node);
            if (requested && (m == null || m.state() != MembershipState.DRAINED)) {
                open.add(node);
            }
        });
        return open;
    }

    /**
     * The membership part of the progress line, from the membership topic and the stores:
     * {@code members 10+1 joined, 1 draining (n3: 4 shards left), n4 drained}; null when the scenario
     * has no membership events.
     */
    private String membershipLine() {
        if (!settings.changesMembership()) {
            return null;
        }
        Map<String, LoopObserver.MembershipChange> latest = observer.members();
        StringBuilder b = new StringBuilder("members ").append(settings.scenario().nodes().size());
        List<String> waiting = new ArrayList<>();
        int taken = 0;
        for (String node : joined) {
            LoopObserver.MembershipChange m = latest.get(node);
            if (m != null && m.state() == MembershipState.ACTIVE) {
                taken++;
            } else if (m == null) {
                waiting.add(node);
            }
        }
        if (taken > 0) {
            b.append('+').append(taken).append(" joined");
        }
        if (!waiting.isEmpty()) {
            b.append(", ").append(String.join(", ", waiting)).append(" joining");
        }
        List<String> draining = new ArrayList<>();
        List<String> drained = new ArrayList<>();
        for (String node : cluster.nodeIds()) {
            LoopObserver.MembershipChange m = latest.get(node);
            if (m != null && m.state() == MembershipState.DRAINING) {
                int left = cluster.shardsHeld(node);
                draining.add(node + ": " + left + (left == 1 ? " shard" : " shards") + " left");
            } else if (m != null && m.state() == MembershipState.DRAINED) {
                drained.add(node);
            }
        }
        if (!draining.isEmpty()) {
            b.append(", ").append(draining.size()).append(" draining (").append(String.join(", ", draining)).append(')');
        }
        for (String node : drained) {
            b.append(", ").append(node).append(" drained");
        }
        return b.toString();
    }


    private void checkHealthy() {
        if (!stack.appsHealthy()) {
            throw new IllegalStateException("an app stopped: " + stack.appStates());
        }
        if (observer.failure() != null) {
            throw new IllegalStateException("the observer stopped: " + observer.failure(), observer.failure());
        }
    }

    private void sample(Series series, boolean draining, long step, long steps) {
        LoopObserver.View v = observer.view();
        Double gini = v.latest() == null ? null : v.latest().heatGini();
        series.day.add(cluster.elapsed() / 86_400_000.0);
        series.heatGini.add(gini == null ? Double.NaN : gini);
        series.capacityCv.add(cluster.capacityCv());
        series.bytesMoved.add((double) v.bytesMoved());
        series.weights.add(cluster.weights());
        progress(draining, step, steps);
    }

    /** One progress line, from what the observer and the stores show now. */
    private void progress(boolean draining, long step, long steps) {
        LoopObserver.View v = observer.view();
        List<SkewAlert> alerts = observer.alerts();
        Double gini = v.latest() == null ? null : v.latest().heatGini();
        progress.accept(new Progress(cluster.elapsed(), step, steps, draining, gini, cluster.capacityCv(),
                LoopObserver.stateOf(alerts, AlertKind.HEAT), LoopObserver.stateOf(alerts, AlertKind.CAPACITY),
                v.weightCommands(), v.weightRounds(), v.copying(), v.switching(), v.cleaningUp(), v.cleaned(), v.aborted(),
                v.bytesMoved(), membershipLine()));
    }

    private PolicySummary summary(double baselineCv, double baselineGap, double minimum, LoopObserver.View view,
                                  DemoCluster.KeyCheck keys, double wall, boolean completed, long writesEnd) {
        List<LoopObserver.ReportPoint> reports = observer.reports();
        List<WeightCommand> commands = observer.weightCommands();
        double repairTarget = settings.scenario().skewguard().repairTarget();
        // heat Gini before weights: the detector's figure when the first round was decided (else the
        // first full window); after: the latest report on a window with writes (the end of a run
        // writes nothing, and a window without writes has a heat Gini of 0)
        long firstRound = commands.isEmpty() ? Long.MAX_VALUE : commands.get(0).getIssuedAt().toEpochMilli();
        long fullWindow = cluster.now() - cluster.elapsed() + settings.windowMillis();
        Double giniBefore = null;
        Double giniAfter = null;
        Double weightPhaseDays = null;
        for (LoopObserver.ReportPoint p : reports) {
            if (p.windowEnd() <= writesEnd) {
                giniAfter = p.heatGini();
            }
            if (p.windowEnd() >= fullWindow && (giniBefore == null || p.windowEnd() <= firstRound)) {
                giniBefore = p.heatGini();
            }
            if (weightPhaseDays == null && p.windowEnd() > firstRound && p.heatGini() <= repairTarget) {
                weightPhaseDays = (p.windowEnd() - firstRound) / 86_400_000.0;
            }
        }
        double finalCv = cluster.capacityCv();
        List<String> notes = new ArrayList<>();
        notes.add(String.format(Locale.ROOT, "embedded demo: real detector, balancer and migrator on Kafka; %d simulated nodes "
                        + "with in-memory stores; 1 stored byte stands for %s", settings.scenario().nodes().size(),
                DemoReport.bytes(cluster.scale())));
        notes.add(String.format(Locale.ROOT, "%d weight rounds; %d migrations committed (routing epoch %d), %d aborted; %s",
                view.weightRounds(), view.committed(), view.routingEpoch(), view.aborted(),
                view.repairMessage() == null ? "no repair status yet" : "migrator: " + view.repairMessage()));
        observer.spreadChanges().forEach(change -> notes.add("slot table: " + change));
        notes.add(view.deadLetters() == 0 ? "no record went to the dead-letter topic"
                : view.deadLetters() + " records went to the dead-letter topic (see " + settings.topics().dlq() + ")");
        if (giniAfter != null && giniAfter > repairTarget) {
            notes.add(String.format(Locale.ROOT, "heat Gini %.3f is still above the repair target %.2f at the end", giniAfter, repairTarget));
        }
        if (keys != null && keys.unreadable() > 0) {
            notes.add(keys.unreadable() + " keys unreadable, e.g. " + keys.examples());
        }
        if (!completed) {
            notes.add("stopped before the end of the scenario; keys not checked");
        }
        if (nextEvent < settings.scenario().events().size()) {
            notes.add("membership: " + (settings.scenario().events().size() - nextEvent)
                    + " event(s) not played: the migrator published no slot table before the end");
        }
        for (String node : unfinishedDrains()) {
            notes.add("membership: no DRAINED record for " + node + " by the end of the run (" + cluster.shardsHeld(node)
                    + " shards left on it)");
        }
        if (cluster.refusedWrites() > 0) {
            notes.add(cluster.refusedWrites() + " writes refused: every candidate of their slot was full");
        }
        return new PolicySummary("skewguard on Kafka", baselineCv, baselineGap, giniBefore == null ? Double.NaN : giniBefore,
                giniAfter, weightPhaseDays, finalCv, cluster.utilisationGap(), finalCv, view.bytesMoved(), minimum,
                minimum > 0 ? view.bytesMoved() / minimum : 0, null, null, null, null, null, view.bytesMoved(), 0,
                cluster.refusedBytes(), view.weightCommands(), cluster.keysWritten(), keys == null ? 0 : keys.unreadable(),
                wall, notes);
    }

    /**
     * Closes in order: writers, reporters and agents; the observer; the apps; the broker; the
     * temporary directory. Idempotent; a second caller waits for the first to finish.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                try {
                    closed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            closing = true;
            stopRequested = true;
        }
        try {
            RuntimeException failure = null;
            if (cluster != null) {
                try {
                    cluster.close();
                } catch (RuntimeException e) {
                    failure = e;
                }
            }
            if (operator != null) {
                operator.close();
            }
            if (observer != null) {
                observer.close();
            }
            if (admin != null) {
                admin.close(Duration.ofSeconds(10));
            }
            if (stack != null) {
                try {
                    stack.close();
                } catch (RuntimeException e) {
                    failure = failure == null ? e : failure;
                }
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            closed.countDown();
        }
    }
}
