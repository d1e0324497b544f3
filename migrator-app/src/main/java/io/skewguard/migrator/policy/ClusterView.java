package io.skewguard.migrator.policy;

import java.util.List;
import java.util.Map;

/**
 * The coordinator's inputs for a plan, read from its stores when (and only when) it plans.
 *
 * @param readings every node's latest capacity report
 * @param slotHeat slot heat of the latest report, indexed by slot
 * @param candidateSets the slot table: slot to candidate set
 * @param draining nodes being drained (sources of all they hold, never targets)
 */
public record ClusterView(List<CapacityReading> readings, long[] slotHeat, Map<Integer, List<String>> candidateSets,
        java.util.Set<String> draining) {

    public ClusterView(List<CapacityReading> readings, long[] slotHeat, Map<Integer, List<String>> candidateSets) {
        this(readings, slotHeat, candidateSets, java.util.Set.of());
    }

    /** This view with only the readings of {@code planned} nodes, and {@code draining} marked. */
    public ClusterView planning(java.util.function.Predicate<String> planned, java.util.Set<String> draining) {
        return new ClusterView(readings.stream().filter(r -> planned.test(r.node())).toList(), slotHeat, candidateSets, draining);
    }
}
