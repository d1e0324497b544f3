package io.skewguard.migrator.policy;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The coordinator's inputs for a plan, read from its stores when (and only when) it plans.
 *
 * @param readings every node's latest capacity report
 * @param slotHeat slot heat of the latest report, indexed by slot
 * @param candidateSets the slot table: slot to candidate set
 * @param draining nodes being drained (sources of all they hold, never targets)
 * @param excluded nodes an operator excluded (never a source or target)
 */
public record ClusterView(List<CapacityReading> readings, long[] slotHeat, Map<Integer, List<String>> candidateSets,
        Set<String> draining, Set<String> excluded) {

    public ClusterView(List<CapacityReading> readings, long[] slotHeat, Map<Integer, List<String>> candidateSets) {
        this(readings, slotHeat, candidateSets, Set.of(), Set.of());
    }

    /** This view with only the readings of {@code planned} nodes, and {@code draining} and {@code excluded} marked. */
    public ClusterView planning(java.util.function.Predicate<String> planned, Set<String> draining, Set<String> excluded) {
        return new ClusterView(readings.stream().filter(r -> planned.test(r.node())).toList(), slotHeat, candidateSets, draining,
                excluded);
    }

    /** The snapshot the planner plans from, with {@code candidateSets} and {@code unreported} as given. */
    public ClusterSnapshot snapshot(Map<Integer, List<String>> sets, List<AppliedMove> unreported) {
        return SnapshotAssembler.assemble(readings, slotHeat, sets, unreported, draining, excluded);
    }
}
