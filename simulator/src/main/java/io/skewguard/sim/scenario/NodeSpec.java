package io.skewguard.sim.scenario;

/**
 * One node of a scenario's cluster.
 *
 * @param id node id
 * @param capacityBytes total bytes, positive
 * @param rack rack, or null when unknown
 * @param ringWeight units of virtual points on the ring (1.0 = 150 points)
 */
public record NodeSpec(String id, long capacityBytes, String rack, double ringWeight) {}
