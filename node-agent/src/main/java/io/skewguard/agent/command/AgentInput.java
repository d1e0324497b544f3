package io.skewguard.agent.command;

import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.WeightCommand;
import java.util.Objects;

/**
 * Everything that can change an agent's state: the two kinds of command from Kafka, and what the
 * node's store reports about a running copy. The agent loop and the tests feed these, one at a time,
 * to {@link CommandApplier}.
 */
public sealed interface AgentInput {

    /** Applies this input to {@code state} with {@code applier} at time {@code nowMillis}. */
    Applied applyTo(CommandApplier applier, AgentState state, long nowMillis);

    /** A weight command. */
    record Weight(WeightCommand command) implements AgentInput {
        public Weight {
            Objects.requireNonNull(command, "command");
        }

        @Override
        public Applied applyTo(CommandApplier applier, AgentState state, long nowMillis) {
            return applier.apply(state, command);
        }
    }

    /** A migration step. */
    record Step(MigrationCommand command) implements AgentInput {
        public Step {
            Objects.requireNonNull(command, "command");
        }

        @Override
        public Applied applyTo(CommandApplier applier, AgentState state, long nowMillis) {
            return applier.apply(state, command, nowMillis);
        }
    }

    /** The store copied {@code bytesCopied} bytes of the migration's shard so far. */
    record CopyProgressed(String migrationId, long bytesCopied) implements AgentInput {
        @Override
        public Applied applyTo(CommandApplier applier, AgentState state, long nowMillis) {
            return applier.copyProgressed(state, migrationId, bytesCopied, nowMillis);
        }
    }

    /** The store finished the copy: {@code bytesCopied} bytes in all. */
    record CopyCompleted(String migrationId, long bytesCopied) implements AgentInput {
        @Override
        public Applied applyTo(CommandApplier applier, AgentState state, long nowMillis) {
            return applier.copyCompleted(state, migrationId, bytesCopied, nowMillis);
        }
    }

    /** The store could not copy. */
    record CopyFailed(String migrationId, String message) implements AgentInput {
        @Override
        public Applied applyTo(CommandApplier applier, AgentState state, long nowMillis) {
            return applier.copyFailed(state, migrationId, message, nowMillis);
        }
    }
}
