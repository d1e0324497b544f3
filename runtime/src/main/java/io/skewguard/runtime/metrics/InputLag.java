package io.skewguard.runtime.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * {@code skewguard_input_lag_records{consumer}}: how many records of its input the consumer has
 * still to read, summed over the partitions assigned to it, from the Kafka consumer's own
 * {@code records-lag} metric (one per assigned partition, known once it has fetched). A Kafka
 * Streams client's restore consumers are left out: their lag is state being rebuilt, not input.
 */
public final class InputLag implements AutoCloseable {

    private static final String GROUP = "consumer-fetch-manager-metrics";
    private static final String LAG = "records-lag";
    private static final String NAME = "skewguard.input.lag";

    private final Supplier<? extends Map<MetricName, ? extends Metric>> metrics;
    private final Meter gauge;

    private InputLag(String consumer, Supplier<? extends Map<MetricName, ? extends Metric>> metrics) {
        this.metrics = metrics;
        // a consumer of the same name registered before (a service restarted in the same JVM)
        // gives way: the registry would otherwise keep reading the old one
        ProcessMetrics.registry().find(NAME).tag("consumer", consumer).meters()
                .forEach(ProcessMetrics.registry()::remove);
        this.gauge = Gauge.builder(NAME, this, InputLag::records)
                .description("records of the input not yet read, summed over the assigned partitions")
                .baseUnit("records")
                .tag("consumer", consumer)
                .register(ProcessMetrics.registry());
    }

    /**
     * Registers the gauge for the consumer(s) whose metrics {@code metrics} returns (a
     * {@code KafkaConsumer::metrics} or {@code KafkaStreams::metrics}), labelled {@code consumer};
     * {@link #close()} removes it.
     */
    public static InputLag of(String consumer, Supplier<? extends Map<MetricName, ? extends Metric>> metrics) {
        return new InputLag(Objects.requireNonNull(consumer, "consumer"), Objects.requireNonNull(metrics, "metrics"));
    }

    /** The lag now: 0 before the first fetch (Kafka reports no lag, or NaN, until then). */
    double records() {
        double sum = 0;
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.get().entrySet()) {
            MetricName name = e.getKey();
            if (!LAG.equals(name.name()) || !GROUP.equals(name.group()) || !name.tags().containsKey("partition")) {
                continue;
            }
            String client = name.tags().getOrDefault("client-id", "");
            if (client.endsWith("restore-consumer")) {
                continue;
            }
            if (e.getValue().metricValue() instanceof Number n && Double.isFinite(n.doubleValue())) {
                sum += n.doubleValue();
            }
        }
        return sum;
    }

    /** Removes the gauge, unless a later consumer of the same name has taken its place. */
    @Override
    public void close() {
        ProcessMetrics.registry().find(NAME).tags(gauge.getId().getTags()).meters().stream()
                .filter(m -> m == gauge)
                .forEach(ProcessMetrics.registry()::remove);
    }
}
