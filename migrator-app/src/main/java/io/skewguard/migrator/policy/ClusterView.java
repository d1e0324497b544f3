package io.skewguard.migrator.policy;

import java.util.List;
import java.util.Map;

/**
 * The coordinator's inputs for a plan, read from its stores when (and only when) it plans.
 *
 * @param readings every node's latest capacity report
 * @param slotHeat slot heat of the latest report, indexed by slot
 * @param candidateSets the slot table: slot to candidate set
 */
public record ClusterView(List<CapacityReading> readings, long[] slotHeat, Map<Integer, List<String>> candidateSets) {}
