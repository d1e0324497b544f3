package io.skewguard.migrator;

import io.skewguard.migrator.policy.RepairState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.avro.specific.SpecificRecord;

/**
 * Every serde of the migrator, configured once: the Avro records in the registry wire format
 * (topics, the repartition topic and the stores' changelogs alike) and the coordinator's own
 * state as JSON.
 */
final class MigratorSerdes {

    private final Map<String, ?> registryConfig;
    private final Serde<SkewAlert> alert;
    private final Serde<SkewReport> report;
    private final Serde<CapacityEvent> capacity;
    private final Serde<MigrationStatus> status;
    private final Serde<MigrationCommand> command;
    private final Serde<SlotAssignment> assignment;
    private final Serde<io.skewguard.schemas.NodeMembership> membership;
    private final Serde<OperatorControl> control;
    private final Serde<Proposal> proposal;
    private final Serde<Decision> decision;

    /** @param registryConfig the serdes' configuration: the registry URL and its credentials and TLS keys */
    MigratorSerdes(Map<String, ?> registryConfig) {
        this.registryConfig = Map.copyOf(registryConfig);
        this.alert = of(SkewAlert.class);
        this.report = of(SkewReport.class);
        this.capacity = of(CapacityEvent.class);
        this.status = of(MigrationStatus.class);
        this.command = of(MigrationCommand.class);
        this.assignment = of(SlotAssignment.class);
        this.membership = of(io.skewguard.schemas.NodeMembership.class);
        this.control = of(OperatorControl.class);
        this.proposal = of(Proposal.class);
        this.decision = of(Decision.class);
    }

    private <T extends SpecificRecord> Serde<T> of(Class<T> type) {
        return SchemaRegistrySerde.of(type, registryConfig, false);
    }

    Serde<SkewAlert> alert() {
        return alert;
    }

    Serde<SkewReport> report() {
        return report;
    }

    Serde<CapacityEvent> capacity() {
        return capacity;
    }

    Serde<MigrationStatus> status() {
        return status;
    }

    Serde<MigrationCommand> command() {
        return command;
    }

    Serde<SlotAssignment> assignment() {
        return assignment;
    }

    Serde<io.skewguard.schemas.NodeMembership> membership() {
        return membership;
    }

    Serde<OperatorControl> control() {
        return control;
    }

    Serde<Proposal> proposal() {
        return proposal;
    }

    Serde<Decision> decision() {
        return decision;
    }

    Serde<io.skewguard.migrator.policy.Member> member() {
        return JsonStateSerde.of(io.skewguard.migrator.policy.Member.class, "membership record");
    }

    Serde<MigratorInput> envelope() {
        return new InputEnvelopeSerde(this);
    }

    Serde<RepairState> repairState() {
        return JsonStateSerde.of(io.skewguard.migrator.policy.RepairState.class, "repair state");
    }
}
