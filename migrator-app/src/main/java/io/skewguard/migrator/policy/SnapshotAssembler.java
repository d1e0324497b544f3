package io.skewguard.migrator.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds the planner's {@link ClusterSnapshot} from the nodes' latest capacity reports, the slot
 * heat of the latest {@code SkewReport} and the slot table, corrected for committed moves the
 * reports do not show yet (so a plan made right after a batch does not move the same excess twice).
 *
 * <p>A shard (slot, node) is movable when the node is in the slot's candidate set; its heat is the
 * slot's heat in the detector's window (0 for a slot the report does not cover).
 */
public final class SnapshotAssembler {

    private SnapshotAssembler() {}

    public static ClusterSnapshot assemble(
            List<CapacityReading> readings, long[] slotHeat, Map<Integer, List<String>> candidateSets, List<AppliedMove> unreported) {
        return assemble(readings, slotHeat, candidateSets, unreported, java.util.Set.of());
    }

    /** As above, with the nodes being drained (sources of every shard they hold, never targets). */
    public static ClusterSnapshot assemble(List<CapacityReading> readings, long[] slotHeat, Map<Integer, List<String>> candidateSets,
            List<AppliedMove> unreported, java.util.Set<String> draining) {
        return assemble(readings, slotHeat, candidateSets, unreported, draining, java.util.Set.of());
    }

    /** As above, with the nodes an operator excluded (never a source or target). */
    public static ClusterSnapshot assemble(List<CapacityReading> readings, long[] slotHeat, Map<Integer, List<String>> candidateSets,
            List<AppliedMove> unreported, java.util.Set<String> draining, java.util.Set<String> excluded) {
        Map<String, long[]> used = new HashMap<>();
        Map<String, Map<Integer, Long>> shards = new HashMap<>();
        Map<String, CapacityReading> byNode = new HashMap<>();
        for (CapacityReading r : readings) {
            byNode.put(r.node(), r);
            used.put(r.node(), new long[] {r.usedBytes()});
            shards.put(r.node(), new HashMap<>(r.shardBytes()));
        }
        for (AppliedMove move : unreported) {
            CapacityReading source = byNode.get(move.source());
            if (source != null && source.eventTime() < move.sourceCleanedAt()) {
                Long listed = shards.get(move.source()).remove(move.slot());
                used.get(move.source())[0] -= listed == null ? move.bytes() : listed;
            }
            CapacityReading target = byNode.get(move.target());
            if (target != null && target.eventTime() < move.targetCommittedAt()) {
                Long listed = shards.get(move.target()).put(move.slot(), move.bytes());
                used.get(move.target())[0] += move.bytes() - (listed == null ? 0 : listed);
            }
        }
        List<NodeCapacity> nodes = new ArrayList<>();
        List<ShardLoad> shardLoads = new ArrayList<>();
        for (CapacityReading r : readings) {
            long u = Math.max(0, Math.min(r.totalBytes(), used.get(r.node())[0]));
            nodes.add(new NodeCapacity(r.node(), u, r.totalBytes(), r.rack()));
            shards.get(r.node()).forEach((slot, bytes) -> {
                List<String> set = candidateSets.get(slot);
                if (set != null && set.contains(r.node())) {
                    long heat = slot < slotHeat.length ? slotHeat[slot] : 0;
                    shardLoads.add(new ShardLoad(slot, r.node(), bytes, heat));
                }
            });
        }
        java.util.Set<String> known = new java.util.HashSet<>(draining);
        known.retainAll(byNode.keySet());
        java.util.Set<String> held = new java.util.HashSet<>(excluded);
        held.retainAll(byNode.keySet());
        return new ClusterSnapshot(nodes, shardLoads, candidateSets, known, held);
    }

    /** The moves some report still does not show. */
    public static List<AppliedMove> stillUnreported(List<AppliedMove> moves, List<CapacityReading> readings) {
        Map<String, Long> reportedAt = new HashMap<>();
        for (CapacityReading r : readings) {
            reportedAt.put(r.node(), r.eventTime());
        }
        List<AppliedMove> pending = new ArrayList<>();
        for (AppliedMove m : moves) {
            boolean sourceShows = reportedAt.getOrDefault(m.source(), Long.MIN_VALUE) >= m.sourceCleanedAt();
            boolean targetShows = reportedAt.getOrDefault(m.target(), Long.MIN_VALUE) >= m.targetCommittedAt();
            if (!sourceShows || !targetShows) {
                pending.add(m);
            }
        }
        return pending;
    }
}
