package io.skewguard.balancer.policy;

/**
 * A rule that turns a cluster's load reports into weight factors. {@link WeightController} is
 * SkewGuard's; the simulator compares it with siblings (e.g. a reweight-by-utilisation baseline).
 *
 * <p>Implementations are pure: the result depends only on the arguments, so a replayed report
 * yields the very same round, and so the same epoch and commands.
 */
public interface WeightPolicy {

    /** A CONFIRMED HEAT alert of the episode that started at {@code since} arrived. */
    ControllerState onHeatConfirmed(ControllerState state, long since);

    /** A new report of the cluster arrived. */
    Round onReport(ControllerState state, LoadSnapshot snapshot);
}
