package io.skewguard.migrator.policy;

import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.StepResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The copy → two-phase switch → cleanup state machine of one switch batch (docs/design.md §8),
 * driven by agents' answers and by the clock. Pure: every call returns the next batch and the
 * effects to carry out, in order; nothing else changes.
 *
 * <pre>
 *  start ─▶ Copying ──all COPY DONE──▶ Preparing ──all PREPARED──▶ Committing(0) ─▶ … ─▶ Committing(k−1)
 *             │                           │                              (commit point: only forward)
 *             │ COPY FAILED / stalled      │ PREPARE FAILED / deadline            │ last COMMIT DONE
 *             ▼                           ▼                                     ▼
 *          Aborting ◀─────────────────────┘                                  CleaningUp
 *             │ all ABORT DONE or deadline                                      │ all CLEANUP DONE
 *             ▼                                                                 ▼
 *        Finished(aborted)                                               Finished(committed)
 * </pre>
 *
 * <p>Answers that do not fit the current state (duplicates, late answers of an earlier step, answers
 * from a node that is not a participant) change nothing: delivery is at least once.
 */
public final class BatchStateMachine {

    private final Timeouts timeouts;

    public BatchStateMachine(Timeouts timeouts) {
        this.timeouts = timeouts;
    }

    /** The result of one transition. */
    public record Transition(SwitchBatch batch, List<Effect> effects) {
        public Transition {
            effects = List.copyOf(effects);
        }
    }

    /**
     * Starts a batch: every move gets its in-flight mark in the slot table, then its COPY.
     *
     * @param moves moves on pairwise disjoint nodes and distinct slots
     */
    public Transition start(String cluster, String batchId, List<Move> moves, long now) {
        Set<String> nodes = new HashSet<>();
        Set<Integer> slots = new HashSet<>();
        List<Migration> migrations = new ArrayList<>();
        for (Move move : moves) {
            if (!nodes.add(move.source()) || !nodes.add(move.target()) || !slots.add(move.slot())) {
                throw new IllegalArgumentException("a batch needs disjoint nodes and distinct slots: " + moves);
            }
            String id = cluster + "/" + batchId + "/" + move.shardId();
            migrations.add(new Migration(id, move.slot(), move.source(), move.target(), move.bytes(),
                    new MigrationState.Copying(0, now)));
        }
        if (migrations.isEmpty()) {
            throw new IllegalArgumentException("a batch needs at least one move");
        }
        migrations.sort(Comparator.comparing(Migration::shardId));
        List<Effect> effects = new ArrayList<>();
        for (Migration m : migrations) {
            effects.add(new Effect.MarkInFlight(m));
            effects.add(new Effect.SendCommand(MigrationPhase.COPY, m, m.target(), batchId));
        }
        return new Transition(new SwitchBatch(cluster, batchId, migrations, new BatchPhase.Copying()), effects);
    }

    /** One agent answer. */
    public Transition on(SwitchBatch batch, StatusEvent status, long now) {
        var found = batch.find(status.migrationId());
        if (found.isEmpty() || !found.get().participants().contains(status.node())) {
            return unchanged(batch);
        }
        Migration m = found.get();
        // Java 17: sealed phases, dispatched with instanceof (pattern switches are final only in 21)
        BatchPhase phase = batch.phase();
        if (phase instanceof BatchPhase.Copying) {
            return onCopying(batch, m, status, now);
        } else if (phase instanceof BatchPhase.Preparing) {
            return onPreparing(batch, m, status, now);
        } else if (phase instanceof BatchPhase.Committing c) {
            return onCommitting(batch, c, m, status, now);
        } else if (phase instanceof BatchPhase.CleaningUp) {
            return onCleanup(batch, m, status, new ArrayList<>());
        } else if (phase instanceof BatchPhase.Aborting a) {
            return onAborting(batch, a, m, status);
        }
        return unchanged(batch); // Finished
    }

    /** The clock: stalls and deadlines before the commit point abort, after it they resend. */
    public Transition onTick(SwitchBatch batch, long now) {
        BatchPhase phase = batch.phase();
        if (phase instanceof BatchPhase.Copying) {
            for (Migration m : batch.migrations()) {
                if (m.state() instanceof MigrationState.Copying copying
                        && now - copying.lastHeardAt() >= timeouts.copyStallMillis()) {
                    return abort(batch, "copy of " + m.shardId() + " to " + m.target() + " stalled: no answer for "
                            + (now - copying.lastHeardAt()) + " ms", now);
                }
            }
            return unchanged(batch);
        } else if (phase instanceof BatchPhase.Preparing p) {
            if (now < p.deadline()) {
                return unchanged(batch);
            }
            List<String> silent = new ArrayList<>();
            for (Migration m : batch.migrations()) {
                if (m.state() instanceof MigrationState.Preparing preparing) {
                    for (String node : m.participants()) {
                        if (!preparing.acknowledged().contains(node)) {
                            silent.add(node + " (" + m.shardId() + ")");
                        }
                    }
                }
            }
            return abort(batch, "PREPARE timed out waiting for " + silent, now);
        } else if (phase instanceof BatchPhase.Committing || phase instanceof BatchPhase.CleaningUp) {
            return resend(batch, now);
        } else if (phase instanceof BatchPhase.Aborting a) {
            return now < a.deadline()
                    ? unchanged(batch)
                    : new Transition(batch.with(new BatchPhase.Finished(false, a.reason() + "; some ABORT answers never came")), List.of());
        }
        return unchanged(batch); // Finished
    }

