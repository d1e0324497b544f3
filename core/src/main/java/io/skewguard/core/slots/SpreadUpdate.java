package io.skewguard.core.slots;

import io.skewguard.core.ring.HashRing;
import java.util.Objects;

/**
 * One change of a slot's spread (docs/design.md §3.5): slot {@code slot} gets {@code extras} spread
 * nodes, the first {@code extras} of {@link HashRing#extension} from the slot's ring point past its
 * candidate set (0: the slot narrows back, its spread nodes become held). Like every slot-table
 * change it is published as one routing epoch, with {@code reason}.
 *
 * @param slot   the slot
 * @param extras how many spread nodes it gets; 0 narrows it
 * @param reason why, for the row's {@code spreadReason} and the decision log
 */
public record SpreadUpdate(int slot, int extras, String reason) {

    public SpreadUpdate {
        if (extras < 0) {
            throw new IllegalArgumentException("a spread of slot " + slot + " to " + extras + " extra nodes: must not be negative");
        }
        Objects.requireNonNull(reason, "reason");
    }

    /**
     * The slot's routing state after this update. Nothing moves: spread nodes are added or turned
     * into held nodes, candidates stay.
     *
     * @param ring      the ring of the cluster's members, whose node indexes {@code current} uses
     * @param slotCount S, for the slot's ring point
     * @param current   the slot's state now
     * @param eligible  by node index: nodes that may take writes (live, not draining, not a running
     *                  migration's target in this slot)
     * @throws IllegalArgumentException with the reason when the slot does not exist or the live
     *                                  nodes outside its candidate set are fewer than {@code extras}
     */
    public SlotSpread apply(HashRing ring, int slotCount, SlotSpread current, boolean[] eligible) {
        if (slot < 0 || slot >= slotCount) {
            throw new IllegalArgumentException("refused: a spread of slot " + slot + ", which does not exist (the table has "
                    + slotCount + " slots, 0 to " + (slotCount - 1) + ")");
        }
        if (extras == 0) {
            return current.narrowed();
        }
        int[] extension = ring.extension(SlotTable.slotPoint(slot, slotCount), current.candidates().nodes(), extras, eligible);
        if (extension.length < extras) {
            throw new IllegalArgumentException("refused: a spread of slot " + slot + " to " + extras + " extra nodes, but only "
                    + extension.length + " live nodes outside its candidate set can take its writes");
        }
        return current.widenedTo(extension);
    }
}
