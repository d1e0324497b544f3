package io.skewguard.migrator.policy;

import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.StepResult;

/** What a transition asks the outside world to do, in order. The topology carries them out. */
public sealed interface Effect {

    /** Send step {@code phase} of {@code migration} to {@code node}. */
    record SendCommand(MigrationPhase phase, Migration migration, String node, String batchId) implements Effect {}

    /** Publish the slot's row naming the migration's in-flight target: writers start dual-writing. */
    record MarkInFlight(Migration migration) implements Effect {}

    /** Publish the slot's row without in-flight target, candidates unchanged (abort). */
    record ClearInFlight(Migration migration) implements Effect {}

    /** The switch: replace source by target in the slot's candidate set, routing epoch + 1. */
    record SwitchSlot(Migration migration) implements Effect {}

    /** Say how the cluster's repair stands (started, target reached, stopped early). */
    record ReportRepair(StepResult outcome, String message) implements Effect {}

    /**
     * Put a planning step in the decision log: whether it acted (sent commands), its reason code, its
     * message for people and the figures it was based on (the topology adds the cluster's own).
     */
    record Decide(boolean acted, String reason, String message, java.util.Map<String, Double> figures) implements Effect {
        public Decide {
            figures = java.util.Map.copyOf(figures);
        }
    }

    /** Publish what the repair would do now (dry run): the plan, and the moves its first batch would start. */
    record Propose(MigrationPlan plan, java.util.List<Move> firstBatch) implements Effect {
        public Propose {
            firstBatch = java.util.List.copyOf(firstBatch);
        }
    }
}
