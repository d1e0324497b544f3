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
 *  start ─▶ Copying ──a COPY DONE──▶ Preparing ──all PREPARED──▶ Committing(0) ─▶ … ─▶ Committing(k−1)
 *             │                           │                              (commit point: only forward)
 *             │ COPY FAILED / stalled      │ PREPARE FAILED / deadline            │ last COMMIT DONE
 *             ▼                           ▼                                     ▼
 *          Aborting ◀─────────────────────┘                                  CleaningUp
 *             │ all ABORT DONE or deadline                                      │ all CLEANUP DONE
 *             ▼                                                                 ▼
 *        Finished(aborted)                                               Finished(committed)
 * </pre>
 *
 * <p><b>Pipelining.</b> The batch does not wait for its slowest copy: the first COPY DONE starts the
 * switch of every migration whose copy is complete. The migrations still copying are not in the
 * switch — they are <em>carried</em> ({@link SwitchBatch#carried()}): their COPY answers keep being
 * taken in every phase (a carried copy that completes waits as {@code Copied}; one that fails or
 * stalls becomes {@code CopyFailed}, without disturbing the switch), an abort of the switch leaves
 * them alone, and once the batch is finished {@link #carryOn} puts them into the next batch with the
 * same ids: nothing is re-sent or restarted. While the batch copies, every migration is in it and a
 * failed or stalled copy aborts them all, as before.
 *
 * <p><b>Holding.</b> While an operator has paused the cluster ({@code hold}), no switch starts: a copy
 * that completes waits as {@code Copied} and copies still running go on; a switch already started
 * (PREPARE sent) runs to its end, so nothing is left half-switched. {@link #release} starts the
 * held switch on resume.
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
        return startWith(cluster, batchId, List.of(), moves, now, false);
    }

    /**
     * The batch after {@code finished}: its carried migrations (same ids; their COPYs are not sent
     * again) and {@code moves}, which start as in {@link #start}. Carried copies that failed or
     * stalled are aborted at once, by themselves ({@code moves} must be empty then): the batch is
     * those aborts, and the healthy carried copies ride along with it. Otherwise carried copies that
     * are complete start the switch at once.
     *
     * @param moves on nodes and slots no carried migration uses, pairwise disjoint
     */
    public Transition carryOn(SwitchBatch finished, String batchId, List<Move> moves, long now) {
        return carryOn(finished, batchId, moves, now, false);
    }

    /** As {@link #carryOn(SwitchBatch, String, List, long)}; with {@code hold}, complete carried copies wait for {@link #release}. */
    public Transition carryOn(SwitchBatch finished, String batchId, List<Move> moves, long now, boolean hold) {
        if (!finished.finished()) {
            throw new IllegalArgumentException("batch " + finished.batchId() + " is not finished");
        }
        List<Migration> carried = finished.carried();
        List<String> failures = new ArrayList<>();
        for (Migration m : carried) {
            if (m.state() instanceof MigrationState.CopyFailed f) {
                failures.add(f.reason());
            }
        }
        if (failures.isEmpty()) {
            return startWith(finished.cluster(), batchId, carried, moves, now, hold);
        }
        if (!moves.isEmpty()) {
            throw new IllegalArgumentException("a batch that aborts failed copies takes no new moves: " + moves);
        }
        SwitchBatch batch = new SwitchBatch(finished.cluster(), batchId, carried, new BatchPhase.Copying());
        return abortOnly(batch, m -> m.state() instanceof MigrationState.CopyFailed, String.join("; ", failures), now);
    }

    private Transition startWith(String cluster, String batchId, List<Migration> carried, List<Move> moves, long now, boolean hold) {
        Set<String> nodes = new HashSet<>();
        Set<Integer> slots = new HashSet<>();
        List<Migration> migrations = new ArrayList<>(carried);
        for (Migration m : carried) {
            nodes.add(m.source());
            nodes.add(m.target());
            slots.add(m.slot());
        }
        List<Migration> started = new ArrayList<>();
        for (Move move : moves) {
            if (!nodes.add(move.source()) || !nodes.add(move.target()) || !slots.add(move.slot())) {
                throw new IllegalArgumentException("a batch needs disjoint nodes and distinct slots: " + moves
                        + (carried.isEmpty() ? "" : " next to the carried " + carried));
            }
            String id = cluster + "/" + batchId + "/" + move.shardId();
            started.add(new Migration(id, move.slot(), move.source(), move.target(), move.bytes(),
                    new MigrationState.Copying(0, now)));
        }
        migrations.addAll(started);
        if (migrations.isEmpty()) {
            throw new IllegalArgumentException("a batch needs at least one move");
        }
        migrations.sort(Comparator.comparing(Migration::shardId));
        started.sort(Comparator.comparing(Migration::shardId));
        List<Effect> effects = new ArrayList<>();
        for (Migration m : started) {
            effects.add(new Effect.MarkInFlight(m));
            effects.add(new Effect.SendCommand(MigrationPhase.COPY, m, m.target(), batchId));
        }
        SwitchBatch batch = new SwitchBatch(cluster, batchId, migrations, new BatchPhase.Copying());
        Transition switching = hold ? unchanged(batch) : switchCopied(batch, now);
        effects.addAll(switching.effects());
        return new Transition(switching.batch(), effects);
    }

    /** Resume after a hold: a copying batch with complete copies starts their switch (unchanged otherwise). */
    public Transition release(SwitchBatch batch, long now) {
        return switchCopied(batch, now);
    }

    /** One agent answer. */
    public Transition on(SwitchBatch batch, StatusEvent status, long now) {
        return on(batch, status, now, false);
    }

    /** One agent answer; with {@code hold} a completed copy does not start a switch. */
    public Transition on(SwitchBatch batch, StatusEvent status, long now, boolean hold) {
        var found = batch.find(status.migrationId());
        if (found.isEmpty() || !found.get().participants().contains(status.node())) {
            return unchanged(batch);
        }
        Migration m = found.get();
        // Java 17: sealed phases, dispatched with instanceof (pattern switches are final only in 21)
        BatchPhase phase = batch.phase();
        if (phase instanceof BatchPhase.Copying) {
            return onCopying(batch, m, status, now, hold);
        } else if (status.phase() == MigrationPhase.COPY && !batch.finished()) {
            return onCarriedCopy(batch, m, status, now);
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
        return onTick(batch, now, false);
    }

    /** The clock; with {@code hold} complete copies do not start a switch. */
    public Transition onTick(SwitchBatch batch, long now, boolean hold) {
        BatchPhase phase = batch.phase();
        if (phase instanceof BatchPhase.Copying) {
            for (Migration m : batch.migrations()) {
                if (m.state() instanceof MigrationState.Copying copying
                        && now - copying.lastHeardAt() >= timeouts.copyStallMillis()) {
                    return abort(batch, stalled(m, copying, now), now);
                }
            }
            return hold ? unchanged(batch) : switchCopied(batch, now); // copies complete in a state written before pipelining
        }
        if (batch.finished()) {
            return unchanged(batch);
        }
        return onSwitchTick(markStalledCarriedCopies(batch, now), now);
    }

    private static String stalled(Migration m, MigrationState.Copying copying, long now) {
        return "copy of " + m.shardId() + " to " + m.target() + " stalled: no answer for " + (now - copying.lastHeardAt()) + " ms";
    }

    /** A carried copy that stalls is marked failed; the next batch aborts it (the switch goes on undisturbed). */
    private SwitchBatch markStalledCarriedCopies(SwitchBatch batch, long now) {
        SwitchBatch next = batch;
        for (Migration m : batch.migrations()) {
            if (m.state() instanceof MigrationState.Copying copying && now - copying.lastHeardAt() >= timeouts.copyStallMillis()) {
                next = replace(next, m.with(new MigrationState.CopyFailed(stalled(m, copying, now))));
            }
        }
        return next;
    }

    private Transition onSwitchTick(SwitchBatch batch, long now) {
        BatchPhase phase = batch.phase();
        if (phase instanceof BatchPhase.Preparing p) {
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

    private Transition onCopying(SwitchBatch batch, Migration m, StatusEvent status, long now, boolean hold) {
        if (status.phase() != MigrationPhase.COPY || !status.node().equals(m.target())
                || !(m.state() instanceof MigrationState.Copying)) {
            return unchanged(batch);
        }
        return switch (status.outcome()) {
            case PROGRESS -> new Transition(replace(batch, m.with(new MigrationState.Copying(status.bytesCopied(), now))), List.of());
            case FAILED -> abort(batch, "copy of " + m.shardId() + " to " + m.target() + " failed: " + status.message(), now);
            case DONE -> hold ? new Transition(replace(batch, m.with(new MigrationState.Copied())), List.of())
                    : switchCopied(replace(batch, m.with(new MigrationState.Copied())), now);
        };
    }

    /**
     * A copying batch with complete copies starts their switch: PREPARE to both participants of each;
     * the migrations still copying are carried from then on. Unchanged when no copy is complete.
     */
    private Transition switchCopied(SwitchBatch batch, long now) {
        if (!(batch.phase() instanceof BatchPhase.Copying)
                || batch.migrations().stream().noneMatch(x -> x.state() instanceof MigrationState.Copied)) {
            return unchanged(batch);
        }
        List<Migration> next = new ArrayList<>();
        List<Effect> effects = new ArrayList<>();
        for (Migration x : batch.migrations()) {
            if (x.state() instanceof MigrationState.Copied) {
                Migration p = x.with(new MigrationState.Preparing(Set.of()));
                next.add(p);
                for (String node : p.participants()) {
                    effects.add(new Effect.SendCommand(MigrationPhase.PREPARE, p, node, batch.batchId()));
                }
            } else {
                next.add(x);
            }
        }
        return new Transition(batch.with(next).with(new BatchPhase.Preparing(now + timeouts.prepareMillis())), effects);
    }

    /** A COPY answer of a carried migration while its batch switches, commits, cleans up or aborts others. */
    private Transition onCarriedCopy(SwitchBatch batch, Migration m, StatusEvent status, long now) {
        if (!status.node().equals(m.target()) || !(m.state() instanceof MigrationState.Copying)) {
            return unchanged(batch);
        }
        MigrationState next = switch (status.outcome()) {
            case PROGRESS -> new MigrationState.Copying(status.bytesCopied(), now);
            case DONE -> new MigrationState.Copied();
            case FAILED -> new MigrationState.CopyFailed("copy of " + m.shardId() + " to " + m.target() + " failed: " + status.message());
        };
        return new Transition(replace(batch, m.with(next)), List.of());
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
                boolean allPrepared = updated.migrations().stream()
                        .allMatch(x -> SwitchBatch.isCopy(x) || x.state() instanceof MigrationState.Prepared);
                yield allPrepared ? commit(updated, nextPrepared(updated, -1), now, new ArrayList<>()) : new Transition(updated, List.of());
            }
        };
    }

    /** The commit point for migration {@code index}: switch the slot, then COMMIT to both. */
    private Transition commit(SwitchBatch batch, int index, long now, List<Effect> effects) {
        Migration m = batch.migrations().get(index).with(new MigrationState.Committing(Set.of(), now, Long.MIN_VALUE, MigrationState.UNKNOWN_EPOCH));
        effects.add(new Effect.SwitchSlot(m));
        for (String node : m.participants()) {
            effects.add(new Effect.SendCommand(MigrationPhase.COMMIT, m, node, batch.batchId()));
        }
        return new Transition(replace(batch, m).with(new BatchPhase.Committing(index)), effects);
    }

    /** The first prepared migration after {@code index} in commit (shard-id) order, or −1: carried ones are skipped. */
    private static int nextPrepared(SwitchBatch batch, int index) {
        for (int i = index + 1; i < batch.migrations().size(); i++) {
            if (batch.migrations().get(i).state() instanceof MigrationState.Prepared) {
                return i;
            }
        }
        return -1;
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
            return new Transition(replace(batch, m.with(new MigrationState.Committing(acks, committing.sentAt(), targetAt, committing.switchEpoch()))), List.of());
        }
        long targetCommittedAt = targetAt == Long.MIN_VALUE || targetAt == 0 ? now : targetAt; // 0: a state from before this field
        Migration cleaning = m.with(new MigrationState.CleaningUp(now, targetCommittedAt, committing.switchEpoch()));
        effects.add(new Effect.SendCommand(MigrationPhase.CLEANUP, cleaning, cleaning.source(), batch.batchId()));
        SwitchBatch updated = replace(batch, cleaning);
        int next = nextPrepared(updated, phase.index());
        if (next >= 0) {
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
                && batch.migrations().stream().allMatch(x -> SwitchBatch.isCopy(x) || x.state() instanceof MigrationState.Cleaned);
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
        if (updated.migrations().stream().allMatch(x -> SwitchBatch.isCopy(x) || x.state() instanceof MigrationState.Aborted)) {
            updated = updated.with(new BatchPhase.Finished(false, phase.reason()));
        }
        return new Transition(updated, List.of());
    }

    /**
     * Aborts the whole batch, only legal before the commit point: while it copies, every migration;
     * once it switches, the migrations of the switch — carried copies are not in it and go on.
     */
    private Transition abort(SwitchBatch batch, String reason, long now) {
        boolean copying = batch.phase() instanceof BatchPhase.Copying;
        return abortOnly(batch, m -> copying || !SwitchBatch.isCopy(m), reason, now);
    }

    private Transition abortOnly(SwitchBatch batch, java.util.function.Predicate<Migration> inAbort, String reason, long now) {
        List<Migration> next = new ArrayList<>();
        List<Effect> effects = new ArrayList<>();
        for (Migration m : batch.migrations()) {
            if (!inAbort.test(m)) {
                next.add(m);
                continue;
            }
            Migration a = m.with(new MigrationState.Aborting(Set.of()));
            next.add(a);
            effects.add(new Effect.ClearInFlight(a));
            for (String node : a.participants()) {
                effects.add(new Effect.SendCommand(MigrationPhase.ABORT, a, node, batch.batchId()));
            }
        }
        return new Transition(batch.with(next).with(new BatchPhase.Aborting(reason, now + timeouts.abortMillis())), effects);
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
                updated = m.with(new MigrationState.Committing(c.acknowledged(), now, c.targetCommittedAt(), c.switchEpoch()));
            } else if (m.state() instanceof MigrationState.CleaningUp c && now - c.sentAt() >= timeouts.retryMillis()) {
                effects.add(new Effect.SendCommand(MigrationPhase.CLEANUP, m, m.source(), batch.batchId()));
                updated = m.with(new MigrationState.CleaningUp(now, c.targetCommittedAt(), c.switchEpoch()));
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
