package io.skewguard.runtime.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A figure per cluster (and optional fixed labels), shown as one gauge series per cluster with a
 * {@code cluster} label that holds the last value set. The number of clusters an app serves is
 * bounded by its {@code max-clusters}, so the series are too.
 */
public final class ClusterGauge {

    /** The value holder a gauge reads; Micrometer keeps only a weak reference to it, the map a strong one. */
    private static final class Level {
        private volatile double value;
    }

    private final String name;
    private final String description;
    private final String unit;
    private final Tags tags;
    private final Map<String, Level> byCluster = new ConcurrentHashMap<>();

    private ClusterGauge(String name, String description, String unit, Tags tags) {
        this.name = Objects.requireNonNull(name, "name");
        this.description = Objects.requireNonNull(description, "description");
        this.unit = unit;
        this.tags = tags;
    }

    /**
     * A gauge called {@code name} (dotted; Prometheus shows dots as underscores and appends the
     * unit), e.g. {@code skewguard.heat.gini}; {@code unit} may be null; {@code tags} are
     * key-value pairs that every series of this gauge carries besides the cluster.
     */
    public static ClusterGauge of(String name, String description, String unit, String... tags) {
        return new ClusterGauge(name, description, unit, Tags.of(tags));
    }

    /** Sets the cluster's value, creating its series the first time. */
    public void set(String cluster, double value) {
        byCluster.computeIfAbsent(cluster, this::register).value = value;
    }

    private Level register(String cluster) {
        Level level = new Level();
        Gauge.builder(name, level, l -> l.value)
                .description(description)
                .baseUnit(unit)
                .tags(tags)
                .tag("cluster", cluster)
                .register(ProcessMetrics.registry());
        return level;
    }
}
