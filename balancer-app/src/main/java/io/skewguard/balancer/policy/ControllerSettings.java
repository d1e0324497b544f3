package io.skewguard.balancer.policy;

import java.time.Duration;

/**
 * The weight controller's parameters, defaults from docs/design.md §7.
 *
 * @param minWeight lower bound of a weight factor (0.5)
 * @param maxWeight upper bound of a weight factor (2.0)
 * @param maxStep largest relative change of a weight factor in one round (0.05 = ±5 %)
 * @param deadband a node whose load ratio r is within [1 − deadband, 1 + deadband] is left alone
 *     (0.05)
 * @param gain exponent of the proportional step on log-weight, in (0, 0.5]: the step wants
 *     {@code w · r^(−gain)} (0.5; above 0.5 the convergence argument no longer rules out overshoot)
 * @param repairTarget a repair ends once the heat Gini is at or below this (0.20)
 * @param minRoundInterval least event time between two rounds of one cluster (2 minutes)
 * @param decay after a repair, the fraction of log-weight given back toward 1.0 per round; 0 keeps the
 *     weights where the repair left them (0)
 * @param followUp after a repair, how long every report's heat Gini must stay above {@code repairTarget}
 *     before the controller repairs again by itself, without waiting for a HEAT alert; zero = never
 *     (a new repair then needs a CONFIRMED alert)
 */
public record ControllerSettings(
        double minWeight,
        double maxWeight,
        double maxStep,
        double deadband,
        double gain,
        double repairTarget,
        Duration minRoundInterval,
        double decay,
        Duration followUp) {

    public static final double DEFAULT_MIN_WEIGHT = 0.5;
    public static final double DEFAULT_MAX_WEIGHT = 2.0;
    public static final double DEFAULT_MAX_STEP = 0.05;
    public static final double DEFAULT_DEADBAND = 0.05;
    public static final double DEFAULT_GAIN = 0.5;
    public static final double DEFAULT_REPAIR_TARGET = 0.20;
    public static final Duration DEFAULT_MIN_ROUND_INTERVAL = Duration.ofMinutes(2);
    public static final double DEFAULT_DECAY = 0.0;
    public static final Duration DEFAULT_FOLLOW_UP = Duration.ZERO;

    public ControllerSettings {
        if (!(minWeight > 0 && minWeight <= 1.0 && maxWeight >= 1.0 && Double.isFinite(maxWeight))) {
            throw new IllegalArgumentException(
                    "weight bounds must satisfy 0 < min <= 1 <= max, were [" + minWeight + ", " + maxWeight + "]");
        }
        if (!(maxStep > 0 && maxStep < 1)) {
            throw new IllegalArgumentException("max step must be in (0, 1), was " + maxStep);
        }
        if (!(deadband >= 0 && deadband < 1)) {
            throw new IllegalArgumentException("deadband must be in [0, 1), was " + deadband);
        }
        if (!(gain > 0 && gain <= 0.5)) {
            throw new IllegalArgumentException("gain must be in (0, 0.5], was " + gain);
        }
        if (!(repairTarget >= 0 && repairTarget < 1)) {
            throw new IllegalArgumentException("repair target must be in [0, 1), was " + repairTarget);
        }
        if (minRoundInterval == null || minRoundInterval.isNegative()) {
            throw new IllegalArgumentException("min round interval must be >= 0, was " + minRoundInterval);
        }
        if (!(decay >= 0 && decay <= 1)) {
            throw new IllegalArgumentException("decay must be in [0, 1], was " + decay);
        }
        if (followUp == null || followUp.isNegative()) {
            throw new IllegalArgumentException("follow-up must be >= 0, was " + followUp);
        }
    }

    /** Settings without follow-up repairs ({@code followUp} zero). */
    public ControllerSettings(double minWeight, double maxWeight, double maxStep, double deadband, double gain, double repairTarget,
            Duration minRoundInterval, double decay) {
        this(minWeight, maxWeight, maxStep, deadband, gain, repairTarget, minRoundInterval, decay, DEFAULT_FOLLOW_UP);
    }

    /** Whether a repair follows up by itself after a repair ended. */
    public boolean followsUp() {
        return followUp.compareTo(Duration.ZERO) > 0;
    }

    /** The defaults of docs/design.md. */
    public static ControllerSettings defaults() {
        return new ControllerSettings(
                DEFAULT_MIN_WEIGHT,
                DEFAULT_MAX_WEIGHT,
                DEFAULT_MAX_STEP,
                DEFAULT_DEADBAND,
                DEFAULT_GAIN,
                DEFAULT_REPAIR_TARGET,
                DEFAULT_MIN_ROUND_INTERVAL,
                DEFAULT_DECAY,
                DEFAULT_FOLLOW_UP);
    }
}
