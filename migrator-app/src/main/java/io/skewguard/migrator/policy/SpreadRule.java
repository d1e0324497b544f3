package io.skewguard.migrator.policy;

/**
 * The parameters of {@link SpreadPolicy} (docs/design.md §3.5, docs/migrator.md "Spreading a hot
 * slot"). A slot's load ratio ρ is its share of the window's writes over the capacity share of the
 * nodes writing it.
 *
 * @param enabled      false: no slot is spread (SkewGuard with weights and migrations only); slots
 *                     spread before still narrow back
 * @param spreadAt     a slot whose ρ over its writers stays at or above this for {@code spreadHoldMs}
 *                     is spread (or widened)
 * @param spreadHoldMs report time ρ must stay at or above {@code spreadAt}
 * @param target       a spread takes the fewest spread nodes that bring ρ over all its writers to this
 *                     or below (all {@code maxExtra} when none do)
 * @param maxExtra     most spread nodes of one slot
 * @param narrowAt     a spread slot whose ρ over its own writers (without the spread) stays below this for
 *                     {@code narrowHoldMs} narrows back
 * @param narrowHoldMs report time ρ must stay below {@code narrowAt}
 */
public record SpreadRule(boolean enabled, double spreadAt, long spreadHoldMs, double target, int maxExtra, double narrowAt,
        long narrowHoldMs) {

    /** The defaults: spread at 0.5 for 10 minutes down to 0.3, at most 40 spread nodes, narrow under 0.2 for 30 minutes. */
    public static final SpreadRule DEFAULTS = new SpreadRule(true, 0.5, 600_000, 0.3, 40, 0.2, 1_800_000);

    public SpreadRule {
        if (!(spreadAt > 0) || Double.isInfinite(spreadAt)) {
            throw new IllegalArgumentException("spread-at must be a positive number, was " + spreadAt);
        }
        if (!(target > 0) || target > spreadAt) {
            throw new IllegalArgumentException("spread-target must be positive and at most spread-at (" + spreadAt + "), was " + target);
        }
        if (!(narrowAt >= 0) || narrowAt >= target) {
            throw new IllegalArgumentException("narrow-at must be at least 0 and below spread-target (" + target
                    + ": a slot just spread must not be narrow enough to narrow back), was " + narrowAt);
        }
        if (maxExtra < 1) {
            throw new IllegalArgumentException("spread-max-nodes must be at least 1, was " + maxExtra);
        }
        if (spreadHoldMs < 0 || narrowHoldMs < 0) {
            throw new IllegalArgumentException("hold times must not be negative");
        }
    }
}
