package io.skewguard.sim.demo;

import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.sim.run.PolicyRun;
import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Series;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * in flight), reads every key back, and closes everything in order: writers and reporters, agents,
 * observer, apps, broker, temporary directory.
 *
 * <p>{@link #stop()} (the Ctrl-C hook) asks the loop to end at the next step; {@link #close()} may be
 * called from any thread, is idempotent, and returns once everything is closed.
 */
public final class DemoRun implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DemoRun.class);
    /** Longest wall time the drain waits for running migrations. */
    private static final Duration DRAIN = Duration.ofSeconds(60);

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

    /** One progress line's figures; migrations are counted by where they stand now. */
    public record Progress(long simulatedMillis, long step, long steps, boolean draining, Double heatGini, double capacityCv,
                           AlertState heat, AlertState capacity, long weightChanges, int weightRounds,
                           int copying, int switching, int cleaningUp, int done, int aborted, long bytesMoved) {

        /** The line, without a line end (about 140 characters). */
        public String line() {
            long minutes = simulatedMillis / 60_000;
            return String.format(Locale.ROOT,
                    "t+%02d:%02d %s | heat Gini %s %-9s | capacity CV %.3f %-9s | weights changed %d (%d rounds) "
                            + "| migrations copy %d, switch %d, cleanup %d, done %d, aborted %d | moved %s",
                    minutes / 60, minutes % 60, draining ? "drain" : String.format(Locale.ROOT, "%4d%%", 100 * step / Math.max(1, steps)),
                    heatGini == null ? "  -  " : String.format(Locale.ROOT, "%.3f", heatGini), heat, capacityCv, capacity,
                    weightChanges, weightRounds, copying, switching, cleaningUp, done, aborted, DemoReport.bytes(bytesMoved));
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
            observer = new LoopObserver(DemoSettings.CLUSTER, settings.topics(), stack.bootstrapServers(),
                    Map.of("schema.registry.url", settings.registryUrl()), settings.applicationId("observer")).start();
            admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.bootstrapServers(),
                    AdminClientConfig.CLIENT_ID_CONFIG, settings.applicationId("observer-admin")));
        }
        cluster.fill();

        Series series = new Series();
        series.nodes = cluster.nodeIds();
        double[] before = cluster.utilisation();
        series.utilisationBefore = before;
        double baselineCv = cluster.capacityCv();
        double baselineGap = gap(before);
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
            sample(series, false, i, steps);
            checkHealthy();
            long wait = wallStart + i * wallPerStep - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
            }
        }
        LoopObserver.View view;
        DemoCluster.KeyCheck keys = null;
        if (completed) {
            // drain: no more writes; time goes on so that running copies finish and batches end
            long drainEnd = System.nanoTime() + DRAIN.toNanos();
            while (observer.inFlight() > 0 && System.nanoTime() < drainEnd && !stopRequested) {
                cluster.idleStep();
                sample(series, true, steps, steps);
                checkHealthy();
                Thread.sleep(Math.max(50, wallPerStep / 1_000_000));
            }
            if (observer.inFlight() > 0) {
                LOG.warn("{} migration(s) still in flight after the drain; keys are read through the source", observer.inFlight());
            }
            if (!observer.awaitCaughtUp(admin, Duration.ofSeconds(30))) {
                throw new IllegalStateException("the observer did not catch up with the loop's topics within 30 s");
            }
            keys = cluster.checkKeys(observer.slotTable());
        }
        double wall = (System.nanoTime() - wallStart) / 1e9;
        view = observer.view();
        series.utilisationAfter = cluster.utilisation();
        PolicySummary summary = summary(baselineCv, baselineGap, minimum, view, keys, wall, completed);
        return new DemoOutcome(completed, cluster.elapsed(), wall, view.weightCommands(), view.weightRounds(),
                view.committed(), view.aborted(), view.routingEpoch(), view.bytesMoved(), cluster.keysWritten(),
                keys == null ? -1 : keys.unreadable(), keys == null ? List.of() : keys.examples(),
                new PolicyRun(summary, series));
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
        List<SkewAlert> alerts = observer.alerts();
        double cv = cluster.capacityCv();
        Double gini = v.latest() == null ? null : v.latest().heatGini();
        series.day.add(cluster.elapsed() / 86_400_000.0);
        series.heatGini.add(gini == null ? Double.NaN : gini);
        series.capacityCv.add(cv);
        series.bytesMoved.add((double) v.bytesMoved());
        series.weights.add(cluster.weights());
        progress.accept(new Progress(cluster.elapsed(), step, steps, draining, gini, cv,
                LoopObserver.stateOf(alerts, AlertKind.HEAT), LoopObserver.stateOf(alerts, AlertKind.CAPACITY),
                v.weightCommands(), v.weightRounds(), v.copying(), v.switching(), v.cleaningUp(), v.cleaned(), v.aborted(),
                v.bytesMoved()));
    }

    private PolicySummary summary(double baselineCv, double baselineGap, double minimum, LoopObserver.View view,
                                  DemoCluster.KeyCheck keys, double wall, boolean completed) {
        List<LoopObserver.ReportPoint> reports = observer.reports();
        List<WeightCommand> commands = observer.weightCommands();
        double repairTarget = settings.scenario().skewguard().repairTarget();
        // heat Gini before weights: the detector's figure when the first round was decided (else the
        // first full window); after: the latest report
        long firstRound = commands.isEmpty() ? Long.MAX_VALUE : commands.get(0).getIssuedAt().toEpochMilli();
        long fullWindow = cluster.now() - cluster.elapsed() + settings.windowMillis();
        Double giniBefore = null;
        Double giniAfter = reports.isEmpty() ? null : reports.get(reports.size() - 1).heatGini();
        Double weightPhaseDays = null;
        for (LoopObserver.ReportPoint p : reports) {
            if (p.windowEnd() >= fullWindow && (giniBefore == null || p.windowEnd() <= firstRound)) {
                giniBefore = p.heatGini();
            }
            if (weightPhaseDays == null && p.windowEnd() > firstRound && p.heatGini() <= repairTarget) {
                weightPhaseDays = (p.windowEnd() - firstRound) / 86_400_000.0;
            }
        }
        double[] after = cluster.utilisation();
        double finalCv = cluster.capacityCv();
        List<String> notes = new ArrayList<>();
        notes.add(String.format(Locale.ROOT, "embedded demo: real detector, balancer and migrator on Kafka; %d simulated nodes "
                        + "with in-memory stores; 1 stored byte stands for %s", settings.scenario().nodes().size(),
                DemoReport.bytes(cluster.scale())));
        notes.add(String.format(Locale.ROOT, "%d weight rounds; %d migrations committed (routing epoch %d), %d aborted; %s",
                view.weightRounds(), view.committed(), view.routingEpoch(), view.aborted(),
                view.repairMessage() == null ? "no repair status yet" : "migrator: " + view.repairMessage()));
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
        if (cluster.refusedWrites() > 0) {
            notes.add(cluster.refusedWrites() + " writes refused: every candidate of their slot was full");
        }
        return new PolicySummary("skewguard on Kafka", baselineCv, baselineGap, giniBefore == null ? Double.NaN : giniBefore,
                giniAfter, weightPhaseDays, finalCv, gap(after), finalCv, view.bytesMoved(), minimum,
                minimum > 0 ? view.bytesMoved() / minimum : 0, null, null, null, null, null, view.bytesMoved(), 0,
                cluster.refusedBytes(), view.weightCommands(), cluster.keysWritten(), keys == null ? 0 : keys.unreadable(),
                wall, notes);
    }

    private static double gap(double[] u) {
        double lo = Double.MAX_VALUE;
        double hi = -Double.MAX_VALUE;
        for (double v : u) {
            lo = Math.min(lo, v);
            hi = Math.max(hi, v);
        }
        return u.length == 0 ? 0 : hi - lo;
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
