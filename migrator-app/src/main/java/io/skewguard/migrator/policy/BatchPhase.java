package io.skewguard.migrator.policy;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * Where a switch batch stands. Before {@link Committing} any failure aborts the whole batch; from
 * {@link Committing} on (the commit point) the batch only goes forward.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.SIMPLE_NAME, property = "phase")
@JsonSubTypes({
    @JsonSubTypes.Type(BatchPhase.Copying.class),
    @JsonSubTypes.Type(BatchPhase.Preparing.class),
    @JsonSubTypes.Type(BatchPhase.Committing.class),
    @JsonSubTypes.Type(BatchPhase.CleaningUp.class),
    @JsonSubTypes.Type(BatchPhase.Aborting.class),
    @JsonSubTypes.Type(BatchPhase.Finished.class)
})
public sealed interface BatchPhase {

    /** Copies run; the first copy that is complete starts the switch of every complete one. */
    record Copying() implements BatchPhase {}

    /** PREPARE sent to every participant; the batch aborts if not all answered by {@code deadline}. */
    record Preparing(long deadline) implements BatchPhase {}

    /** Commits go one by one in shard-id order; {@code index} is the one in progress. */
    record Committing(int index) implements BatchPhase {}

    /** Every migration committed; cleanups on the sources still run. */
    record CleaningUp() implements BatchPhase {}

    /** ABORT sent to every participant; gives up waiting for the answers at {@code deadline}. */
    record Aborting(String reason, long deadline) implements BatchPhase {}

    /** Over: every migration committed and cleaned up, or the whole batch aborted. */
    record Finished(boolean committed, String reason) implements BatchPhase {}
}
