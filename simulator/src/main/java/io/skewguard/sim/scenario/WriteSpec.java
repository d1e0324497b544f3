package io.skewguard.sim.scenario;

/**
 * The cluster's write load.
 *
 * @param bytesPerDay bytes written per day at the start (before growth and the daily cycle)
 * @param growthPerDay relative growth of the write rate per day (0.01 = +1 % a day, compounded)
 * @param diurnalAmplitude amplitude of the daily cycle: the rate is multiplied by
 *     {@code 1 + a·sin(2π·t/1d)}, so troughs and peaks exist for the migration rate limiter
 * @param noise standard deviation of the per-slot, per-step multiplicative noise (log-normal), 0 for none
 */
public record WriteSpec(long bytesPerDay, double growthPerDay, double diurnalAmplitude, double noise) {}
