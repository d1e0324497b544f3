package io.skewguard.agent;

import io.skewguard.agent.command.AgentInput;
import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.Applied;
import io.skewguard.agent.command.CommandApplier;
import io.skewguard.agent.command.CommandCheck;
import io.skewguard.agent.command.EpochBound;
import io.skewguard.agent.command.MigrationRecord;
import io.skewguard.agent.command.Stage;
import io.skewguard.agent.command.StoreAction;
import io.skewguard.agent.store.CopyProgress;
import io.skewguard.agent.store.NodeStore;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node agent without its transport: decides with {@link CommandApplier}, carries the store steps
 * out on the {@link NodeStore}, keeps (and hands to {@code saver}) the state, and gives back the
 * answers. {@link CommandAgent} wraps it with its consumer, producer and state file; the simulator's
 * fast mode drives it directly in simulated time. Not thread safe: one caller at a time.
 *
 * <p><b>Order of effects, per input</b>: decide, carry out the store steps, save the state if it
 * changed, return the answers. If the store fails, the state is left as it was (a repeat of the
 * command tries again) and a migration step is answered FAILED with the store's message.
 *
 * <p><b>Refusals</b>: an input a safety rule of the {@link CommandApplier} refuses (a switch or a
 * cleanup of a migration this node did not take part in, an epoch jump past {@link EpochBound}) is
 * logged and counted ({@link #refusals()}); the store is not touched.
 *
 * <p><b>Pruning</b>: records of migrations that finished here more than {@code keepFinished} ago are
 * dropped from the state (after each input and each copy report); zero keeps them forever.
 */
public final class AgentCore {

    private static final Logger LOG = LoggerFactory.getLogger(AgentCore.class);

    private final CommandCheck check;
    private final NodeStore store;
    private final Consumer<AgentState> saver;
    private final CommandApplier applier;
    private final EpochBound epochs;
    private final long keepFinishedMillis;
    private final AtomicLong refusals = new AtomicLong();
    private volatile AgentState state;
    private volatile CopyingOf copyingOf;

    /**
     * An agent of {@code check.node()} over {@code store}, starting from {@code initial};
     * {@code saver} gets every changed state before its answers are handed out.
     */
    public AgentCore(CommandCheck check, NodeStore store, AgentState initial, Consumer<AgentState> saver) {
        this(check, store, initial, saver, EpochBound.defaults(), Duration.ZERO);
    }

    /**
     * As {@link #AgentCore(CommandCheck, NodeStore, AgentState, Consumer)}, refusing epochs past
     * {@code epochs} and pruning records of migrations finished more than {@code keepFinished} ago
     * (zero: never).
     */
    public AgentCore(CommandCheck check, NodeStore store, AgentState initial, Consumer<AgentState> saver,
                     EpochBound epochs, Duration keepFinished) {
        this.applier = new CommandApplier(Objects.requireNonNull(epochs, "epochs"));
        this.epochs = epochs;
        if (keepFinished.isNegative()) {
            throw new IllegalArgumentException("keepFinished must not be negative, was " + keepFinished);
        }
        this.keepFinishedMillis = keepFinished.toMillis();
        this.check = Objects.requireNonNull(check, "check");
        this.store = Objects.requireNonNull(store, "store");
        this.saver = Objects.requireNonNull(saver, "saver");
        this.state = Objects.requireNonNull(initial, "initial");
        if (!store.node().equals(check.node())) {
            throw new IllegalArgumentException("store of node " + store.node() + " given to the agent of " + check.node());
        }
    }

    /** What this agent has applied so far. */
    public AgentState state() {
        return state;
    }

    /** Inputs refused by a safety rule since start (see the class comment). */
    public long refusals() {
        return refusals.get();
    }

    /** The validation commands pass before {@link #apply}; a failing one belongs on the dead-letter topic. */
    public CommandCheck check() {
        return check;
    }

    /** After a restart: resumes the copies the state says were running (the store may have restarted too). */
    public void resume() {
        for (StoreAction action : applier.resume(state)) {
            LOG.info("{}: resuming {}", check.node(), action);
            action.applyTo(store);
        }
    }

    /** Decide, carry out, save, answer: one input at time {@code nowMillis}. */
    public List<MigrationStatus> apply(AgentInput input, long nowMillis) {
        AgentState before = state;
        Applied applied = input.applyTo(applier, before, nowMillis);
        try {
            for (StoreAction action : applied.actions()) {
                action.applyTo(store);
            }
        } catch (RuntimeException e) {
            LOG.error("{}: the store failed to carry out {}: {}", check.node(), applied.actions(), e.getMessage(), e);
            if (input instanceof AgentInput.Step step) {
                return List.of(failure(step.command(), "the node's store failed: " + e.getMessage(), nowMillis));
            }
            // no answer to carry the failure and nobody repeats a weight command: the caller must
            // not go past it silently (the agent dead-letters it as a poison pill)
            throw e;
        }
        if (applied.refused() != null) {
            refusals.incrementAndGet();
            LOG.warn("{}: refused {}: {}", check.node(), describe(input), applied.refused());
        }
        AgentState next = pruned(applied.state(), nowMillis);
        if (!next.equals(before)) {
            saver.accept(next);
            state = next;
        }
        return applied.answers();
    }

    /** Asks the store how every running copy stands and answers COPY PROGRESS, DONE or FAILED. */
    public List<MigrationStatus> reportCopies(long nowMillis) {
        AgentState kept = pruned(state, nowMillis);
        if (kept != state) {
            saver.accept(kept);
            state = kept;
        }
        List<MigrationRecord> copying = copying(state);
        if (copying.isEmpty()) {
            return List.of();
        }
        List<MigrationStatus> answers = new ArrayList<>();
        for (MigrationRecord r : copying) {
            CopyProgress p = store.copyProgress(r.migrationId());
            AgentInput input = switch (p.status()) {
                case RUNNING -> new AgentInput.CopyProgressed(r.migrationId(), p.bytesCopied());
                case DONE -> new AgentInput.CopyCompleted(r.migrationId(), p.bytesCopied());
                case FAILED -> new AgentInput.CopyFailed(r.migrationId(), p.message());
                case UNKNOWN -> new AgentInput.CopyFailed(r.migrationId(), "the node's store has no copy of " + r.migrationId());
            };
            answers.addAll(apply(input, nowMillis));
        }
        return answers;
    }

    /**
     * The records of {@code s} in stage COPYING, in migration-id order. Worked out again only when the
     * state has changed since the last call (states are immutable): copies are reported far more often
     * than commands arrive, and a node keeps the records of every migration it took part in.
     */
    private List<MigrationRecord> copying(AgentState s) {
        CopyingOf cached = copyingOf;
        if (cached != null && cached.state() == s) {
            return cached.records();
        }
        List<MigrationRecord> out = new ArrayList<>();
        for (MigrationRecord r : s.migrations().values()) {
            if (r.stage() == Stage.COPYING) {
                out.add(r);
            }
        }
        List<MigrationRecord> records = List.copyOf(out);
        copyingOf = new CopyingOf(s, records);
        return records;
    }

    /** The COPYING records of one state. */
    private record CopyingOf(AgentState state, List<MigrationRecord> records) {}

    /**
     * Why {@code input} carries an epoch no legitimate sender could have issued yet, as a dead-letter
     * reason ({@code invalid: ...}), or empty: a weight epoch or a routing epoch that jumps past
     * {@code max-epoch-jump} from the newest this node knows (its weight epoch; the highest routing
     * epoch of its migration records, 0 without any). Adopted, such an epoch would make every later
     * real command look old, so it is set aside with the command instead of merely refused.
     */
    public Optional<String> epochProblem(AgentInput input) {
        if (input instanceof AgentInput.Weight w) {
            long epoch = w.command().getEpoch();
            return epoch <= state.weightEpoch() ? Optional.empty()
                    : epochs.problem("weight epoch", state.weightEpoch(), epoch).map(p -> "invalid: " + p);
        }
        if (input instanceof AgentInput.Step step) {
            long newest = 0;
            for (MigrationRecord r : state.migrations().values()) {
                newest = Math.max(newest, Math.max(r.routingEpoch(), r.commitEpoch()));
            }
            return epochs.problem("routing epoch", newest, step.command().getRoutingEpoch()).map(p -> "invalid: " + p);
        }
        return Optional.empty();
    }

    private AgentState pruned(AgentState s, long nowMillis) {
        if (keepFinishedMillis == 0) {
            return s;
        }
        AgentState kept = s.withoutFinishedBefore(nowMillis - keepFinishedMillis);
        if (kept != s) {
            LOG.info("{}: pruned {} finished migration records older than {} ms", check.node(),
                    s.migrations().size() - kept.migrations().size(), keepFinishedMillis);
        }
        return kept;
    }

    private static String describe(AgentInput input) {
        if (input instanceof AgentInput.Step step) {
            MigrationCommand c = step.command();
            return c.getPhase() + " of " + c.getMigrationId() + " (slot " + c.getSlot() + ", routing epoch " + c.getRoutingEpoch() + ")";
        }
        if (input instanceof AgentInput.Weight w) {
            return "weight command of epoch " + w.command().getEpoch();
        }
        return input.toString();
    }

    private static MigrationStatus failure(MigrationCommand c, String message, long nowMillis) {
        return MigrationStatus.newBuilder()
                .setCluster(c.getCluster()).setMigrationId(c.getMigrationId()).setCommandId(c.getCommandId())
                .setNode(c.getNode()).setPhase(c.getPhase()).setOutcome(StepResult.FAILED).setBytesCopied(0)
                .setMessage(message).setEventTime(Instant.ofEpochMilli(nowMillis)).build();
    }
}
