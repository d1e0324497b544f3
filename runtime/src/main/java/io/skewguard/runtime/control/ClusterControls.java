package io.skewguard.runtime.control;

import io.skewguard.schemas.OperatorControl;
import java.util.Collections;
import java.util.Locale;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The operator controls of one cluster as they stand: the fold of the latest {@code OperatorControl}
 * record of each of its keys on the compacted control topic (docs/operations.md, "Operator
 * control"). Pure and immutable; {@link #NONE} is a cluster nobody has set anything for.
 *
 * @param dryRun the balancer and the migrator publish proposals instead of commands
 * @param paused no new weight round and no new migration batch; running copies hold after their step
 * @param throttleBytesPerSec the migration budget the operator fixed, in bytes per second; 0 when the
 *     budget follows the write load ({@code auto})
 * @param excluded nodes that are never a migration source or target and whose weight stays
 */
public record ClusterControls(boolean dryRun, boolean paused, long throttleBytesPerSec, SortedSet<String> excluded) {

    /** Nothing set: the apps act on their own. */
    public static final ClusterControls NONE = new ClusterControls(false, false, 0, new TreeSet<>());

    public ClusterControls {
        if (throttleBytesPerSec < 0) {
            throw new IllegalArgumentException("throttle must be 0 (auto) or positive, was " + throttleBytesPerSec);
        }
        excluded = Collections.unmodifiableSortedSet(new TreeSet<>(excluded));
    }

    /** Whether the operator fixed the migration budget. */
    public boolean throttled() {
        return throttleBytesPerSec > 0;
    }

    /** Whether {@code node} is excluded. */
    public boolean excludes(String node) {
        return excluded.contains(node);
    }

    /** These controls with one record applied (the record must be valid: {@link ControlRecords#problem}). */
    public ClusterControls with(OperatorControl c) {
        return switch (c.getControl()) {
            case DRY_RUN -> new ClusterControls(c.getEnabled(), paused, throttleBytesPerSec, excluded);
            case PAUSE -> new ClusterControls(dryRun, c.getEnabled(), throttleBytesPerSec, excluded);
            case THROTTLE -> new ClusterControls(dryRun, paused, c.getEnabled() ? c.getBytesPerSec() : 0, excluded);
            case EXCLUDE -> {
                SortedSet<String> next = new TreeSet<>(excluded);
                if (c.getEnabled()) {
                    next.add(c.getNode());
                } else {
                    next.remove(c.getNode());
                }
                yield new ClusterControls(dryRun, paused, throttleBytesPerSec, next);
            }
        };
    }

    /** The controls that {@code records} (the latest record of each key, in any order) set. */
    public static ClusterControls of(Iterable<OperatorControl> records) {
        ClusterControls c = NONE;
        for (OperatorControl r : records) {
            c = c.with(r);
        }
        return c;
    }

    /** For people: {@code "none"}, or what is set, e.g. {@code "dry run, paused, throttle 50.0 MiB/s, excluded n1, n7"}. */
    public String describe() {
        StringBuilder b = new StringBuilder();
        if (dryRun) {
            b.append("dry run");
        }
        if (paused) {
            b.append(b.length() == 0 ? "" : ", ").append("paused");
        }
        if (throttled()) {
            b.append(b.length() == 0 ? "" : ", ").append("throttle ").append(rate(throttleBytesPerSec));
        }
        if (!excluded.isEmpty()) {
            b.append(b.length() == 0 ? "" : ", ").append("excluded ").append(String.join(", ", excluded));
        }
        return b.length() == 0 ? "none" : b.toString();
    }

    /** A rate in bytes per second for people: {@code 52428800} → {@code "50.0 MiB/s"}. */
    public static String rate(long bytesPerSec) {
        String[] units = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s"};
        double v = bytesPerSec;
        int u = 0;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0 ? bytesPerSec + " B/s" : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
