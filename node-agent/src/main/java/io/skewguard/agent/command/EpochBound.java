package io.skewguard.agent.command;

import java.util.Optional;

/**
 * How far a weight or routing epoch may jump past the newest one applied (setting
 * {@code max-epoch-jump}, docs/agents.md). Epochs only go up and an older one is ignored, so a single
 * record with an epoch like {@code Long.MAX_VALUE} would otherwise be adopted and make every later,
 * real command "older": the node would be pinned for good. A refused epoch is never adopted.
 *
 * <p>Before anything is applied the reference is 0, the epoch every cluster starts from: the
 * balancer and the migrator count their epochs up from there, one per round and per switch.
 *
 * @param maxJump the largest allowed {@code epoch − reference}, at least 1
 */
public record EpochBound(long maxJump) {

    /** Default of {@code max-epoch-jump}: a million rounds (about four years of 2-minute rounds) or switches. */
    public static final long DEFAULT_MAX_JUMP = 1_000_000;

    public EpochBound {
        if (maxJump < 1) {
            throw new IllegalArgumentException("max-epoch-jump must be at least 1, was " + maxJump);
        }
    }

    /** The bound of {@link #DEFAULT_MAX_JUMP}. */
    public static EpochBound defaults() {
        return new EpochBound(DEFAULT_MAX_JUMP);
    }

    /**
     * Why {@code epoch} (a {@code what}, e.g. "weight epoch") must not be adopted after
     * {@code reference} (the newest applied, or a negative number for none), or empty if it may.
     */
    public Optional<String> problem(String what, long reference, long epoch) {
        long from = Math.max(0, reference);
        if (epoch > from && epoch - from > maxJump) {
            return Optional.of(what + " " + epoch + " jumps " + (epoch - from) + " past " + from
                    + " (max-epoch-jump " + maxJump + "): refused, not adopted");
        }
        return Optional.empty();
    }
}
