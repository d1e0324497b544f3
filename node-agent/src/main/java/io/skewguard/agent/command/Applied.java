package io.skewguard.agent.command;

import io.skewguard.schemas.MigrationStatus;
import java.util.List;

/**
 * The outcome of applying one input: the next state, the store steps to carry out (in order, before
 * the state is saved), and the answers to send (after it is saved).
 */
public record Applied(AgentState state, List<StoreAction> actions, List<MigrationStatus> answers) {

    public Applied {
        actions = List.copyOf(actions);
        answers = List.copyOf(answers);
    }

    /** Nothing changes, nothing is said. */
    public static Applied nothing(AgentState state) {
        return new Applied(state, List.of(), List.of());
    }
}
