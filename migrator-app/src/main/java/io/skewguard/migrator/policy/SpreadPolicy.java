package io.skewguard.migrator.policy;

import io.skewguard.core.slots.SpreadUpdate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntFunction;

/**
 * When a slot spreads over more nodes and when it narrows back (docs/design.md §3.5), decided on each
 * report from the slot heat of the detector's window. Pure: the same state and report give the same
 * decision.
 *
 * <p>A slot's load ratio is {@code ρ = (slot heat / all heat) / (capacity of the nodes writing it /
 * capacity of the cluster)}: how far one slot alone loads its writers against their fair share. At
 * {@code ρ ≥ 1} every writer is over its fair share from this slot alone, and weight factors cannot
 * help, since lowering all of them keeps the slot's split as it is (the balancer's
 * {@code FLOOR_REACHED}). Each writer also takes the writes of the forty-odd other slots whose set
 * holds it, so weights run out well before ρ = 1: at {@code spread-at} (0.5) one slot alone takes half
 * of its writers' fair share, and a spread to {@code spread-target} (0.3) leaves them 70 % of it for
 * the rest.
 *
 * <ul>
 *   <li><b>Spread</b>: ρ over its writers at or above {@code spread-at} for {@code spread-hold} →
 *       the fewest spread nodes (of {@link io.skewguard.core.ring.HashRing#extension}, in that order,
 *       at most {@code spread-max-nodes}) that bring ρ over all its writers to {@code spread-target}
 *       or below. A spread slot that gets hot again the same way widens.
 *   <li><b>Narrow</b>: a spread slot whose ρ over its own writers (without the spread) stays under
 *       {@code narrow-at} for {@code narrow-hold} narrows back: new writes go to its own writers,
 *       its spread nodes keep what they received and serve it (held).
 * </ul>
 *
 * <p>Hysteresis: a slot spreads at ρ ≥ 0.5 and ends at ρ ≤ 0.3 over its writers; it narrows only
 * when its load could be taken by its own writers at under 0.2 of their fair share, for 30
 * minutes, so a slot does not spread and narrow back and forth.
 */
public final class SpreadPolicy {

    private final SpreadRule rule;

    public SpreadPolicy(SpreadRule rule) {
        this.rule = rule;
    }

    public SpreadRule rule() {
        return rule;
    }

    /** The new state and the slots that change, in slot order. */
    public record Decision(SpreadState state, List<SpreadUpdate> updates) {}

    /**
     * Decides on one report.
     *
     * @param state             what was remembered
     * @param reportTime        the report's window end
     * @param totalHeat         bytes written in the window over every slot
     * @param totalCapacity     total bytes of the cluster's live nodes
     * @param slots             every slot with heat, and every spread slot
     * @param extensionCapacity for a slot, the capacities of the nodes that would spread it, in the
     *                          order they would be taken (at most {@code maxExtra}); asked only for
     *                          slots hot for the hold and spread over fewer than {@code maxExtra} nodes
     */
    public Decision decide(SpreadState state, long reportTime, long totalHeat, double totalCapacity, List<SlotLoad> slots,
            IntFunction<double[]> extensionCapacity) {
        if (totalHeat <= 0 || !(totalCapacity > 0)) {
            return new Decision(state, List.of()); // nothing measurable: no decision, nothing forgotten
        }
        Map<Integer, SpreadState.Watch> next = new HashMap<>();
        List<SpreadUpdate> updates = new ArrayList<>();
        List<SlotLoad> inOrder = slots;
        for (int i = 1; i < slots.size() && inOrder == slots; i++) {
            if (slots.get(i - 1).slot() > slots.get(i).slot()) {
                inOrder = slots.stream().sorted((a, b) -> Integer.compare(a.slot(), b.slot())).toList();
            }
        }
        for (SlotLoad s : inOrder) {
            if (!(s.ownCapacity() > 0) || !(s.writersCapacity() > 0)) {
                continue; // writers without a capacity report: not measurable
            }
            double share = (double) s.heat() / totalHeat;
            double rhoOwn = share / (s.ownCapacity() / totalCapacity);
            double rhoNow = share / (s.writersCapacity() / totalCapacity);
            SpreadState.Watch was = state.watch(s.slot());
            boolean hot = rule.enabled() && rhoNow >= rule.spreadAt();
            boolean cool = s.spreadCount() > 0 && rhoOwn < rule.narrowAt();
            long hotSince = hot ? (was.hotSince() != RepairState.NEVER ? was.hotSince() : reportTime) : RepairState.NEVER;
            long coolSince = cool ? (was.coolSince() != RepairState.NEVER ? was.coolSince() : reportTime) : RepairState.NEVER;
            // a slot spread over the most nodes it may have cannot widen: its extension is not asked for
            if (hot && reportTime - hotSince >= rule.spreadHoldMs() && s.spreadCount() < rule.maxExtra()) {
                double[] extension = extensionCapacity.apply(s.slot());
                int extras = extrasFor(share, s.ownCapacity(), totalCapacity, extension);
                if (extras > s.spreadCount()) {
                    double rhoAfter = share / ((s.ownCapacity() + sum(extension, extras)) / totalCapacity);
                    String what = s.spreadCount() == 0 ? String.format(Locale.ROOT, "spread over %d more nodes", extras)
                            : String.format(Locale.ROOT, "widened from %d to %d spread nodes", s.spreadCount(), extras);
                    updates.add(new SpreadUpdate(s.slot(), extras, String.format(Locale.ROOT,
                            "%s: slot %d takes %.1f %% of the writes, %.2f × the capacity share of the nodes writing it "
                                    + "(at or above %.2f for %s); ρ %.2f with them", what, s.slot(), 100 * share, rhoNow,
                            rule.spreadAt(), minutes(reportTime - hotSince), rhoAfter)));
                    hotSince = RepairState.NEVER; // a further widening needs its own hold
                }
            }
            if (cool && reportTime - coolSince >= rule.narrowHoldMs()) {
                updates.add(new SpreadUpdate(s.slot(), 0, String.format(Locale.ROOT,
                        "narrowed: slot %d takes %.1f %% of the writes, %.2f × its own writers' capacity share (under %.2f "
                                + "for %s); new writes go to its candidates, its %d spread nodes keep what they received (held)",
                        s.slot(), 100 * share, rhoOwn, rule.narrowAt(), minutes(reportTime - coolSince), s.spreadCount())));
                coolSince = RepairState.NEVER;
                hotSince = RepairState.NEVER;
            }
            if (hotSince != RepairState.NEVER || coolSince != RepairState.NEVER) {
                next.put(s.slot(), new SpreadState.Watch(hotSince, coolSince));
            }
        }
        return new Decision(new SpreadState(next), updates);
    }

    /** The fewest of {@code extension} that bring ρ to the target; all of them when none do. */
    private int extrasFor(double share, double ownCapacity, double totalCapacity, double[] extension) {
        int limit = Math.min(rule.maxExtra(), extension.length);
        double capacity = ownCapacity;
        for (int k = 1; k <= limit; k++) {
            capacity += extension[k - 1];
            if (share / (capacity / totalCapacity) <= rule.target()) {
                return k;
            }
        }
        return limit;
    }

    private static double sum(double[] values, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += values[i];
        }
        return s;
    }

    private static String minutes(long millis) {
        long m = Math.round(millis / 60_000.0);
        return m >= 60 && m % 60 == 0 ? (m / 60) + "h" : m + "m";
    }
}
