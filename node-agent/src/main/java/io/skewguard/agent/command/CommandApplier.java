package io.skewguard.agent.command;

import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.WeightCommand;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The decisions of a node agent, as a pure function: {@code (state, input) → (next state, store
 * actions, answers)}. No I/O, no clock of its own, no mutable fields; the Kafka loop
 * ({@link io.skewguard.agent.CommandAgent}) carries the result out, and the property tests drive it
 * directly.
 *
 * <h2>Idempotence rules (docs/agents.md)</h2>
 *
 * Delivery is at least once, so the rules are chosen so that a repeat of any command, at any later
 * time, neither changes the state nor gets a different answer from what the state implies:
 *
 * <ul>
 *   <li><b>Weight</b>: applied only if its epoch is newer than the applied one; otherwise ignored.
 *       No answer either way (nothing listens for weight answers).
 *   <li><b>COPY</b> (target): first time starts the copy and answers PROGRESS 0; while copying,
 *       resumes it and answers PROGRESS — a COPY with another {@code maxBytesPerSec} changes the
 *       running copy's rate (the latest COPY's rate applies; bandwidth only, never correctness); once copied (COPIED,
 *       PREPARED, COMMITTED) answers DONE with the bytes copied; after ABORT answers FAILED.
 *   <li><b>PREPARE</b>: target answers DONE once its copy is complete, FAILED while it is not (the
 *       coordinator then aborts); source records the migration and answers DONE. After COMMIT: DONE.
 *       After ABORT: FAILED.
 *   <li><b>COMMIT</b>: moves to COMMITTED and answers DONE; again: DONE, nothing changes. Refused
 *       (FAILED) if this node applied ABORT, and on the target while its copy is incomplete (the
 *       coordinator resends COMMIT, it succeeds once the copy is done).
 *       <b>A switch only for a migration this node took part in</b>: the target must hold the copy
 *       (its COPY arrived), the source must have applied PREPARE of the same migration id, slot and
 *       nodes; and the COMMIT's routing epoch (the slot table after the switch) must be newer than
 *       the epoch the node took part at, by at most {@code max-epoch-jump}. A repeated COMMIT must
 *       name the epoch of the one applied. Anything else is refused (FAILED, {@link Applied#refused}),
 *       the store untouched.
 *   <li><b>ABORT</b>: moves to ABORTED (a tombstone is recorded even if the migration was unknown,
 *       so a late COPY cannot start a copy nobody will commit) and answers DONE; again: DONE.
 *       <b>After COMMIT an ABORT is refused: FAILED</b>, with a message, and the commit stands. DONE
 *       would tell the coordinator that the target dropped its copy and the slot table is
 *       unchanged, both false; the coordinator never sends ABORT past the commit point, so such an
 *       ABORT is a stale or misdirected one and deserves to be visible.
 *   <li><b>CLEANUP</b> (source): drops the shard only for a migration this node prepared and
 *       committed (so the coordinator switched the slot, which it does only after the target
 *       answered PREPARE DONE with its copy complete), at the routing epoch of that COMMIT; answers
 *       DONE, again: DONE. Anything else (unknown migration, before COMMIT, after ABORT, another
 *       epoch) is refused: FAILED, counted, nothing dropped (it could be the only copy).
 *   <li>A command whose slot, source or target disagree with the migration recorded under the same
 *       id is answered FAILED and changes nothing.
 * </ul>
 *
 * Copy reports from the store ({@link AgentInput.CopyCompleted} and friends) only count while the
 * migration is COPYING; afterwards they are ignored.
 */
public final class CommandApplier {

    private final EpochBound epochs;

    /** An applier with the default {@link EpochBound}. */
    public CommandApplier() {
        this(EpochBound.defaults());
    }

    /** An applier refusing weight and commit epochs that jump past {@code epochs}. */
    public CommandApplier(EpochBound epochs) {
        this.epochs = java.util.Objects.requireNonNull(epochs, "epochs");
    }

    /** Applies a weight command (already checked by {@link CommandCheck}). */
    public Applied apply(AgentState state, WeightCommand command) {
        if (command.getEpoch() <= state.weightEpoch()) {
            return Applied.nothing(state);
        }
        var jump = epochs.problem("weight epoch", state.weightEpoch(), command.getEpoch());
        if (jump.isPresent()) {
            return new Applied(state, List.of(), List.of(), jump.get());
        }
        return new Applied(state.withWeight(command.getEpoch(), command.getNewWeight()),
                List.of(new StoreAction.SetWeight(command.getEpoch(), command.getNewWeight())), List.of());
    }

    /** Applies a migration step (already checked by {@link CommandCheck}) at time {@code now}. */
    public Applied apply(AgentState state, MigrationCommand command, long now) {
        MigrationRecord known = state.migration(command.getMigrationId());
        if (known != null && (known.slot() != command.getSlot() || !known.source().equals(command.getSourceNode())
                || !known.target().equals(command.getTargetNode()))) {
            return refuse(state, command, "command names slot " + command.getSlot() + " from "
                    + command.getSourceNode() + " to " + command.getTargetNode() + " but migration " + known.migrationId()
                    + " was recorded as slot " + known.slot() + " from " + known.source() + " to " + known.target(), now);
        }
        Role role = state.node().equals(command.getTargetNode()) ? Role.TARGET : Role.SOURCE;
        MigrationRecord record = known != null ? known : fresh(command, role);
        return switch (command.getPhase()) {
            case COPY -> copy(state, command, known, record, now);
            case PREPARE -> role == Role.TARGET ? prepareTarget(state, command, known, record, now) : prepareSource(state, command, known, record, now);
            case COMMIT -> role == Role.TARGET ? commitTarget(state, command, known, record, now) : commitSource(state, command, known, record, now);
            case ABORT -> abort(state, command, known, record, role, now);
            case CLEANUP -> cleanup(state, command, known, record, now);
        };
    }

    /** The store reports copy progress: answered as COPY PROGRESS while the migration is COPYING. */
    public Applied copyProgressed(AgentState state, String migrationId, long bytesCopied, long now) {
        MigrationRecord r = state.migration(migrationId);
        if (r == null || r.stage() != Stage.COPYING) {
            return Applied.nothing(state);
        }
        return new Applied(state, List.of(), List.of(status(r, MigrationPhase.COPY, StepResult.PROGRESS, bytesCopied, null, now)));
    }

    /** The store finished the copy: COPYING becomes COPIED, answered COPY DONE. */
    public Applied copyCompleted(AgentState state, String migrationId, long bytesCopied, long now) {
        MigrationRecord r = state.migration(migrationId);
        if (r == null || r.stage() != Stage.COPYING) {
            return Applied.nothing(state);
        }
        MigrationRecord copied = r.copied(bytesCopied);
        return new Applied(state.with(copied), List.of(),
                List.of(status(copied, MigrationPhase.COPY, StepResult.DONE, bytesCopied, null, now)));
    }

    /** The store could not copy: answered COPY FAILED; the stage stays, so a repeated COPY retries. */
    public Applied copyFailed(AgentState state, String migrationId, String message, long now) {
        MigrationRecord r = state.migration(migrationId);
        if (r == null || r.stage() != Stage.COPYING) {
            return Applied.nothing(state);
        }
        return new Applied(state, List.of(), List.of(status(r, MigrationPhase.COPY, StepResult.FAILED, 0, message, now)));
    }

    /**
     * The store steps to carry out when an agent starts from a saved state: copies that were running
     * are resumed (a copy lives in the node's store, which may have restarted too).
     */
    public List<StoreAction> resume(AgentState state) {
        List<StoreAction> actions = new ArrayList<>();
        for (MigrationRecord r : state.migrations().values()) {
            if (r.stage() == Stage.COPYING) {
                actions.add(new StoreAction.StartCopy(r.migrationId(), r.slot(), r.source(), r.maxBytesPerSec()));
            }
        }
        return actions;
    }

    // ------------------------------------------------------------------------------------ phases

    private Applied copy(AgentState state, MigrationCommand c, MigrationRecord known, MigrationRecord r, long now) {
        StoreAction start = new StoreAction.StartCopy(r.migrationId(), r.slot(), r.source(), r.maxBytesPerSec());
        if (known == null) {
            return new Applied(state.with(r), List.of(start), List.of(answer(c, StepResult.PROGRESS, 0, null, now)));
        }
        return switch (r.stage()) {
            case COPYING -> {
                // a repeated COPY resumes the copy; one with another rate changes the copy's rate (the
                // migrator re-sends COPY when its bandwidth budget moved)
                MigrationRecord rated = c.getMaxBytesPerSec() == r.maxBytesPerSec() ? r : r.withRate(c.getMaxBytesPerSec());
                yield new Applied(state.with(rated),
                        List.of(new StoreAction.StartCopy(r.migrationId(), r.slot(), r.source(), rated.maxBytesPerSec())),
                        List.of(answer(c, StepResult.PROGRESS, r.bytesCopied(), null, now)));
            }
            case COPIED, PREPARED, COMMITTED, CLEANED -> answerOnly(state, c, StepResult.DONE, r.bytesCopied(), null, now);
            case ABORTED -> answerOnly(state, c, StepResult.FAILED, 0, aborted(r), now);
        };
    }

    private Applied prepareTarget(AgentState state, MigrationCommand c, MigrationRecord known, MigrationRecord r, long now) {
        if (known == null) {
            return answerOnly(state, c, StepResult.FAILED, 0, "no copy of " + c.getMigrationId() + " here: COPY never arrived", now);
        }
        return switch (r.stage()) {
            case COPYING -> answerOnly(state, c, StepResult.FAILED, 0, "copy of slot " + r.slot() + " is not complete", now);
            case COPIED -> new Applied(state.with(r.at(Stage.PREPARED, now)), List.of(), List.of(answer(c, StepResult.DONE, 0, null, now)));
            case PREPARED, COMMITTED, CLEANED -> answerOnly(state, c, StepResult.DONE, 0, null, now);
            case ABORTED -> answerOnly(state, c, StepResult.FAILED, 0, aborted(r), now);
        };
    }

    private Applied prepareSource(AgentState state, MigrationCommand c, MigrationRecord known, MigrationRecord r, long now) {
        if (known == null) {
            return new Applied(state.with(r.at(Stage.PREPARED, now)),
                    List.of(new StoreAction.PrepareSource(r.migrationId(), r.slot(), r.target())),
                    List.of(answer(c, StepResult.DONE, 0, null, now)));
        }
        return switch (r.stage()) {
            // COPYING and COPIED are target stages, never met on a source record
            case COPYING, COPIED, PREPARED, COMMITTED, CLEANED -> answerOnly(state, c, StepResult.DONE, 0, null, now);
            case ABORTED -> answerOnly(state, c, StepResult.FAILED, 0, aborted(r), now);
        };
    }

    private Applied commitTarget(AgentState state, MigrationCommand c, MigrationRecord known, MigrationRecord r, long now) {
        if (known == null) {
            return refuse(state, c, "COMMIT refused: no copy of " + c.getMigrationId() + " on " + state.node()
                    + " (its COPY never arrived here)", now);
        }
        return switch (r.stage()) {
            case COPYING -> answerOnly(state, c, StepResult.FAILED, 0,
                    "copy of slot " + r.slot() + " is not complete: COMMIT refused until it is", now);
            case COPIED, PREPARED -> switchEpochProblem(r, c)
                    .map(problem -> refuse(state, c, problem, now))
                    .orElseGet(() -> new Applied(state.with(r.committed(c.getRoutingEpoch(), now)),
                            List.of(new StoreAction.CommitTarget(r.migrationId(), r.slot())),
                            List.of(answer(c, StepResult.DONE, r.bytesCopied(), null, now))));
            case COMMITTED, CLEANED -> repeatedCommit(state, c, r, r.bytesCopied(), now);
            case ABORTED -> answerOnly(state, c, StepResult.FAILED, 0, "COMMIT refused: " + aborted(r), now);
        };
    }

    private Applied commitSource(AgentState state, MigrationCommand c, MigrationRecord known, MigrationRecord r, long now) {
        if (known == null) {
            return refuse(state, c, "COMMIT refused: migration " + c.getMigrationId() + " was never prepared on "
                    + state.node() + " (a switch is applied only for a migration this node took part in)", now);
        }
        return switch (r.stage()) {
            case PREPARED -> switchEpochProblem(r, c)
                    .map(problem -> refuse(state, c, problem, now))
                    .orElseGet(() -> new Applied(state.with(r.committed(c.getRoutingEpoch(), now)),
                            List.of(new StoreAction.CommitSource(r.migrationId(), r.slot(), r.target())),
                            List.of(answer(c, StepResult.DONE, 0, null, now))));
            // COPYING and COPIED are target stages, never met on a source record
            case COPYING, COPIED -> refuse(state, c, "COMMIT refused: migration " + r.migrationId()
                    + " is at target stage " + r.stage() + " on its source " + state.node(), now);
            case COMMITTED, CLEANED -> repeatedCommit(state, c, r, 0, now);
            case ABORTED -> answerOnly(state, c, StepResult.FAILED, 0, "COMMIT refused: " + aborted(r), now);
        };
    }

    /** Why a first COMMIT at {@code c}'s routing epoch must not switch {@code r}, if it must not. */
    private java.util.Optional<String> switchEpochProblem(MigrationRecord r, MigrationCommand c) {
        long epoch = c.getRoutingEpoch();
        if (r.routingEpoch() == MigrationRecord.UNKNOWN) {
            return epoch < 0 ? java.util.Optional.of("COMMIT refused: negative routing epoch " + epoch) : java.util.Optional.empty();
        }
        if (epoch <= r.routingEpoch()) {
            return java.util.Optional.of("COMMIT refused: routing epoch " + epoch + " is not after " + r.routingEpoch()
                    + ", the epoch " + r.migrationId() + " was " + (r.role() == Role.TARGET ? "copied" : "prepared") + " at");
        }
        return epochs.problem("COMMIT refused: routing epoch", r.routingEpoch(), epoch);
    }

    /** A COMMIT of a migration committed here: DONE if it names the epoch applied, refused otherwise. */
    private static Applied repeatedCommit(AgentState state, MigrationCommand c, MigrationRecord r, long bytes, long now) {
        if (r.commitEpoch() != MigrationRecord.UNKNOWN && c.getRoutingEpoch() != r.commitEpoch()) {
            return refuse(state, c, "COMMIT refused: migration " + r.migrationId() + " was committed at routing epoch "
                    + r.commitEpoch() + ", this COMMIT names " + c.getRoutingEpoch(), now);
        }
        return answerOnly(state, c, StepResult.DONE, bytes, null, now);
    }

    private Applied abort(AgentState state, MigrationCommand c, MigrationRecord known, MigrationRecord r, Role role, long now) {
        StoreAction drop = role == Role.TARGET
                ? new StoreAction.AbortTarget(r.migrationId(), r.slot())
                : new StoreAction.AbortSource(r.migrationId(), r.slot(), r.target());
        if (known == null) {
            // a tombstone, so that a late COPY or PREPARE of this migration is refused
            return new Applied(state.with(r.at(Stage.ABORTED, now)), List.of(drop), List.of(answer(c, StepResult.DONE, 0, null, now)));
        }
        return switch (r.stage()) {
            case COPYING, COPIED, PREPARED -> new Applied(state.with(r.at(Stage.ABORTED, now)), List.of(drop),
                    List.of(answer(c, StepResult.DONE, 0, null, now)));
            case ABORTED -> answerOnly(state, c, StepResult.DONE, 0, null, now);
            case COMMITTED, CLEANED -> answerOnly(state, c, StepResult.FAILED, 0, "ABORT refused: migration "
                    + r.migrationId() + " is already committed on " + state.node() + "; a commit is never undone", now);
        };
    }

    private Applied cleanup(AgentState state, MigrationCommand c, MigrationRecord known, MigrationRecord r, long now) {
        if (known == null) {
            return refuse(state, c, "CLEANUP refused: migration " + c.getMigrationId()
                    + " was never committed on " + state.node() + " (dropping slot " + c.getSlot() + " would lose its only copy)", now);
        }
        if ((r.stage() == Stage.COMMITTED || r.stage() == Stage.CLEANED) && r.commitEpoch() != MigrationRecord.UNKNOWN
                && c.getRoutingEpoch() != r.commitEpoch()) {
            return refuse(state, c, "CLEANUP refused: migration " + r.migrationId() + " was committed at routing epoch "
                    + r.commitEpoch() + ", this CLEANUP names " + c.getRoutingEpoch(), now);
        }
        return switch (r.stage()) {
            case COMMITTED -> new Applied(state.with(r.at(Stage.CLEANED, now)), List.of(new StoreAction.Cleanup(r.migrationId(), r.slot())),
                    List.of(answer(c, StepResult.DONE, 0, null, now)));
            case CLEANED -> answerOnly(state, c, StepResult.DONE, 0, null, now);
            case COPYING, COPIED, PREPARED -> refuse(state, c, "CLEANUP refused: migration "
                    + r.migrationId() + " is not committed on " + state.node() + " (stage " + r.stage() + ")", now);
            case ABORTED -> refuse(state, c, "CLEANUP refused: " + aborted(r), now);
        };
    }

    // ------------------------------------------------------------------------------------ helpers

    /** A record for a migration this node has not seen yet: target records start COPYING, source ones PREPARED. */
    private static MigrationRecord fresh(MigrationCommand c, Role role) {
        Stage stage = role == Role.TARGET ? Stage.COPYING : Stage.PREPARED;
        String copyCommandId = c.getPhase() == MigrationPhase.COPY ? c.getCommandId() : "";
        return new MigrationRecord(c.getMigrationId(), c.getCluster(), c.getSlot(), c.getSourceNode(), c.getTargetNode(),
                role, stage, 0, c.getPhase() == MigrationPhase.COPY ? c.getMaxBytesPerSec() : 0, copyCommandId,
                c.getRoutingEpoch(), MigrationRecord.UNKNOWN, MigrationRecord.UNKNOWN);
    }

    private static String aborted(MigrationRecord r) {
        return "migration " + r.migrationId() + " was aborted on this node";
    }

    /** A command a safety rule refuses: answered FAILED with the reason, nothing changes, the agent counts it. */
    private static Applied refuse(AgentState state, MigrationCommand c, String reason, long now) {
        return new Applied(state, List.of(), List.of(answer(c, StepResult.FAILED, 0, reason, now)), reason);
    }

    private static Applied answerOnly(AgentState state, MigrationCommand c, StepResult outcome, long bytes, String message, long now) {
        return new Applied(state, List.of(), List.of(answer(c, outcome, bytes, message, now)));
    }

    private static MigrationStatus answer(MigrationCommand c, StepResult outcome, long bytes, String message, long now) {
        return MigrationStatus.newBuilder()
                .setCluster(c.getCluster())
                .setMigrationId(c.getMigrationId())
                .setCommandId(c.getCommandId())
                .setNode(c.getNode())
                .setPhase(c.getPhase())
                .setOutcome(outcome)
                .setBytesCopied(bytes)
                .setMessage(message)
                .setEventTime(Instant.ofEpochMilli(now))
                .build();
    }

    private static MigrationStatus status(MigrationRecord r, MigrationPhase phase, StepResult outcome, long bytes, String message, long now) {
        String node = r.role() == Role.TARGET ? r.target() : r.source();
        return MigrationStatus.newBuilder()
                .setCluster(r.cluster())
                .setMigrationId(r.migrationId())
                .setCommandId(r.copyCommandId())
                .setNode(node)
                .setPhase(phase)
                .setOutcome(outcome)
                .setBytesCopied(bytes)
                .setMessage(message)
                .setEventTime(Instant.ofEpochMilli(now))
                .build();
    }
}
