package io.skewguard.balancer.policy;

/**
 * One node's weight change in a round.
 *
 * @param node node id
 * @param oldWeight weight factor before the round
 * @param newWeight weight factor after the round
 * @param loadRatio the node's load ratio r = heat share ÷ capacity share that caused it (NaN for a
 *     decay step, which is not driven by load)
 */
public record WeightChange(String node, double oldWeight, double newWeight, double loadRatio) {}