    private Transition onCopying(SwitchBatch batch, Migration m, StatusEvent status, long now) {
        if (status.phase() != MigrationPhase.COPY || !status.node().equals(m.target())
                || !(m.state() instanceof MigrationState.Copying)) {
            return unchanged(batch);
        }
        return switch (status.outcome()) {
            case PROGRESS -> new Transition(replace(batch, m.with(new MigrationState.Copying(status.bytesCopied(), now))), List.of());
            case FAILED -> abort(batch, "copy of " + m.shardId() + " to " + m.target() + " failed: " + status.message(), now);
            case DONE -> {
                SwitchBatch next = replace(batch, m.with(new MigrationState.Copied()));
                boolean allCopied = next.migrations().stream().allMatch(x -> x.state() instanceof MigrationState.Copied);
                if (!allCopied) {
                    yield new Transition(next, List.of());
                }
                List<Migration> preparing = new ArrayList<>();
                List<Effect> effects = new ArrayList<>();
                for (Migration x : next.migrations()) {
                    Migration p = x.with(new MigrationState.Preparing(Set.of()));
                    preparing.add(p);
                    for (String node : p.participants()) {
                        effects.add(new Effect.SendCommand(MigrationPhase.PREPARE, p, node, batch.batchId()));
                    }
                }
                yield new Transition(next.with(preparing).with(new BatchPhase.Preparing(now + timeouts.prepareMillis())), effects);
            }
        };
    }

    private Transition onPreparing(SwitchBatch batch, Migration m, StatusEvent status, long now) {
        if (status.phase() != MigrationPhase.PREPARE || !(m.state() instanceof MigrationState.Preparing preparing)) {
            return unchanged(batch);
        }
        return switch (status.outcome()) {
            case PROGRESS -> unchanged(batch);
            case FAILED -> abort(batch, status.node() + " rejected PREPARE of " + m.shardId() + ": " + status.message(), now);
            case DONE -> {
                Set<String> acks = new HashSet<>(preparing.acknowledged());
                acks.add(status.node());
                MigrationState next = acks.containsAll(m.participants())
                        ? new MigrationState.Prepared()
                        : new MigrationState.Preparing(acks);
                SwitchBatch updated = replace(batch, m.with(next));
                boolean allPrepared = updated.migrations().stream().allMatch(x -> x.state() instanceof MigrationState.Prepared);
                yield allPrepared ? commit(updated, 0, now, new ArrayList<>()) : new Transition(updated, List.of());
            }
        };
    }

    /** The commit point for migration {@code index}: switch the slot, then COMMIT to both. */
    private Transition commit(SwitchBatch batch, int index, long now, List<Effect> effects) {
        Migration m = batch.migrations().get(index).with(new MigrationState.Committing(Set.of(), now, Long.MIN_VALUE));
        effects.add(new Effect.SwitchSlot(m));
        for (String node : m.participants()) {
            effects.add(new Effect.SendCommand(MigrationPhase.COMMIT, m, node, batch.batchId()));
        }
        return new Transition(replace(batch, m).with(new BatchPhase.Committing(index)), effects);
    }

    private Transition onCommitting(SwitchBatch batch, BatchPhase.Committing phase, Migration m, StatusEvent status, long now) {
        List<Effect> effects = new ArrayList<>();
        if (status.phase() == MigrationPhase.CLEANUP) {
            return onCleanup(batch, m, status, effects);
        }
        if (status.phase() != MigrationPhase.COMMIT || status.outcome() != StepResult.DONE
                || !(m.state() instanceof MigrationState.Committing committing)) {
            return unchanged(batch); // a failed COMMIT is retried by the clock: past the commit point
        }
        Set<String> acks = new HashSet<>(committing.acknowledged());
        acks.add(status.node());
        // the target's own clock, whoever answers last: capacity reports are compared with it (SnapshotAssembler)
        long targetAt = status.node().equals(m.target()) ? status.eventTime() : committing.targetCommittedAt();
        if (!acks.containsAll(m.participants())) {
            return new Transition(replace(batch, m.with(new MigrationState.Committing(acks, committing.sentAt(), targetAt))), List.of());
        }
        long targetCommittedAt = targetAt == Long.MIN_VALUE || targetAt == 0 ? now : targetAt; // 0: a state from before this field
        Migration cleaning = m.with(new MigrationState.CleaningUp(now, targetCommittedAt));
        effects.add(new Effect.SendCommand(MigrationPhase.CLEANUP, cleaning, cleaning.source(), batch.batchId()));
        SwitchBatch updated = replace(batch, cleaning);
        int next = phase.index() + 1;
        if (next < updated.migrations().size()) {
            return commit(updated, next, now, effects);
        }
        return settle(updated.with(new BatchPhase.CleaningUp()), effects);
    }

