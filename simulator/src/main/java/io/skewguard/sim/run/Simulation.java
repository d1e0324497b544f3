package io.skewguard.sim.run;

import io.skewguard.sim.fast.FastSkewGuard;
import io.skewguard.sim.model.Cluster;
import io.skewguard.sim.model.ClusterFigures;
import io.skewguard.sim.policy.RepairPolicy;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.ScenarioEvent;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one policy over one scenario, step by step in simulated time, and measures it.
 *
 * <p>Each step: the timeline's events due by then, then {@code rate × step} bytes of writes (rate =
 * {@code perDay × (1 + growth)^days × (1 + a·sin(2π·days))}) and the step's share of sampled keys,
 * then the figures ({@link ClusterFigures}), then — from {@code repair.from} on — the policy. No
 * policy acts before {@code repair.from}, so every policy starts its repair from the same cluster.
 *
 * <p>What is measured, and why: the capacity CV and max−min gap when repair may start (the skew the
 * policies face), the heat Gini before and after the weight phase (how far steering writes alone
 * goes), the capacity CV and gap at the end of the repair phase (how far moving data goes), the
 * bytes moved against the minimum any policy had to move (Σ positive excess above the target
 * utilisation — the cost), the minutes until the heat Gini is back under 0.25 after a hot spot (the
 * reaction), and whether every sampled key is still readable (the safety).
 */
public final class Simulation {

    private static final Logger LOG = LoggerFactory.getLogger(Simulation.class);
    private static final long DAY = 86_400_000L;
    private static final long HOUR = 3_600_000L;
    /** docs/design.md §10: the hot spot counts as recovered when the heat Gini is back under this. */
    public static final double HOTSPOT_RECOVERED = 0.25;
    /** The hot spot counts as absorbed when the heat Gini is back within this of its mean over the hour before. */
    public static final double SETTLED_MARGIN = 0.02;
    /**
     * A recovery counts from the first step of a stretch of at least 30 simulated minutes that stays
     * under the level: one noisy step under it is not a recovery.
     */
    public static final long SUSTAINED = 30 * 60_000L;

    private Simulation() {}

    /** Runs {@code policyName} over {@code scenario} in model mode; {@code progress} gets one call per simulated day. */
    public static PolicyRun run(Scenario scenario, String policyName, Consumer<Progress> progress) {
        return run(scenario, policyName, SimulationMode.MODEL, progress);
    }

