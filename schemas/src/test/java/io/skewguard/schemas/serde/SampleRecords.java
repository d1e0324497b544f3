package io.skewguard.schemas.serde;

import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.ProposedMove;
import io.skewguard.schemas.ProposedWeight;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.SlotAssignment;
import io.skewguard.schemas.SlotHeat;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.WriteEvent;
import java.time.Instant;
import java.util.List;
import org.apache.avro.specific.SpecificRecord;

/**
 * One non-trivial instance of every top-level record of schemas/src/main/avro, twice: once with
 * every nullable field set and arrays filled, once with nullables unset and arrays empty.
 */
final class SampleRecords {

  static final Instant T0 = Instant.ofEpochMilli(1_735_689_600_123L);

  private SampleRecords() {}

  /** Every top-level record class with its samples; a new .avsc must be added here. */
  static List<SpecificRecord> all() {
    return List.of(
        writeEvent(),
        capacityFull(), capacitySparse(),
        reportFull(), reportSparse(),
        alert(),
        weightCommand(),
        nodeWeight(),
        migrationCommandFull(), migrationCommandSparse(),
        migrationStatusFull(), migrationStatusSparse(),
        slotAssignmentFull(), slotAssignmentSparse(),
        nodeMembershipFull(), nodeMembershipSparse(),
        controlFull(), controlSparse(),
        decisionFull(), decisionSparse(),
        proposalFull(), proposalSparse());
  }

  static WriteEvent writeEvent() {
    return WriteEvent.newBuilder()
        .setCluster("eu-1").setNode("node-07").setSlot(4095)
        .setBytes(9_876_543_210L).setOps(12_345L).setEventTime(T0)
        .build();
  }

  static CapacityEvent capacityFull() {
    return CapacityEvent.newBuilder()
        .setCluster("eu-1").setNode("node-07")
        .setUsedBytes(700_000_000_000L).setTotalBytes(1_000_000_000_000L)
        .setRack("rack-ü3")
        .setShards(List.of(
            ShardUsage.newBuilder().setSlot(0).setUsedBytes(1L).build(),
            ShardUsage.newBuilder().setSlot(17).setUsedBytes(Long.MAX_VALUE).build()))
        .setEventTime(T0)
        .build();
  }

  static CapacityEvent capacitySparse() {
    return CapacityEvent.newBuilder()
        .setCluster("eu-1").setNode("node-08")
        .setUsedBytes(0L).setTotalBytes(1L)
        .setEventTime(T0.plusSeconds(1))
        .build();
  }

  static SkewReport reportFull() {
    return SkewReport.newBuilder()
        .setCluster("eu-1")
        .setWindowStart(T0.minusSeconds(300)).setWindowEnd(T0)
        .setHeatGini(0.4375).setCapacityCv(0.21).setShardCapacityCv(1.5e-3)
        .setNodeCount(2).setTotalWriteBytes(123_456_789L)
        .setNodes(List.of(
            NodeFigures.newBuilder().setNode("node-01").setRack("r1").setHeatBytes(100L)
                .setUsedBytes(50L).setTotalBytes(100L).setUtilisation(0.5).build(),
            NodeFigures.newBuilder().setNode("node-02").setRack(null).setHeatBytes(0L)
                .setUsedBytes(0L).setTotalBytes(0L).setUtilisation(0.0).build()))
        .setHottestSlots(List.of(
            SlotHeat.newBuilder().setSlot(7).setHeatBytes(99L).build(),
            SlotHeat.newBuilder().setSlot(3).setHeatBytes(1L).build()))
        .setSlotHeat(List.of(0L, 0L, 0L, 1L, 0L, 0L, 0L, 99L))
        .setHeatState(AlertState.CONFIRMED).setCapacityState(AlertState.OBSERVING)
        .build();
  }

  static SkewReport reportSparse() {
    return SkewReport.newBuilder()
        .setCluster("empty")
        .setWindowStart(T0).setWindowEnd(T0)
        .setHeatGini(0.0).setCapacityCv(0.0).setShardCapacityCv(0.0)
        .setNodeCount(0).setTotalWriteBytes(0L)
        .setNodes(List.of()).setHottestSlots(List.of())
        .setHeatState(AlertState.NORMAL).setCapacityState(AlertState.NORMAL)
        .build();
  }

  static SkewAlert alert() {
    return SkewAlert.newBuilder()
        .setAlertId("eu-1/HEAT/CONFIRMED/1735689600123").setCluster("eu-1")
        .setKind(AlertKind.HEAT).setPreviousState(AlertState.OBSERVING).setState(AlertState.CONFIRMED)
        .setValue(0.61).setThreshold(0.35).setSince(T0.minusSeconds(60)).setEventTime(T0)
        .build();
  }

  static WeightCommand weightCommand() {
    return WeightCommand.newBuilder()
        .setCommandId("eu-1/42/node-07").setCluster("eu-1").setNode("node-07").setEpoch(42L)
        .setOldWeight(1.0).setNewWeight(0.85).setReason("load ratio 1.31, heat Gini 0.44")
        .setIssuedAt(T0)
        .build();
  }

  static NodeWeight nodeWeight() {
    return NodeWeight.newBuilder()
        .setCluster("eu-1").setNode("node-07").setEpoch(42L).setWeight(0.5).setUpdatedAt(T0)
        .build();
  }

