package io.skewguard.migrator.policy;

import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.StepResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a running batch is told about participants that are gone (lost or removed), as answers its
 * state machine already understands, so the batch neither waits for them nor runs a step they
 * cannot take: before the commit point the batch aborts as a whole (a COPY or PREPARE failure); a
 * copy carried past the switch of other migrations fails on its own (the next batch aborts it);
 * after it, and while aborting, the gone node's COMMIT, CLEANUP and ABORT count as answered (the
 * live participant is still waited for).
 */
public final class LostParticipants {

    private LostParticipants() {}

    /** The answers to feed, in order; empty when the batch does not wait for any of {@code gone}. */
    public static List<StatusEvent> answers(SwitchBatch batch, Set<String> gone, String reason, long now) {
        List<StatusEvent> answers = new ArrayList<>();
        if (batch == null) {
            return answers;
        }
        BatchPhase phase = batch.phase();
        for (Migration m : batch.migrations()) {
            for (String node : m.participants()) {
                if (!gone.contains(node)) {
                    continue;
                }
                if (!(phase instanceof BatchPhase.Copying) && m.state() instanceof MigrationState.Copying) {
                    // a copy carried past the switch of others: it fails on its own, the switch goes on
                    answers.add(new StatusEvent(m.id(), m.target(), MigrationPhase.COPY, StepResult.FAILED, 0,
                            node + " is gone (" + reason + ")", now));
                    break;
                } else if (phase instanceof BatchPhase.Copying) {
                    // the state machine takes COPY answers from the target only: one failure aborts the batch
                    return List.of(new StatusEvent(m.id(), m.target(), MigrationPhase.COPY, StepResult.FAILED, 0,
                            node + " is gone (" + reason + ")", now));
                } else if (phase instanceof BatchPhase.Preparing) {
                    return List.of(new StatusEvent(m.id(), node, MigrationPhase.PREPARE, StepResult.FAILED, 0,
                            node + " is gone (" + reason + ")", now));
                } else if (m.state() instanceof MigrationState.Committing c && !c.acknowledged().contains(node)) {
                    answers.add(new StatusEvent(m.id(), node, MigrationPhase.COMMIT, StepResult.DONE, 0, "gone: " + reason, now));
                } else if (m.state() instanceof MigrationState.CleaningUp && node.equals(m.source())) {
                    answers.add(new StatusEvent(m.id(), node, MigrationPhase.CLEANUP, StepResult.DONE, 0, "gone: " + reason, now));
                } else if (m.state() instanceof MigrationState.Aborting a && !a.acknowledged().contains(node)) {
                    answers.add(new StatusEvent(m.id(), node, MigrationPhase.ABORT, StepResult.DONE, 0, "gone: " + reason, now));
                }
            }
        }
        return answers;
    }

    /**
     * Slots whose switch the batch will still make with {@code node} as the source (past the commit
     * point, not yet switched): a replacement must leave them to the switch, which puts the target
     * (holding a complete copy) in the node's place.
     */
    public static Set<Integer> switchesStillToCome(SwitchBatch batch, String node) {
        java.util.Set<Integer> slots = new java.util.HashSet<>();
        if (batch != null && batch.phase() instanceof BatchPhase.Committing) {
            for (Migration m : batch.migrations()) {
                if (m.state() instanceof MigrationState.Prepared && m.source().equals(node)) {
                    slots.add(m.slot());
                }
            }
        }
        return slots;
    }

    /** True when the batch moves a shard to or from {@code node}. */
    public static boolean touches(SwitchBatch batch, String node) {
        return batch != null && batch.migrations().stream().anyMatch(m -> m.participants().contains(node));
    }
}