    private Transition onCleanup(SwitchBatch batch, Migration m, StatusEvent status, List<Effect> effects) {
        if (status.phase() != MigrationPhase.CLEANUP || status.outcome() != StepResult.DONE
                || !status.node().equals(m.source()) || !(m.state() instanceof MigrationState.CleaningUp cleaning)) {
            return unchanged(batch);
        }
        SwitchBatch updated = replace(batch, m.with(new MigrationState.Cleaned(cleaning.targetCommittedAt(), status.eventTime())));
        return settle(updated, effects);
    }

    private Transition settle(SwitchBatch batch, List<Effect> effects) {
        boolean done = batch.phase() instanceof BatchPhase.CleaningUp
                && batch.migrations().stream().allMatch(x -> x.state() instanceof MigrationState.Cleaned);
        return new Transition(done ? batch.with(new BatchPhase.Finished(true, "committed")) : batch, effects);
    }

    private Transition onAborting(SwitchBatch batch, BatchPhase.Aborting phase, Migration m, StatusEvent status) {
        if (status.phase() != MigrationPhase.ABORT || status.outcome() != StepResult.DONE
                || !(m.state() instanceof MigrationState.Aborting aborting)) {
            return unchanged(batch);
        }
        Set<String> acks = new HashSet<>(aborting.acknowledged());
        acks.add(status.node());
        MigrationState next = acks.containsAll(m.participants()) ? new MigrationState.Aborted() : new MigrationState.Aborting(acks);
        SwitchBatch updated = replace(batch, m.with(next));
        if (updated.migrations().stream().allMatch(x -> x.state() instanceof MigrationState.Aborted)) {
            updated = updated.with(new BatchPhase.Finished(false, phase.reason()));
        }
        return new Transition(updated, List.of());
    }

    /** Aborts the whole batch: only legal before the commit point. */
    private Transition abort(SwitchBatch batch, String reason, long now) {
        List<Migration> aborting = new ArrayList<>();
        List<Effect> effects = new ArrayList<>();
        for (Migration m : batch.migrations()) {
            Migration a = m.with(new MigrationState.Aborting(Set.of()));
            aborting.add(a);
            effects.add(new Effect.ClearInFlight(a));
            for (String node : a.participants()) {
                effects.add(new Effect.SendCommand(MigrationPhase.ABORT, a, node, batch.batchId()));
            }
        }
        return new Transition(batch.with(aborting).with(new BatchPhase.Aborting(reason, now + timeouts.abortMillis())), effects);
    }

    /** Past the commit point nothing is abandoned: unanswered COMMIT and CLEANUP go out again. */
    private Transition resend(SwitchBatch batch, long now) {
        List<Effect> effects = new ArrayList<>();
        List<Migration> next = new ArrayList<>();
        for (Migration m : batch.migrations()) {
            Migration updated = m;
            if (m.state() instanceof MigrationState.Committing c && now - c.sentAt() >= timeouts.retryMillis()) {
                for (String node : m.participants()) {
                    if (!c.acknowledged().contains(node)) {
                        effects.add(new Effect.SendCommand(MigrationPhase.COMMIT, m, node, batch.batchId()));
                    }
                }
                updated = m.with(new MigrationState.Committing(c.acknowledged(), now, c.targetCommittedAt()));
            } else if (m.state() instanceof MigrationState.CleaningUp c && now - c.sentAt() >= timeouts.retryMillis()) {
                effects.add(new Effect.SendCommand(MigrationPhase.CLEANUP, m, m.source(), batch.batchId()));
                updated = m.with(new MigrationState.CleaningUp(now, c.targetCommittedAt()));
            }
            next.add(updated);
        }
        return effects.isEmpty() ? unchanged(batch) : new Transition(batch.with(next), effects);
    }

    private static SwitchBatch replace(SwitchBatch batch, Migration m) {
        List<Migration> next = new ArrayList<>(batch.migrations());
        for (int i = 0; i < next.size(); i++) {
            if (next.get(i).id().equals(m.id())) {
                next.set(i, m);
            }
        }
        return batch.with(next);
    }

    private static Transition unchanged(SwitchBatch batch) {
        return new Transition(batch, List.of());
    }
}
