package io.skewguard.balancer.policy;

/** What the controller did with one report. Only {@link #ADJUSTED} and {@link #DECAYED} open a new epoch. */
public enum RoundOutcome {
    /** No repair runs and weights do not decay: nothing to do. */
    IDLE,
    /** Less than the minimum round interval since the last round: the report is only watched. */
    TOO_SOON,
    /** A round changed weights: new epoch. */
    ADJUSTED,
    /** The heat Gini is at or below the repair target: the repair ends, weights stay. */
    TARGET_REACHED,
    /** Every node's load ratio is inside the deadband: the repair ends, weights stay. */
    INSIDE_DEADBAND,
    /**
     * Every node outside the deadband already sits at the bound it pushes against (or, after many
     * reversals, its halved gain no longer moves it by 0.01 %): weights alone cannot do more. No new
     * epoch; the repair stays armed and resumes if the load shifts.
     */
    FLOOR_REACHED,
    /**
     * No node has both a capacity report and heat in the window, so no load ratio can be computed:
     * the repair stays armed and waits for figures.
     */
    UNMEASURABLE,
    /**
     * Every node outside the deadband that could still move is excluded by an operator (its weight
     * stays as it is): no epoch; the repair stays armed.
     */
    EXCLUDED,
    /** After a repair, weights moved back toward 1.0 (only with decay configured): new epoch. */
    DECAYED;

    /** Whether this outcome writes a new weight-table epoch. */
    public boolean opensEpoch() {
        return this == ADJUSTED || this == DECAYED;
    }
}
