package io.skewguard.migrator.policy;

import java.util.Map;
import java.util.TreeMap;

/**
 * What {@link SpreadPolicy} remembers of one cluster between reports (the {@code spread} store, JSON):
 * per slot that is hot or cooling, the report time it became so. Slots that are neither are not kept,
 * so the state holds a few slots, not S.
 *
 * @param slots slot → its watch
 */
public record SpreadState(Map<Integer, Watch> slots) {

    /**
     * @param hotSince  report time from which ρ over the slot's writers has stayed at or above spread-at,
     *                  {@link RepairState#NEVER} if it is not
     * @param coolSince report time from which ρ over its own writers has stayed below narrow-at while spread,
     *                  {@link RepairState#NEVER} if it has not
     */
    public record Watch(long hotSince, long coolSince) {}

    public SpreadState {
        slots = Map.copyOf(slots == null ? Map.of() : slots);
    }

    /** Nothing watched. */
    public static SpreadState empty() {
        return new SpreadState(Map.of());
    }

    /** The watch of {@code slot}: both times {@link RepairState#NEVER} when it is not watched. */
    public Watch watch(int slot) {
        Watch w = slots.get(slot);
        return w == null ? new Watch(RepairState.NEVER, RepairState.NEVER) : w;
    }

    /** Slots in order, for deterministic output. */
    public Map<Integer, Watch> sorted() {
        return new TreeMap<>(slots);
    }
}
