package io.skewguard.dashboard;

import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.ControlKind;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.ProposedMove;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.NodeMembership;
import io.skewguard.schemas.NodeWeight;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.StepResult;
import io.skewguard.schemas.WeightCommand;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Records as the detector, balancer, migrator and agents write them, small enough to read in a test. */
final class LoopRecords {

    static final long TB = 1_000_000_000_000L;

    private LoopRecords() {
    }

    /** A report of {@code nodes} nodes n1…nN, n1 the fullest (utilisation 0.9, the others 0.5). */
    static SkewReport report(String cluster, Instant windowEnd, double gini, double cv, AlertState heat, AlertState capacity, int nodes) {
        List<NodeFigures> figures = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            double u = i == 1 ? 0.9 : 0.5;
            figures.add(NodeFigures.newBuilder().setNode("n" + i).setRack("r" + i).setHeatBytes(1000L * i)
                    .setUsedBytes((long) (u * 10 * TB)).setTotalBytes(10 * TB).setUtilisation(u).build());
        }
        return SkewReport.newBuilder().setCluster(cluster).setWindowStart(windowEnd.minusSeconds(60)).setWindowEnd(windowEnd)
                .setHeatGini(gini).setCapacityCv(cv).setShardCapacityCv(0).setNodeCount(nodes).setTotalWriteBytes(0)
                .setNodes(figures).setHottestSlots(List.of()).setHeatState(heat).setCapacityState(capacity).build();
    }

    static SkewAlert alert(String cluster, AlertKind kind, AlertState from, AlertState to, double value, double threshold, Instant at) {
        return SkewAlert.newBuilder().setAlertId(cluster + "-" + kind + "-" + to + "-" + at.toEpochMilli()).setCluster(cluster)
                .setKind(kind).setPreviousState(from).setState(to).setValue(value).setThreshold(threshold).setSince(at)
                .setEventTime(at).build();
    }

    static WeightCommand weight(String cluster, String node, long epoch, double from, double to, Instant at) {
        return WeightCommand.newBuilder().setCommandId(cluster + "-" + node + "-" + epoch).setCluster(cluster).setNode(node)
                .setEpoch(epoch).setOldWeight(from).setNewWeight(to).setReason("heat Gini above target").setIssuedAt(at).build();
    }

    static NodeWeight nodeWeight(String cluster, String node, long epoch, double weight, Instant at) {
        return NodeWeight.newBuilder().setCluster(cluster).setNode(node).setEpoch(epoch).setWeight(weight).setUpdatedAt(at).build();
    }

    static MigrationCommand command(String cluster, String id, String batch, MigrationPhase phase, String node, int slot, String source,
                                    String target, long shardBytes, Instant at) {
        return MigrationCommand.newBuilder().setCommandId(id + "-" + phase + "-" + node).setCluster(cluster).setMigrationId(id)
                .setBatchId(batch).setPhase(phase).setNode(node).setSlot(slot).setSourceNode(source).setTargetNode(target)
                .setShardBytes(shardBytes).setMaxBytesPerSec(1_000_000).setRoutingEpoch(1).setIssuedAt(at).build();
    }

    static MigrationStatus status(String cluster, String id, String node, MigrationPhase phase, StepResult outcome, long copied,
                                  Instant at) {
        return MigrationStatus.newBuilder().setCluster(cluster).setMigrationId(id).setCommandId(id + "-" + phase + "-" + node)
                .setNode(node).setPhase(phase).setOutcome(outcome).setBytesCopied(copied).setMessage(null).setEventTime(at).build();
    }

    static NodeMembership member(String cluster, String node, MembershipState state, String reason, Instant at) {
        return NodeMembership.newBuilder().setCluster(cluster).setNode(node).setState(state).setRack(null).setCapacityBytes(null)
                .setSource("operator").setReason(reason).setRoutingEpoch(null).setUpdatedAt(at).build();
    }

    static OperatorControl control(String cluster, ControlKind kind, boolean on, String node, Instant at) {
        return OperatorControl.newBuilder().setCluster(cluster).setControl(kind).setEnabled(on).setNode(node)
                .setBytesPerSec(kind == ControlKind.THROTTLE && on ? 52_428_800L : null).setOperator("alice").setReason("night shift")
                .setUpdatedAt(at).build();
    }

    static Decision decision(String cluster, String app, String reason, String message, Instant at) {
        return Decision.newBuilder().setCluster(cluster).setApp(app).setActed(false).setReason(reason).setMessage(message)
                .setDecidedAt(at).build();
    }

    static Proposal plan(String cluster, Instant at, int moves) {
        List<ProposedMove> m = new ArrayList<>();
        for (int i = 0; i < moves; i++) {
            m.add(new ProposedMove(i, "n1", "n" + (2 + i % 5), 2 * TB));
        }
        return Proposal.newBuilder().setCluster(cluster).setApp("migrator").setMoves(m).setMetric("capacity CV").setCurrent(0.31)
                .setExpected(0.08).setBytesToMove(moves * 2 * TB).setFirstBatch(Math.min(4, moves)).setProposedAt(at).build();
    }
}
