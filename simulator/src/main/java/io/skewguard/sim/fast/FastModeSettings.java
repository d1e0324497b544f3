package io.skewguard.sim.fast;

import io.skewguard.balancer.BalancerSettings;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.SkewGuardSettings;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The three apps' settings for a scenario in fast mode: the scenario's SkewGuard parameters, every
 * clock in simulated time (event time for the detector and the balancer, the drivers' wall clock
 * for the migrator), one detector tick and window per simulation step — the simulation writes a
 * step's bytes at once, so a report per step is all there is to see — and grace 0 (no event is
 * ever late). Everything else is the apps' defaults.
 */
final class FastModeSettings {

    static final String CLUSTER = "sim";

    private FastModeSettings() {}

    static DetectorSettings detector(Scenario scenario, Path stateDir) {
        SkewGuardSettings sg = scenario.skewguard();
        long step = scenario.stepMillis();
        Map<String, String> f = new LinkedHashMap<>();
        f.put(DetectorSettings.APPLICATION_ID, "skewguard-sim-detector");
        f.put(DetectorSettings.TICK, step + "ms");
        f.put(DetectorSettings.WINDOW, step + "ms");
        f.put(DetectorSettings.GRACE, "0ms");
        f.put(DetectorSettings.COOLDOWN, sg.cooldownMillis() + "ms");
        f.put(DetectorSettings.HEAT_THRESHOLD, Double.toString(sg.heatThreshold()));
        f.put(DetectorSettings.CAPACITY_THRESHOLD, Double.toString(sg.capacityThreshold()));
        f.put(DetectorSettings.HYSTERESIS, Double.toString(sg.hysteresis()));
        f.put(DetectorSettings.NODE_EXPIRY, Math.max(600_000L, 10 * step) + "ms");
        f.put(DetectorSettings.MAX_SLOTS, Integer.toString(Math.max(4096, scenario.slots())));
        f.put(DetectorSettings.CLUSTERS, CLUSTER);
        f.put(DetectorSettings.STATE_DIR, stateDir.toString());
        return DetectorSettings.load(new Properties(), Map.of(), f);
    }

    static BalancerSettings balancer(Scenario scenario, String registryUrl, Path stateDir) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("schema-registry-url", registryUrl);
        f.put("application-id", "skewguard-sim-balancer");
        f.put("clusters", CLUSTER);
        f.put("repair-target", Double.toString(scenario.skewguard().repairTarget()));
        f.put("round-interval", scenario.stepMillis() + "ms");
        f.put("state-dir", stateDir.toString());
        return BalancerSettings.resolve(new Properties(), Map.of(), f);
    }

    /** Timeouts as the model loop's: a copy may stall 10 minutes or 3 steps, a switch step 1 minute or 2 steps. */
    static MigratorSettings migrator(Scenario scenario, String registryUrl, Path stateDir) {
        SkewGuardSettings sg = scenario.skewguard();
        long step = scenario.stepMillis();
        long stepTimeout = Math.max(60_000L, 2 * step);
        Map<String, String> v = new LinkedHashMap<>();
        v.put("schema-registry-url", registryUrl);
        v.put("application-id", "skewguard-sim-migrator");
        v.put("state-dir", stateDir.toString());
        v.put("target-cv", Double.toString(sg.migrationTargetCv()));
        v.put("overshoot", Double.toString(sg.overshoot()));
        v.put("max-parallel", Integer.toString(sg.maxParallel()));
        v.put("max-bytes-per-sec", Long.toString(sg.maxBytesPerSec()));
        v.put("copy-stall-timeout", Long.toString(Math.max(10 * 60_000L, 3 * step)));
        v.put("prepare-timeout", Long.toString(stepTimeout));
        v.put("retry-interval", Long.toString(stepTimeout));
        v.put("abort-timeout", Long.toString(stepTimeout));
        v.put("tick-interval", Long.toString(step));
        v.put("slot-count", Integer.toString(scenario.slots()));
        v.put("candidates", Integer.toString(scenario.candidates()));
        v.put("vnodes-per-unit", Integer.toString(scenario.vnodesPerUnit()));
        return MigratorSettings.from(v);
    }
}
