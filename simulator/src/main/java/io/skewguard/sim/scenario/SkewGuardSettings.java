package io.skewguard.sim.scenario;

import io.skewguard.migrator.MigratorSettings;

/**
 * SkewGuard's parameters in a scenario; defaults from docs/design.md §6–§8.
 *
 * @param heatThreshold heat-Gini alert threshold (0.40)
 * @param capacityThreshold capacity-CV alert threshold (0.25)
 * @param hysteresis alert clearing margin (0.10)
 * @param cooldownMillis how long a metric must stay above its threshold before CONFIRMED (5 min)
 * @param repairTarget the weight phase ends at or below this heat Gini (0.20)
 * @param migrationTargetCv the planner's target capacity CV (0.10)
 * @param overshoot share of a source's excess it may overshoot by (0.2)
 * @param maxParallel most migrations in one switch batch (disjoint node pairs)
 * @param maxBytesPerSec the cluster's migration bandwidth budget at full speed
 * @param nodeExpiryMillis fast mode: the migrator's {@code node-expiry}, how long a node may send no
 *     capacity report before the migrator takes it as lost (1 d, the app's default: the migrator also
 *     dead-letters an alert whose {@code since} lies more than this behind the latest time it read,
 *     and a capacity alert stays confirmed for most of a day in the shipped scenarios). Model mode
 *     replaces a lost node at once.
 * @param followUpMillis the balancer's {@code follow-up}: after a repair, a heat Gini above the repair
 *     target for this long starts a repair without an alert; 0 = off (the app's default)
 * @param maintenanceFactor the migrator's {@code maintenance-factor}: after a repair, a capacity CV
 *     above this × the larger of the planner's target and the CV the repair ended at, for the
 *     migrator's {@code maintenance-hold}, starts a maintenance repair; 0 = off (the app's default)
 */
public record SkewGuardSettings(
        double heatThreshold,
        double capacityThreshold,
        double hysteresis,
        long cooldownMillis,
        double repairTarget,
        double migrationTargetCv,
        double overshoot,
        int maxParallel,
        long maxBytesPerSec,
        long nodeExpiryMillis,
        long followUpMillis,
        double maintenanceFactor) {

    /** The migrator's own default, read from its settings model so that it is written once. */
    private static final double MIGRATOR_MAINTENANCE_FACTOR =
            MigratorSettings.from(MigratorSettings.MODEL.defaults()).maintenanceFactor();

    public static SkewGuardSettings defaults() {
        return new SkewGuardSettings(0.40, 0.25, 0.10, 300_000L, 0.20, 0.10, 0.2, 16, 2_000_000_000L, 86_400_000L, 0L,
                MIGRATOR_MAINTENANCE_FACTOR);
    }
}
