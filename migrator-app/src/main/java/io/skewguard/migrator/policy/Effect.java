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
}
