package io.skewguard.sim.scenario;

/**
 * How write heat is spread over slots.
 *
 * <ul>
 *   <li>{@link Uniform}: every slot the same share.
 *   <li>{@link Zipf}: the slot of rank k (ranks a seeded permutation of the slots) gets a share
 *       proportional to {@code 1 / k^exponent}.
 *   <li>{@link HotPrefix}: a {@code slotFraction} of the slots (a seeded choice, as a hot key
 *       prefix would hash) takes {@code heatShare} of the writes; the rest share the remainder.
 * </ul>
 */
public sealed interface HeatSpec {

    record Uniform() implements HeatSpec {}

    record Zipf(double exponent) implements HeatSpec {}

    record HotPrefix(double slotFraction, double heatShare) implements HeatSpec {}
}
