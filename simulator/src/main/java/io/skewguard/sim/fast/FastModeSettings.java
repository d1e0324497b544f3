package io.skewguard.sim.fast;

import io.skewguard.balancer.BalancerSettings;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Durations;
import io.skewguard.sim.scenario.Scenario;
import io.skewguard.sim.scenario.SkewGuardSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

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
        f.put(CommonSettings.APPLICATION_ID, "skewguard-sim-detector");
        f.put(DetectorSettings.TICK, ms(step));
        f.put(DetectorSettings.WINDOW, ms(step));
        f.put(DetectorSettings.GRACE, "0");
        f.put(DetectorSettings.COOLDOWN, ms(sg.cooldownMillis()));
        f.put(DetectorSettings.HEAT_THRESHOLD, Double.toString(sg.heatThreshold()));
        f.put(DetectorSettings.CAPACITY_THRESHOLD, Double.toString(sg.capacityThreshold()));
        f.put(DetectorSettings.HYSTERESIS, Double.toString(sg.hysteresis()));
        f.put(DetectorSettings.NODE_EXPIRY, ms(Math.max(600_000L, 10 * step)));
        f.put(DetectorSettings.MAX_SLOTS, Integer.toString(Math.max(4096, scenario.slots())));
        f.put(CommonSettings.CLUSTERS, CLUSTER);
        f.put(CommonSettings.STATE_DIR, stateDir.toString());
        return DetectorSettings.of(f);
    }

    static BalancerSettings balancer(Scenario scenario, String registryUrl, Path stateDir) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put(CommonSettings.SCHEMA_REGISTRY_URL, registryUrl);
        f.put(CommonSettings.APPLICATION_ID, "skewguard-sim-balancer");
        f.put(CommonSettings.CLUSTERS, CLUSTER);
        f.put(BalancerSettings.REPAIR_TARGET, Double.toString(scenario.skewguard().repairTarget()));
        f.put(BalancerSettings.ROUND_INTERVAL, ms(scenario.stepMillis()));
        f.put(BalancerSettings.FOLLOW_UP, ms(scenario.skewguard().followUpMillis()));
        f.put(CommonSettings.STATE_DIR, stateDir.toString());
        return BalancerSettings.of(f);
    }

    /** Timeouts as the model loop's: a copy may stall 10 minutes or 3 steps, a switch step 1 minute or 2 steps. */
    static MigratorSettings migrator(Scenario scenario, String registryUrl, Path stateDir) {
        return migrator(scenario, registryUrl, stateDir, true);
    }

    /** As above; {@code spread} false turns the migrator's spread rule off ({@code skewguard-nospread}). */
    static MigratorSettings migrator(Scenario scenario, String registryUrl, Path stateDir, boolean spread) {
        SkewGuardSettings sg = scenario.skewguard();
        long step = scenario.stepMillis();
        long stepTimeout = Math.max(60_000L, 2 * step);
        Map<String, String> v = new LinkedHashMap<>();
        v.put(CommonSettings.SCHEMA_REGISTRY_URL, registryUrl);
        v.put(CommonSettings.APPLICATION_ID, "skewguard-sim-migrator");
        v.put(CommonSettings.STATE_DIR, stateDir.toString());
        v.put(MigratorSettings.TARGET_CV, Double.toString(sg.migrationTargetCv()));
        v.put(MigratorSettings.OVERSHOOT, Double.toString(sg.overshoot()));
        v.put(MigratorSettings.MAX_PARALLEL, Integer.toString(sg.maxParallel()));
        v.put(MigratorSettings.MAX_BYTES_PER_SEC, Long.toString(sg.maxBytesPerSec()));
        v.put(MigratorSettings.MAINTENANCE_FACTOR, Double.toString(sg.maintenanceFactor()));
        v.put(MigratorSettings.COPY_STALL_TIMEOUT, ms(Math.max(10 * 60_000L, 3 * step)));
        v.put(MigratorSettings.PREPARE_TIMEOUT, ms(stepTimeout));
        v.put(MigratorSettings.RETRY_INTERVAL, ms(stepTimeout));
        v.put(MigratorSettings.ABORT_TIMEOUT, ms(stepTimeout));
        v.put(MigratorSettings.TICK_INTERVAL, ms(step));
        v.put(MigratorSettings.SLOT_COUNT, Integer.toString(scenario.slots()));
        v.put(MigratorSettings.CANDIDATES, Integer.toString(scenario.candidates()));
        v.put(MigratorSettings.VNODES_PER_UNIT, Integer.toString(scenario.vnodesPerUnit()));
        // a node silent this long is taken as lost (simulated time: the drivers' wall clock)
        v.put(CommonSettings.NODE_EXPIRY, ms(sg.nodeExpiryMillis()));
        v.put("spread", Boolean.toString(spread));
        return MigratorSettings.of(v);
    }

    private static String ms(long millis) {
        return Durations.format(Duration.ofMillis(millis));
    }
}
