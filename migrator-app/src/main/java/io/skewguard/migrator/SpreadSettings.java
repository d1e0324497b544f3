package io.skewguard.migrator;

import io.skewguard.migrator.policy.SpreadRule;
import io.skewguard.runtime.settings.Setting;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.Validator;
import java.util.List;

/**
 * The migrator's settings of spreading a hot slot (docs/design.md §3.5): declared here, added to
 * {@link MigratorSettings#MODEL}, read into a {@link SpreadRule}.
 */
final class SpreadSettings {

    static final String SPREAD = "spread";
    static final String SPREAD_AT = "spread-at";
    static final String SPREAD_HOLD = "spread-hold";
    static final String SPREAD_TARGET = "spread-target";
    static final String SPREAD_MAX_NODES = "spread-max-nodes";
    static final String NARROW_AT = "narrow-at";
    static final String NARROW_HOLD = "narrow-hold";

    private SpreadSettings() {}

    /** The settings, with the defaults of {@link SpreadRule#DEFAULTS}. */
    static final List<Setting> SETTINGS = List.of(
            Setting.bool(SPREAD, SpreadRule.DEFAULTS.enabled(),
                    "Spread a hot slot over more nodes, moving no data: a slot whose share of the window's writes over the "
                            + "capacity share of the nodes writing it (its load ratio) stays at or above spread-at for "
                            + "spread-hold gets spread nodes that take its new writes besides its candidates (one routing "
                            + "epoch, docs/design.md §3.5); false: weights and migrations only (slots spread before still narrow)."),
            Setting.number(SPREAD_AT, SpreadRule.DEFAULTS.spreadAt(), "Load ratio at or above which a slot spreads (or widens).")
                    .validatedBy(Validator.of("a positive number", v -> (Double) v > 0 && !Double.isInfinite((Double) v))),
            Setting.duration(SPREAD_HOLD, "10m", "Report time the load ratio must stay at or above spread-at before a slot spreads; longer "
                            + "than the detector's cooldown, so that a slot hot enough to raise the heat alert lets the weight phase start first.")
                    .validatedBy(Validator.notNegative()),
            Setting.number(SPREAD_TARGET, SpreadRule.DEFAULTS.target(),
                            "A spread takes the fewest spread nodes that bring the slot's load ratio over all its writers to this "
                                    + "or below (at most spread-max-nodes); positive, at most spread-at.")
                    .validatedBy(Validator.of("a positive number", v -> (Double) v > 0)),
            Setting.integer(SPREAD_MAX_NODES, SpreadRule.DEFAULTS.maxExtra(), "Most spread nodes of one slot.")
                    .validatedBy(Validator.atLeast(1)),
            Setting.number(NARROW_AT, SpreadRule.DEFAULTS.narrowAt(),
                            "A spread slot whose load ratio over its own writers (without the spread) stays below this for "
                                    + "narrow-hold narrows back: new writes go to its candidates, the spread nodes keep what they "
                                    + "received and serve it; below spread-target.")
                    .validatedBy(Validator.notNegative()),
            Setting.duration(NARROW_HOLD, "30m", "Report time the load ratio must stay below narrow-at before a slot narrows back.")
                    .validatedBy(Validator.notNegative()));

    /** The rule the resolved settings give; the rules that span settings are {@link SpreadRule}'s. */
    static SpreadRule rule(Settings s) {
        return new SpreadRule(s.bool(SPREAD), s.number(SPREAD_AT), s.duration(SPREAD_HOLD).toMillis(), s.number(SPREAD_TARGET),
                s.integer(SPREAD_MAX_NODES), s.number(NARROW_AT), s.duration(NARROW_HOLD).toMillis());
    }
}
