package io.skewguard.core.slots;

/**
 * A {@link SlotUpdate} was computed against another routing epoch than the table's; the table was left
 * unchanged. The caller should re-read the table and recompute the update.
 */
public final class StaleSlotUpdateException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final long expectedEpoch;
    private final long actualEpoch;

    public StaleSlotUpdateException(long expectedEpoch, long actualEpoch) {
        super("stale update: expected routing epoch " + expectedEpoch + " but table is at " + actualEpoch);
        this.expectedEpoch = expectedEpoch;
        this.actualEpoch = actualEpoch;
    }

    /** The epoch the update expected. */
    public long expectedEpoch() {
        return expectedEpoch;
    }

    /** The epoch the table is at. */
    public long actualEpoch() {
        return actualEpoch;
    }
}
