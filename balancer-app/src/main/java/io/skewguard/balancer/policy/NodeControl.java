package io.skewguard.balancer.policy;

/**
 * The controller's memory of one node.
 *
 * @param weight current weight factor w
 * @param gain this node's current gain; starts at the configured gain and halves every time the
 *     node's error changes sign within a repair
 * @param direction direction of the node's last step request: +1 raise, −1 lower, 0 none yet
 * @param reversals how many times the requested direction changed sign within the current repair
 */
public record NodeControl(double weight, double gain, int direction, int reversals) {

    public NodeControl {
        if (!(weight > 0) || !Double.isFinite(weight)) {
            throw new IllegalArgumentException("weight must be finite and > 0, was " + weight);
        }
        if (!(gain >= 0) || !Double.isFinite(gain)) {
            throw new IllegalArgumentException("gain must be finite and >= 0, was " + gain);
        }
        if (direction < -1 || direction > 1) {
            throw new IllegalArgumentException("direction must be -1, 0 or 1, was " + direction);
        }
        if (reversals < 0) {
            throw new IllegalArgumentException("reversals must be >= 0, was " + reversals);
        }
    }

    /** A node the controller has not touched yet: w = 1. */
    public static NodeControl initial(double gain) {
        return new NodeControl(1.0, gain, 0, 0);
    }

    NodeControl withWeight(double newWeight) {
        return new NodeControl(newWeight, gain, direction, reversals);
    }

    /** Fresh gain and no direction history, weight kept: the start of a repair. */
    NodeControl rearmed(double freshGain) {
        return new NodeControl(weight, freshGain, 0, 0);
    }
}
