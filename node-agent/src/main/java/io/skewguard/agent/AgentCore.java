package io.skewguard.agent;

import io.skewguard.agent.command.AgentInput;
import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.Applied;
import io.skewguard.agent.command.CommandApplier;
import io.skewguard.agent.command.CommandCheck;
import io.skewguard.agent.command.MigrationRecord;
import io.skewguard.agent.command.Stage;
import io.skewguard.agent.command.StoreAction;
import io.skewguard.agent.store.CopyProgress;
import io.skewguard.agent.store.NodeStore;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.StepResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 */
public final class AgentCore {

    private static final Logger LOG = LoggerFactory.getLogger(AgentCore.class);

    private final CommandCheck check;
    private final NodeStore store;
    private final Consumer<AgentState> saver;
    private final CommandApplier applier = new CommandApplier();
    private volatile AgentState state;

    /**
     * An agent of {@code check.node()} over {@code store}, starting from {@code initial};
     * {@code saver} gets every changed state before its answers are handed out.
     */
    public AgentCore(CommandCheck check, NodeStore store, AgentState initial, Consumer<AgentState> saver) {
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
        if (!applied.state().equals(before)) {
            saver.accept(applied.state());
            state = applied.state();
        }
        return applied.answers();
    }

    /** Asks the store how every running copy stands and answers COPY PROGRESS, DONE or FAILED. */
    public List<MigrationStatus> reportCopies(long nowMillis) {
        List<MigrationRecord> copying = new ArrayList<>();
        for (MigrationRecord r : state.migrations().values()) {
            if (r.stage() == Stage.COPYING) {
                copying.add(r);
            }
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

    private static MigrationStatus failure(MigrationCommand c, String message, long nowMillis) {
        return MigrationStatus.newBuilder()
                .setCluster(c.getCluster()).setMigrationId(c.getMigrationId()).setCommandId(c.getCommandId())
                .setNode(c.getNode()).setPhase(c.getPhase()).setOutcome(StepResult.FAILED).setBytesCopied(0)
                .setMessage(message).setEventTime(Instant.ofEpochMilli(nowMillis)).build();
    }
}
