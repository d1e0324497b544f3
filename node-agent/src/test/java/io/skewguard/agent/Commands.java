package io.skewguard.agent;

import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationPhase;
import io.skewguard.schemas.WeightCommand;
import java.time.Instant;

/** Commands as the balancer and the migrator build them (deterministic ids), for tests. */
public final class Commands {

    public static final String CLUSTER = "c1";

    private Commands() {}

    public static WeightCommand weight(String node, long epoch, double weight) {
        return WeightCommand.newBuilder()
                .setCommandId(CLUSTER + "/" + epoch + "/" + node).setCluster(CLUSTER).setNode(node).setEpoch(epoch)
                .setOldWeight(1.0).setNewWeight(weight).setReason("test").setIssuedAt(Instant.ofEpochMilli(epoch)).build();
    }

    /** Step {@code phase} of migration {@code id} (slot from source to target), sent to {@code node}. */
    public static MigrationCommand step(MigrationPhase phase, String id, int slot, String source, String target, String node) {
        return step(phase, id, slot, source, target, node, 0);
    }

    public static MigrationCommand step(MigrationPhase phase, String id, int slot, String source, String target, String node,
                                        long maxBytesPerSec) {
        boolean switchStep = phase == MigrationPhase.PREPARE || phase == MigrationPhase.COMMIT || phase == MigrationPhase.ABORT;
        return MigrationCommand.newBuilder()
                .setCommandId(id + "/" + phase + "/" + node).setCluster(CLUSTER).setMigrationId(id)
                .setBatchId(switchStep ? "b-" + id : null).setPhase(phase).setNode(node).setSlot(slot)
                .setSourceNode(source).setTargetNode(target).setShardBytes(1000)
                .setMaxBytesPerSec(phase == MigrationPhase.COPY ? maxBytesPerSec : 0)
                .setRoutingEpoch(routingEpoch(phase)).setIssuedAt(Instant.ofEpochMilli(0)).build();
    }

    /**
     * The routing epoch the migrator puts in a step of a migration started at epoch 1: the slot
     * table's epoch, 2 once the slot is switched (COMMIT, CLEANUP).
     */
    public static long routingEpoch(MigrationPhase phase) {
        return phase == MigrationPhase.COMMIT || phase == MigrationPhase.CLEANUP ? 2 : 1;
    }
}
