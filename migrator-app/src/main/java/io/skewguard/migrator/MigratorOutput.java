package io.skewguard.migrator;

import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SlotAssignment;
import org.apache.kafka.common.header.Headers;

/**
 * What the coordinator publishes: a command, a slot-table row (null: the row is deleted), a repair
 * status, a membership record, a dry run's proposal, a decision, or an input record it refused.
 */
sealed interface MigratorOutput {

    record Command(MigrationCommand value) implements MigratorOutput {}

    record Assignment(SlotAssignment value) implements MigratorOutput {}

    record RepairStatus(MigrationStatus value) implements MigratorOutput {}

    /** A membership record the migrator writes (joined, drained, lost, removed, drain cancelled). */
    record Membership(NodeMembership value) implements MigratorOutput {}

    /** What the migrator would do, in dry run (topic proposals). */
    record Proposal(io.skewguard.schemas.Proposal value) implements MigratorOutput {}

    /** Why a planning step acted or did not (topic decisions). */
    record Decision(io.skewguard.schemas.Decision value) implements MigratorOutput {}

    /** An input record refused past the decoder (over-capacity): re-encoded value, dead-letter headers. */
    record Refused(byte[] value, Headers headers) implements MigratorOutput {}
}
