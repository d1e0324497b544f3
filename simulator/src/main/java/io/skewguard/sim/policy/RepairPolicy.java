package io.skewguard.sim.policy;

import io.skewguard.sim.model.Cluster;
import io.skewguard.sim.model.ClusterFigures;
import java.util.List;

/**
 * A way of keeping the simulated cluster in balance. Siblings compared on the same scenario and
 * seed: {@link NoRepair}, {@link CephReweight} and SkewGuard's loop. A policy acts only through the
 * cluster's methods (weights, migrations, relocations), which count what moves.
 */
public interface RepairPolicy {

    /** The policy's name in reports: {@code none}, {@code ceph}, {@code skewguard}, {@code skewguard-nospread}. */
    String name();

    /** One step of simulated time at {@code now}, after the step's writes, with the step's figures. */
    void onStep(long now, Cluster cluster, ClusterFigures figures);

    /**
     * A timeline event was just applied to the cluster, at any time (also before {@code repair.from}):
     * for a policy whose placement itself reacts to membership (Ceph's CRUSH), not for repair.
     */
    default void onEvent(long now, io.skewguard.sim.scenario.ScenarioEvent event, Cluster cluster) {
    }

    /**
     * True when the policy's own slot table follows membership (fast mode's migrator): a lost node then
     * stays in the candidate sets until the policy's slot-table update replaces it ({@link Cluster#fail},
     * {@link Cluster#replaceLost}); false: the model replaces it at once ({@link Cluster#lose}).
     */
    default boolean followsMembership() {
        return false;
    }

    /** Migrations running now. */
    int migrationsRunning();

    /**
     * When the weight phase that started at the beginning of repair ended (ms), or -1 when it has not
     * ended or the policy has none.
     */
    long weightPhaseEnd();

    /**
     * True when {@link #weightPhaseEnd()} is the end of a controller's weight phase (its repair reached
     * the target, the deadband or the floor); false when it is just the time of the last weight change.
     */
    default boolean weightPhaseIsControlled() {
        return false;
    }

    /** Plain statements about limits the policy hit (a floor, an unreachable target), for the report. */
    List<String> notes();

    /**
     * Who holds the sampled keys when the policy keeps them itself (fast mode's node stores): readers
     * probe it; empty to read the model's key ledger.
     */
    default java.util.Optional<io.skewguard.sim.model.KeyLedger.Holder> keyHolder() {
        return java.util.Optional.empty();
    }

    /** A policy by name. */
    static RepairPolicy named(String name, io.skewguard.sim.scenario.Scenario scenario) {
        return switch (name) {
            case "none" -> new NoRepair();
            case "ceph" -> new CephReweight(scenario.ceph());
            case "skewguard" -> new SkewGuardLoop(scenario);
            case "skewguard-nospread" -> new SkewGuardLoop(scenario, false);
            default -> throw new IllegalArgumentException("unknown policy '" + name + "'");
        };
    }
}