  static MigrationCommand migrationCommandFull() {
    return MigrationCommand.newBuilder()
        .setCommandId("m-1/PREPARE/node-02").setCluster("eu-1").setMigrationId("m-1")
        .setBatchId("batch-9").setPhase(MigrationPhase.PREPARE).setNode("node-02").setSlot(1234)
        .setSourceNode("node-01").setTargetNode("node-02").setShardBytes(5_000_000L)
        .setMaxBytesPerSec(0L).setRoutingEpoch(17L).setIssuedAt(T0)
        .build();
  }

  static MigrationCommand migrationCommandSparse() {
    return MigrationCommand.newBuilder()
        .setCommandId("m-1/COPY/node-02").setCluster("eu-1").setMigrationId("m-1")
        .setPhase(MigrationPhase.COPY).setNode("node-02").setSlot(1234)
        .setSourceNode("node-01").setTargetNode("node-02").setShardBytes(5_000_000L)
        .setMaxBytesPerSec(10_000_000L).setRoutingEpoch(16L).setIssuedAt(T0)
        .build();
  }

  static MigrationStatus migrationStatusFull() {
    return MigrationStatus.newBuilder()
        .setCluster("eu-1").setMigrationId("m-1").setCommandId("m-1/COPY/node-02").setNode("node-02")
        .setPhase(MigrationPhase.COPY).setOutcome(StepResult.FAILED).setBytesCopied(4_000_000L)
        .setMessage("disk full on node-02").setEventTime(T0)
        .build();
  }

  static MigrationStatus migrationStatusSparse() {
    return MigrationStatus.newBuilder()
        .setCluster("eu-1").setMigrationId("m-1").setCommandId("m-1/CLEANUP/node-01").setNode("node-01")
        .setPhase(MigrationPhase.CLEANUP).setOutcome(StepResult.DONE).setEventTime(T0)
        .build();
  }

  static SlotAssignment slotAssignmentFull() {
    return SlotAssignment.newBuilder()
        .setCluster("eu-1").setSlot(1234).setRoutingEpoch(17L)
        .setCandidates(List.of("node-01", "node-05", "node-09"))
        .setReadOnly(List.of("node-05"))
        .setInFlightTarget("node-02").setInFlightSource("node-01").setMigrationId("m-1")
        .setUpdatedAt(T0)
        .build();
  }

  static SlotAssignment slotAssignmentSparse() {
    return SlotAssignment.newBuilder()
        .setCluster("eu-1").setSlot(0).setRoutingEpoch(1L).setCandidates(List.of("node-01"))
        .setUpdatedAt(T0)
        .build();
  }

  static NodeMembership nodeMembershipFull() {
    return NodeMembership.newBuilder()
        .setCluster("eu-1").setNode("node-07").setState(MembershipState.LOST).setRack("rack-3")
        .setCapacityBytes(100_000_000_000_000L).setSource("migrator")
        .setReason("lost: no capacity report for 1d; replaced in 37 candidate sets at routing epoch 58")
        .setRoutingEpoch(58L).setUpdatedAt(T0)
        .build();
  }

  static NodeMembership nodeMembershipSparse() {
    return NodeMembership.newBuilder()
        .setCluster("eu-1").setNode("node-08").setState(MembershipState.DRAINING).setSource("operator")
        .setUpdatedAt(T0)
        .build();
  }

  static OperatorControl controlFull() {
    return OperatorControl.newBuilder()
        .setCluster("eu-1").setControl(ControlKind.THROTTLE).setEnabled(true).setBytesPerSec(52_428_800L)
        .setOperator("alice").setReason("backup window").setUpdatedAt(T0)
        .build();
  }

  static OperatorControl controlSparse() {
    return OperatorControl.newBuilder()
        .setCluster("eu-1").setControl(ControlKind.EXCLUDE).setNode("node-07").setEnabled(false)
        .setOperator("bob").setUpdatedAt(T0)
        .build();
  }

  static Decision decisionFull() {
    return Decision.newBuilder()
        .setCluster("eu-1").setApp("balancer").setActed(false).setReason("FLOOR_REACHED")
        .setMessage("weights reached their floor: heat Gini 0.298 above the repair target 0.200")
        .setFigures(java.util.Map.of("heatGini", 0.298, "target", 0.2, "weightsEpoch", 12.0))
        .setDecidedAt(T0)
        .build();
  }

  static Decision decisionSparse() {
    return Decision.newBuilder()
        .setCluster("eu-1").setApp("migrator").setActed(true).setReason("BATCH_STARTED").setMessage("batch b000001 starts 4 moves")
        .setDecidedAt(T0)
        .build();
  }

  static Proposal proposalFull() {
    return Proposal.newBuilder()
        .setCluster("eu-1").setApp("migrator")
        .setWeights(List.of(new ProposedWeight("node-01", 1.0, 0.95, 1.31)))
        .setMoves(List.of(new ProposedMove(17, "node-01", "node-09", 1_234_567_890L)))
        .setMetric("capacity CV").setCurrent(0.31).setExpected(0.09).setBytesToMove(1_234_567_890L).setFirstBatch(1)
        .setProposedAt(T0)
        .build();
  }

  static Proposal proposalSparse() {
    return Proposal.newBuilder()
        .setCluster("eu-1").setApp("balancer").setMetric("heat Gini").setCurrent(0.45).setExpected(0.45).setBytesToMove(0)
        .setProposedAt(T0)
        .build();
  }
}
