package io.skewguard.dashboard;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Every cluster the dashboard has seen a record of (or only the one it was told to show), each with
 * its {@link ClusterView}; at most {@link ViewLimits#maxClusters()} of them. Thread-safe.
 */
final class ClusterViews {

    private final ViewLimits limits;
    private final String only;
    private final Map<String, ClusterView> views = new TreeMap<>();
    private final AtomicLong skipped = new AtomicLong();

    /** @param only the one cluster to show, or null for every cluster */
    ClusterViews(ViewLimits limits, String only) {
        this.limits = limits;
        this.only = only;
        if (only != null) {
            views.put(only, new ClusterView(only, limits));
        }
    }

    /** The view of {@code cluster}, created on its first record; empty for a cluster not shown. */
    synchronized Optional<ClusterView> of(String cluster) {
        if (only != null) {
            return Optional.ofNullable(only.equals(cluster) ? views.get(only) : null);
        }
        ClusterView view = views.get(cluster);
        if (view == null && views.size() < limits.maxClusters()) {
            view = new ClusterView(cluster, limits);
            views.put(cluster, view);
        }
        return Optional.ofNullable(view);
    }

    synchronized List<String> clusters() {
        return List.copyOf(views.keySet());
    }

    Optional<ClusterSnapshot> snapshot(String cluster) {
        ClusterView view;
        synchronized (this) {
            view = views.get(cluster);
        }
        return view == null ? Optional.empty() : Optional.of(view.snapshot(skipped.get()));
    }

    /** Counts a record that could not be decoded. */
    void skipped() {
        skipped.incrementAndGet();
    }
}
