package io.skewguard.migrator.control;

import io.skewguard.schemas.ControlKind;

/** What an operator asks of {@code skewguard ctl}: one control of one cluster, set on or off. */
public sealed interface ControlChange {

    ControlKind kind();

    /** Whether the control is set (dry run on, paused, a fixed rate, the node excluded). */
    boolean on();

    /** The node, for {@link Exclude}; null for the others. */
    default String node() {
        return null;
    }

    /** The rate, for {@link Throttle} on; null for the others. */
    default Long bytesPerSec() {
        return null;
    }

    /** {@code ctl dry-run on|off}. */
    record DryRun(boolean on) implements ControlChange {
        public ControlKind kind() {
            return ControlKind.DRY_RUN;
        }
    }

    /** {@code ctl pause} (on) and {@code ctl resume} (off). */
    record Pause(boolean on) implements ControlChange {
        public ControlKind kind() {
            return ControlKind.PAUSE;
        }
    }

    /** {@code ctl throttle BYTES_PER_SEC|auto}: a rate of 0 stands for auto. */
    record Throttle(long rate) implements ControlChange {
        public Throttle {
            if (rate < 0) {
                throw new IllegalArgumentException("a throttle is 'auto' or a positive rate, was " + rate);
            }
        }

        public ControlKind kind() {
            return ControlKind.THROTTLE;
        }

        public boolean on() {
            return rate > 0;
        }

        @Override
        public Long bytesPerSec() {
            return rate > 0 ? rate : null;
        }
    }

    /** {@code ctl exclude NODE} (on) and {@code ctl include NODE} (off). */
    record Exclude(String node, boolean on) implements ControlChange {
        public ControlKind kind() {
            return ControlKind.EXCLUDE;
        }
    }
}
