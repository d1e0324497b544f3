package io.skewguard.core.slots;

import io.skewguard.core.ring.CandidateSet;

import java.util.Objects;

/**
 * One explicit, logged change of the slot table: slot {@code slot} gets candidate set {@code candidates},
 * valid only against a table at routing epoch {@code expectedEpoch} (optimistic concurrency: an update
 * computed from an older table is refused, see {@link SlotTable#apply(SlotUpdate)}).
 *
 * @param expectedEpoch the routing epoch of the table the update was computed from
 * @param slot          the slot to change
 * @param candidates    its new candidate set, anchor first
 */
public record SlotUpdate(long expectedEpoch, int slot, CandidateSet candidates) {

    public SlotUpdate {
        if (expectedEpoch < 0) {
            throw new IllegalArgumentException("routing epoch must not be negative, but is " + expectedEpoch);
        }
        if (slot < 0) {
            throw new IllegalArgumentException("slot must not be negative, but is " + slot);
        }
        Objects.requireNonNull(candidates, "candidates");
    }
}
