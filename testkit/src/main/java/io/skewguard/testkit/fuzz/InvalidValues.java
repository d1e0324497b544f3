package io.skewguard.testkit.fuzz;

import static io.skewguard.testkit.fuzz.Invalid.oversized;
import static io.skewguard.testkit.fuzz.Invalid.value;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.NodeFigures;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.WriteEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * The contract violations of each SkewGuard record type (what the schema docs and docs/design.md §5
 * promise about the values), as {@link Invalid}s for the fuzz corpus: negative sizes, NaN and ±∞
 * where doubles exist, used &gt; total, empty and 10 KB ids, a cluster or node the app does not
 * serve, event times ten years ahead of and behind the clock, and one oversized (300 KB) id.
 *
 * @param unknownCluster a cluster id the app under test is not configured for
 * @param otherNode a node id that is not the one the record is for (the agent's test)
 * @param maxSlots the slot count S of the app under test: slots are {@code 0 <= slot < S}
 * @param now the clock of the test: far-future and far-past times are ten years from it
 */
public record InvalidValues(String unknownCluster, String otherNode, int maxSlots, Instant now) {

    /** Ten years, as the defect that blinds a detector: one record that far ahead of the clock. */
    public static final Duration FAR = Duration.ofDays(3652);

    public Instant farFuture() {
        return now.plus(FAR);
    }

    public Instant farPast() {
        return now.minus(FAR);
    }

    public List<Invalid<WriteEvent>> writeEvent() {
        List<Invalid<WriteEvent>> all = new ArrayList<>();
        all.add(value("negative bytes", e -> e.setBytes(-1L - e.getBytes())));
        all.add(value("negative ops", e -> e.setOps(-1L)));
        all.add(value("negative slot", e -> e.setSlot(-1)));
        all.add(value("slot >= S", e -> e.setSlot(maxSlots)));
        ids(all, WriteEvent::setCluster, WriteEvent::setNode);
        times(all, WriteEvent::setEventTime, "eventTime");
        all.add(oversized("300 KB node id", e -> e.setNode(BadRecords.longId(BadRecords.OVERSIZED_ID))));
        return all;
    }

    public List<Invalid<CapacityEvent>> capacityEvent() {
        List<Invalid<CapacityEvent>> all = new ArrayList<>();
        all.add(value("negative usedBytes", e -> e.setUsedBytes(-1L)));
        all.add(value("totalBytes 0", e -> e.setTotalBytes(0L)));
        all.add(value("negative totalBytes", e -> e.setTotalBytes(-e.getTotalBytes())));
        all.add(value("usedBytes > totalBytes", e -> e.setUsedBytes(e.getTotalBytes() + 1)));
        all.add(value("negative shard usedBytes", e -> e.setShards(List.of(new ShardUsage(0, -1L)))));
        all.add(value("shard slot >= S", e -> e.setShards(List.of(new ShardUsage(maxSlots, 1L)))));
        ids(all, CapacityEvent::setCluster, CapacityEvent::setNode);
        times(all, CapacityEvent::setEventTime, "eventTime");
        all.add(oversized("300 KB node id", e -> e.setNode(BadRecords.longId(BadRecords.OVERSIZED_ID))));
        return all;
    }

    public List<Invalid<SkewReport>> skewReport() {
        List<Invalid<SkewReport>> all = new ArrayList<>();
        for (double d : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -0.5}) {
            all.add(value("heatGini " + d, r -> r.setHeatGini(d)));
            all.add(value("capacityCv " + d, r -> r.setCapacityCv(d)));
            all.add(value("utilisation " + d, r -> r.getNodes().get(0).setUtilisation(d)));
        }
        all.add(value("negative totalWriteBytes", r -> r.setTotalWriteBytes(-1L)));
        all.add(value("negative node heatBytes", r -> r.getNodes().get(0).setHeatBytes(-1L)));
        all.add(value("node usedBytes > totalBytes", r -> {
            NodeFigures n = r.getNodes().get(0);
            n.setUsedBytes(n.getTotalBytes() + 1);
        }));
        all.add(value("negative slot heat", r -> r.setSlotHeat(List.of(-1L))));
        all.add(value("windowEnd before windowStart", r -> r.setWindowEnd(r.getWindowStart().minusSeconds(1))));
        all.add(value("empty node id", r -> r.getNodes().get(0).setNode("")));
        all.add(value("10 KB node id", r -> r.getNodes().get(0).setNode(BadRecords.longId(BadRecords.LONG_ID))));
        clusterIds(all, SkewReport::setCluster);
        all.add(value("windowEnd far future", r -> {
            r.setWindowStart(farFuture().minusSeconds(60));
            r.setWindowEnd(farFuture());
        }));
        all.add(value("windowEnd far past", r -> {
            r.setWindowStart(farPast().minusSeconds(60));
            r.setWindowEnd(farPast());
        }));
        all.add(oversized("300 KB cluster id", r -> r.setCluster(BadRecords.longId(BadRecords.OVERSIZED_ID))));
        return all;
    }

    public List<Invalid<SkewAlert>> skewAlert() {
        List<Invalid<SkewAlert>> all = new ArrayList<>();
        for (double d : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY}) {
            all.add(value("value " + d, a -> a.setValue(d)));
            all.add(value("threshold " + d, a -> a.setThreshold(d)));
        }
        all.add(value("negative value", a -> a.setValue(-0.5)));
        clusterIds(all, SkewAlert::setCluster);
        times(all, SkewAlert::setSince, "since");
        times(all, SkewAlert::setEventTime, "eventTime");
        all.add(oversized("300 KB cluster id", a -> a.setCluster(BadRecords.longId(BadRecords.OVERSIZED_ID))));
        return all;
    }

    public List<Invalid<MigrationStatus>> migrationStatus() {
        List<Invalid<MigrationStatus>> all = new ArrayList<>();
        all.add(value("negative bytesCopied", s -> s.setBytesCopied(-1L)));
        all.add(value("empty migrationId", s -> s.setMigrationId("")));
        all.add(value("10 KB migrationId", s -> s.setMigrationId(BadRecords.longId(BadRecords.LONG_ID))));
        // no "unknown migrationId": an answer for a migration the coordinator does not run (a late
        // duplicate after its batch ended) is ordinary under at-least-once delivery and ignored, not
        // bad input (docs/migrator.md); the decoder cannot tell it from a current one either
        ids(all, MigrationStatus::setCluster, MigrationStatus::setNode);
        times(all, MigrationStatus::setEventTime, "eventTime");
        all.add(oversized("300 KB migration id", s -> s.setMigrationId(BadRecords.longId(BadRecords.OVERSIZED_ID))));
        return all;
    }

    public List<Invalid<WeightCommand>> weightCommand() {
        List<Invalid<WeightCommand>> all = new ArrayList<>();
        for (double d : new double[] {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -1.0, 0.0, 2.5}) {
            all.add(value("newWeight " + d, c -> c.setNewWeight(d)));
        }
        all.add(value("oldWeight NaN", c -> c.setOldWeight(Double.NaN)));
        all.add(value("negative epoch", c -> c.setEpoch(-1L)));
        all.add(value("epoch Long.MAX_VALUE", c -> c.setEpoch(Long.MAX_VALUE)));
        all.add(value("another node", c -> c.setNode(otherNode)));
        all.add(value("empty node id", c -> c.setNode("")));
        all.add(value("empty cluster id", c -> c.setCluster("")));
        all.add(value("unknown cluster", c -> c.setCluster(unknownCluster)));
        all.add(value("empty commandId", c -> c.setCommandId("")));
        all.add(oversized("300 KB reason", c -> c.setReason(BadRecords.longId(BadRecords.OVERSIZED_ID))));
        return all;
    }

    public List<Invalid<MigrationCommand>> migrationCommand() {
        List<Invalid<MigrationCommand>> all = new ArrayList<>();
        all.add(value("negative slot", c -> c.setSlot(-1)));
        all.add(value("slot >= S", c -> c.setSlot(maxSlots)));
        all.add(value("source == target", c -> c.setSourceNode(c.getTargetNode())));
        all.add(value("negative shardBytes", c -> c.setShardBytes(-1L)));
        all.add(value("negative maxBytesPerSec", c -> c.setMaxBytesPerSec(-1L)));
        all.add(value("negative routingEpoch", c -> c.setRoutingEpoch(-1L)));
        all.add(value("routingEpoch Long.MAX_VALUE", c -> c.setRoutingEpoch(Long.MAX_VALUE)));
        all.add(value("empty migrationId", c -> c.setMigrationId("")));
        all.add(value("10 KB migrationId", c -> c.setMigrationId(BadRecords.longId(BadRecords.LONG_ID))));
        all.add(value("another node", c -> c.setNode(otherNode)));
        all.add(value("COPY to the source", c -> {
            c.setNode(c.getSourceNode());
        }));
        all.add(value("empty cluster id", c -> c.setCluster("")));
        all.add(value("unknown cluster", c -> c.setCluster(unknownCluster)));
        all.add(oversized("300 KB migration id", c -> c.setMigrationId(BadRecords.longId(BadRecords.OVERSIZED_ID))));
        return all;
    }

    private <T> void ids(List<Invalid<T>> all, BiConsumer<T, String> cluster, BiConsumer<T, String> node) {
        clusterIds(all, cluster);
        all.add(value("empty node id", r -> node.accept(r, "")));
        all.add(value("10 KB node id", r -> node.accept(r, BadRecords.longId(BadRecords.LONG_ID))));
    }

    private <T> void clusterIds(List<Invalid<T>> all, BiConsumer<T, String> cluster) {
        all.add(value("empty cluster id", r -> cluster.accept(r, "")));
        all.add(value("10 KB cluster id", r -> cluster.accept(r, BadRecords.longId(BadRecords.LONG_ID))));
        all.add(value("unknown cluster", r -> cluster.accept(r, unknownCluster)));
    }

    private <T> void times(List<Invalid<T>> all, BiConsumer<T, Instant> time, String field) {
        all.add(value(field + " far future", r -> time.accept(r, farFuture())));
        all.add(value(field + " far past", r -> time.accept(r, farPast())));
    }
}
