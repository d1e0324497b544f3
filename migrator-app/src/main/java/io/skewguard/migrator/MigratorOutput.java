package io.skewguard.migrator;

import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.SlotAssignment;

/** What the coordinator publishes: a command, a slot-table row or a repair status. */
sealed interface MigratorOutput {

    record Command(MigrationCommand value) implements MigratorOutput {}

    record Assignment(SlotAssignment value) implements MigratorOutput {}

    record RepairStatus(MigrationStatus value) implements MigratorOutput {}
}