    /**
     * Runs {@code policyName} over {@code scenario}; in {@link SimulationMode#FAST} the
     * {@code skewguard} and {@code skewguard-nospread} policies are the apps' topologies and agents
     * ({@link FastSkewGuard}), the others are the same in both modes. {@code progress} gets one call per simulated day.
     */
    public static PolicyRun run(Scenario scenario, String policyName, SimulationMode mode, Consumer<Progress> progress) {
        refuseDrains(scenario);
        long started = System.nanoTime();
        Cluster cluster = new Cluster(scenario);
        RepairPolicy policy = mode == SimulationMode.FAST && policyName.startsWith("skewguard")
                ? new FastSkewGuard(scenario, !policyName.equals("skewguard-nospread"))
                : RepairPolicy.named(policyName, scenario);
        try {
            return run(scenario, cluster, policy, started, progress);
        } finally {
            if (policy instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception e) {
                    LOG.warn("closing policy {} failed: {}", policyName, e.toString());
                }
            }
        }
    }

    /**
     * The simulator's cluster model has no membership topic and no read-only candidates, so it cannot
     * play a planned drain; it says so rather than running the scenario as if the drain were not there.
     */
    private static void refuseDrains(Scenario scenario) {
        for (ScenarioEvent e : scenario.events()) {
            if (e instanceof ScenarioEvent.Drain d) {
                throw new IllegalArgumentException("scenario '" + scenario.name() + "' has a drain event ('" + d.name()
                        + "', node " + d.node() + "): the simulator does not play planned drains; "
                        + "`skewguard demo --scenario FILE` plays them against the real migrator");
            }
        }
    }

    private static PolicyRun run(Scenario scenario, Cluster cluster, RepairPolicy policy, long started,
            Consumer<Progress> progress) {
        Series series = new Series();
        boolean controllerDriven = policy.weightPhaseIsControlled();
        List<ScenarioEvent> events = scenario.events();
        ScenarioEvent.HotSpot hotspot = scenario.firstHotSpot();
        long hotspotAt = hotspot == null ? -1 : hotspot.atMillis();
        long step = scenario.stepMillis();
        long sampleEvery = Math.max(step, HOUR);
        int nextEvent = 0;
        int keysLeft = scenario.probeKeys() - scenario.probeKeys() / 2;
        long steps = scenario.durationMillis() / step;
        double keysPerStep = (double) keysLeft / Math.max(1, steps);
        double keyCarry = 0;

        ClusterFigures baseline = null;
        double minimumBytes = 0;
        ClusterFigures repairEnd = null;
        double movedAtRepairEnd = 0;
        Double giniAfterWeights = null;
        Double weightPhaseDays = null;
        double hotspotPeak = -1;
        Double recoveryMinutes = null;
        double movedAtHotspot = 0;
        ClusterFigures last = null;
        double joinedSpreadAtRepairEnd = Double.NaN;
        long lastChangeAtRepairEnd = -1;
        double movedAtRepairStart = 0;
        double giniHourBefore = 0;
        int stepsHourBefore = 0;
        Double settleMinutes = null;
        Double recoveryBytes = null;
        double movedAtRecoveryStart = 0;
        long recoveredSince = -1;
        boolean wentAbove = false;
        boolean wentAboveLevel = false;
        long settledSince = -1;

        for (long i = 0; i < steps; i++) {
            long now = i * step;
            while (nextEvent < events.size() && events.get(nextEvent).atMillis() <= now) {
                ScenarioEvent e = events.get(nextEvent++);
                LOG.info("day {}: {}", String.format("%.2f", now / (double) DAY), e);
                if (e == hotspot && repairEnd == null) {
                    repairEnd = last;
                    joinedSpreadAtRepairEnd = cluster.joinedUtilisationSpread();
                    lastChangeAtRepairEnd = policy.weightPhaseEnd();
                    movedAtRepairEnd = cluster.bytesMoved();
                    movedAtHotspot = cluster.bytesMoved();
                }
                if (e instanceof ScenarioEvent.Loss loss && policy.followsMembership()) {
                    cluster.fail(loss.node()); // the policy's slot-table update replaces it
                } else {
                    cluster.apply(e);
                }
                policy.onEvent(now, e, cluster);
            }
            double days = now / (double) DAY;
            double rate = scenario.writes().bytesPerDay() * Math.pow(1 + scenario.writes().growthPerDay(), days)
                    * (1 + scenario.writes().diurnalAmplitude() * Math.sin(2 * Math.PI * days));
            cluster.write(rate * step / DAY, true);
            keyCarry += keysPerStep;
            int keys = (int) keyCarry;
            keyCarry -= keys;
            if (keys > 0) {
                cluster.writeKeys(keys);
            }
            ClusterFigures figures = cluster.figures();
            if (now >= scenario.repairFromMillis()) {
                if (baseline == null) {
                    baseline = figures;
                    movedAtRepairStart = cluster.bytesMoved();
                    minimumBytes = figures.minimumBytes();
                    series.utilisationBefore = utilisation(cluster);
                }
                policy.onStep(now, cluster, figures);
                if (controllerDriven && giniAfterWeights == null && policy.weightPhaseEnd() >= 0 && (hotspotAt < 0 || now < hotspotAt)) {
                    giniAfterWeights = figures.heatGini();
                    weightPhaseDays = (policy.weightPhaseEnd() - scenario.repairFromMillis()) / (double) DAY;
                }
            }
            if (hotspotAt >= 0 && now < hotspotAt && now >= hotspotAt - HOUR) {
                giniHourBefore += figures.heatGini();
                stepsHourBefore++;
            }
            if (hotspotAt >= 0 && now >= hotspotAt) {
                hotspotPeak = Math.max(hotspotPeak, figures.heatGini());
                double level = giniHourBefore / Math.max(1, stepsHourBefore) + SETTLED_MARGIN;
                if (now > hotspotAt) {
                    recoveredSince = figures.heatGini() < HOTSPOT_RECOVERED ? (recoveredSince < 0 ? now : recoveredSince) : -1;
                    settledSince = figures.heatGini() <= level ? (settledSince < 0 ? now : settledSince) : -1;
                }
                wentAbove |= now > hotspotAt && figures.heatGini() >= HOTSPOT_RECOVERED;
                wentAboveLevel |= now > hotspotAt && figures.heatGini() > level;
                // a Gini that never went above the level had nothing to recover from: 0 minutes
                if (recoveryMinutes == null && recoveredSince >= 0 && now - recoveredSince >= SUSTAINED) {
                    recoveryMinutes = wentAbove ? (recoveredSince - hotspotAt) / 60_000.0 : 0.0;
                    recoveryBytes = (wentAbove ? movedAtRecoveryStart : movedAtHotspot) - movedAtHotspot;
                }
                if (recoveredSince == now) {
                    movedAtRecoveryStart = cluster.bytesMoved();
                }
                if (settleMinutes == null && settledSince >= 0 && now - settledSince >= SUSTAINED) {
                    settleMinutes = wentAboveLevel ? (settledSince - hotspotAt) / 60_000.0 : 0.0;
                }
            }
            boolean nearHotspot = hotspotAt >= 0 && now >= hotspotAt - HOUR && now <= hotspotAt + 6 * HOUR;
            if (now % sampleEvery == 0 || nearHotspot) {
                series.add(days, figures.heatGini(), figures.capacityCv(), cluster.bytesMoved(), weights(cluster));
            }
            if (now % DAY == 0) {
                progress.accept(new Progress(policy.name(), days, figures.heatGini(), figures.capacityCv(),
                        cluster.weightChanges(), policy.migrationsRunning(), cluster.bytesMoved()));
            }
            last = figures;
        }
        if (baseline == null) {
            baseline = last;
            minimumBytes = last.minimumBytes();
            series.utilisationBefore = utilisation(cluster);
        }
        if (repairEnd == null) {
            repairEnd = last;
            joinedSpreadAtRepairEnd = cluster.joinedUtilisationSpread();
            movedAtRepairEnd = cluster.bytesMoved();
            lastChangeAtRepairEnd = policy.weightPhaseEnd();
        }
        if (!controllerDriven) {
            // no controller that ends a weight phase: the Gini the policy left at the end of the repair
            // phase, and the day of its last weight change
            giniAfterWeights = repairEnd.heatGini();
            long lastChange = lastChangeAtRepairEnd;
            weightPhaseDays = lastChange >= 0 ? (lastChange - scenario.repairFromMillis()) / (double) DAY : null;
        }
        series.utilisationAfter = utilisation(cluster);
        series.nodes = cluster.nodes().ids();
        int[] probes = policy.keyHolder().map(h -> cluster.keys().probesOf(cluster, h))
                .orElseGet(() -> cluster.keys().probesOf(cluster));
        long unreadable = java.util.Arrays.stream(probes).filter(p -> p == 0).count();
        ReadProbes[] byKind = ReadProbes.split(probes, id -> cluster.isSpreadOrHeld(cluster.keys().slotOf(cluster, id)));
        double wall = (System.nanoTime() - started) / 1e9;
        double moved = movedAtRepairEnd - movedAtRepairStart;
        PolicySummary summary = new PolicySummary(
                policy.name(),
                baseline.capacityCv(),
                baseline.gap(),
                baseline.heatGini(),
                giniAfterWeights,
                weightPhaseDays,
                repairEnd.capacityCv(),
                repairEnd.gap(),
                last.capacityCv(),
                moved,
                minimumBytes,
                minimumBytes > 0 ? moved / minimumBytes : 0,
                hotspotAt >= 0 ? hotspotPeak : null,
                hotspotAt >= 0 && stepsHourBefore > 0 ? giniHourBefore / stepsHourBefore : null,
                recoveryMinutes,
                settleMinutes,
                hotspotAt >= 0 ? cluster.bytesMoved() - movedAtHotspot : null,
                recoveryBytes,
                cluster.bytesMoved(),
                cluster.recoveryBytes(),
                cluster.rejectedBytes(),
                Double.isNaN(joinedSpreadAtRepairEnd) ? null : joinedSpreadAtRepairEnd,
                cluster.reroutedFromLostBytes(),
                cluster.routedToLostAfterUpdateBytes(),
                cluster.weightChanges(),
                cluster.keys().written(),
                unreadable,
                byKind[0],
                byKind[1],
                wall,
                policy.notes());
        return new PolicyRun(summary, series);
    }

    private static double[] utilisation(Cluster cluster) {
        double[] u = new double[cluster.maxNodes()];
        for (int i = 0; i < u.length; i++) {
            u[i] = cluster.alive(i) ? cluster.utilisation(i) : Double.NaN;
        }
        return u;
    }

    private static double[] weights(Cluster cluster) {
        double[] w = new double[cluster.maxNodes()];
        for (int i = 0; i < w.length; i++) {
            w[i] = cluster.alive(i) ? cluster.weight(i) : Double.NaN;
        }
        return w;
    }
}
