package io.skewguard.sim.model;

/**
 * What is measured at one step, over the live nodes.
 *
 * @param heatGini Gini of per-node heat (bytes written this step) divided by capacity share,
 *     idle nodes with 0 (docs/design.md §6.1)
 * @param capacityCv population CV of node utilisation (used / total)
 * @param gap highest minus lowest node utilisation
 * @param targetUtilisation cluster used / cluster total: the utilisation every node would have in balance
 * @param minimumBytes Σ max(0, used − target · total): the fewest bytes any policy must move to balance
 * @param usedBytes cluster used bytes
 * @param totalBytes cluster capacity
 */
public record ClusterFigures(
        double heatGini,
        double capacityCv,
        double gap,
        double targetUtilisation,
        double minimumBytes,
        double usedBytes,
        double totalBytes) {}
