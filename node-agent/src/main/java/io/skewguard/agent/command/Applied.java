package io.skewguard.agent.command;

import io.skewguard.schemas.MigrationStatus;
import java.util.List;

/**
 * The outcome of applying one input: the next state, the store steps to carry out (in order, before
 * the state is saved), the answers to send (after it is saved), and, when a safety rule refused the
 * input (a switch or cleanup this node did not take part in, an epoch jump), why: the agent counts
 * and logs those.
 *
 * @param refused why the input was refused by a safety rule, or null
 */
public record Applied(AgentState state, List<StoreAction> actions, List<MigrationStatus> answers, String refused) {

    public Applied {
        actions = List.copyOf(actions);
        answers = List.copyOf(answers);
    }

    public Applied(AgentState state, List<StoreAction> actions, List<MigrationStatus> answers) {
        this(state, actions, answers, null);
    }

    /** Nothing changes, nothing is said. */
    public static Applied nothing(AgentState state) {
        return new Applied(state, List.of(), List.of());
    }
}
