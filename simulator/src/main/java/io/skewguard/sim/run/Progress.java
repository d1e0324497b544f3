package io.skewguard.sim.run;

/**
 * One progress line's figures, handed to the caller once per simulated day.
 *
 * @param policy policy name
 * @param day simulated day
 * @param heatGini heat Gini of the step
 * @param capacityCv capacity CV of the step
 * @param weightChanges weight-factor changes so far
 * @param migrationsRunning migrations running now
 * @param bytesMoved bytes moved by the policy so far
 */
public record Progress(String policy, double day, double heatGini, double capacityCv, long weightChanges,
                       int migrationsRunning, double bytesMoved) {}
