package io.skewguard.migrator.policy;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.Set;

/**
 * Where one shard migration stands (docs/design.md §8). The annotations only name the variants
 * for the coordinator's JSON state store.
 *
 * <pre>
 *   Copying ──COPY DONE──▶ Copied ──(batch copied)──▶ Preparing ──both PREPARE DONE──▶ Prepared
 *   Prepared ──(its turn)──▶ Committing ──both COMMIT DONE──▶ CleaningUp ──CLEANUP DONE──▶ Cleaned
 *   Copying | Copied | Preparing | Prepared ──(batch aborts)──▶ Aborting ──both ABORT DONE──▶ Aborted
 *   Copying ──(COPY FAILED or stalled while carried)──▶ CopyFailed ──(next batch)──▶ Aborting
 * </pre>
 *
 * <p>Copying, Copied and CopyFailed are the states of a copy that is not part of its batch's switch
 * once the batch is past copying: such a migration is <em>carried</em> into the next batch
 * ({@link SwitchBatch#carried()}).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.SIMPLE_NAME, property = "state")
@JsonSubTypes({
    @JsonSubTypes.Type(MigrationState.Copying.class),
    @JsonSubTypes.Type(MigrationState.Copied.class),
    @JsonSubTypes.Type(MigrationState.CopyFailed.class),
    @JsonSubTypes.Type(MigrationState.Preparing.class),
    @JsonSubTypes.Type(MigrationState.Prepared.class),
    @JsonSubTypes.Type(MigrationState.Committing.class),
    @JsonSubTypes.Type(MigrationState.CleaningUp.class),
    @JsonSubTypes.Type(MigrationState.Cleaned.class),
    @JsonSubTypes.Type(MigrationState.Aborting.class),
    @JsonSubTypes.Type(MigrationState.Aborted.class)
})
public sealed interface MigrationState {

    /** COPY sent to the target; {@code lastHeardAt} is the last COPY answer (or the send). */
    record Copying(long bytesCopied, long lastHeardAt) implements MigrationState {}

    /** The target reported the copy complete; switches with the next switch of its batch (or the next batch). */
    record Copied() implements MigrationState {}

    /**
     * A carried copy that failed or stalled while its batch switched others: nothing is sent then (the
     * switch is not to be disturbed by a migration that is not in it); the next batch aborts it.
     */
    record CopyFailed(String reason) implements MigrationState {}

    /** PREPARE sent to source and target; {@code acknowledged} answered PREPARED. */
    record Preparing(Set<String> acknowledged) implements MigrationState {
        public Preparing {
            acknowledged = Set.copyOf(acknowledged);
        }
    }

    /** Both participants are prepared; waits for its turn to commit. */
    record Prepared() implements MigrationState {}

    /**
     * Past the commit point: the slot table names the target; COMMIT sent at {@code sentAt};
     * {@code targetCommittedAt} is the target's own clock in its COMMIT DONE, {@link Long#MIN_VALUE}
     * until it answered (whichever participant answers last). {@code switchEpoch} is the routing
     * epoch of the switch ({@link #UNKNOWN_EPOCH} until the switch is published, and in states saved
     * before this field): every COMMIT and CLEANUP of the migration names it, since an agent applies
     * them only at the epoch it committed at, while a membership update may raise the row's epoch
     * after the switch.
     */
    record Committing(Set<String> acknowledged, long sentAt, long targetCommittedAt, long switchEpoch) implements MigrationState {
        public Committing {
            acknowledged = Set.copyOf(acknowledged);
        }

        /** This state with the routing epoch its switch was published at. */
        public Committing switchedAt(long epoch) {
            return new Committing(acknowledged, sentAt, targetCommittedAt, epoch);
        }
    }

    /**
     * Committed on both participants; CLEANUP sent to the source at {@code sentAt}.
     * {@code targetCommittedAt} is the target's own clock when it committed; {@code switchEpoch} as
     * in {@link Committing}.
     */
    record CleaningUp(long sentAt, long targetCommittedAt, long switchEpoch) implements MigrationState {}

    /** Routing epoch of a switch not known (yet): a switch's epoch is at least 1. */
    long UNKNOWN_EPOCH = 0;

    /** The routing epoch the migration's switch was published at, or {@link #UNKNOWN_EPOCH}. */
    static long switchEpochOf(MigrationState state) {
        if (state instanceof Committing c) {
            return c.switchEpoch();
        }
        if (state instanceof CleaningUp c) {
            return c.switchEpoch();
        }
        return UNKNOWN_EPOCH;
    }

    /** Done: the source freed the shard at {@code sourceCleanedAt} (its own clock). */
    record Cleaned(long targetCommittedAt, long sourceCleanedAt) implements MigrationState {}

    /** ABORT sent to source and target; {@code acknowledged} answered ABORTED. */
    record Aborting(Set<String> acknowledged) implements MigrationState {
        public Aborting {
            acknowledged = Set.copyOf(acknowledged);
        }
    }

    /** Done: the slot table never changed, the target dropped its copy. */
    record Aborted() implements MigrationState {}
}
