package io.skewguard.migrator;

import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Max;
import org.apache.kafka.common.metrics.stats.Value;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * The migrator's own metrics, in group {@value #GROUP}, tagged with the task id, next to Kafka
 * Streams' metrics (JMX, or {@code KafkaStreams#metrics()}).
 *
 * <ul>
 *   <li>{@code dead-letters-total}: records sent to the dead-letter topic;
 *   <li>{@code migration-budget-bytes-per-sec}: the current migration bandwidth budget (last cluster updated);
 *   <li>{@code migrations-committed-total}, {@code batches-aborted-total};
 *   <li>{@code switch-step-max-ms}: longest processing step that switched a slot (the coordinator's
 *       share of the metadata lock, see docs/migrator.md);
 *   <li>{@code repairs-stopped-early-total}: repairs that ended above the target CV;
 *   <li>{@code unauthenticated-total}: statuses and capacity events dead-lettered for a missing or
 *       wrong node signature (docs/security.md), also counted in {@code dead-letters-total}.
 * </ul>
 */
final class MigratorMetrics {

    static final String GROUP = "skewguard-migrator";

    private MigratorMetrics() {}

    static Sensor deadLetters(ProcessorContext<?, ?> context) {
        return sensor(context, "dead-letters-total", "records sent to the dead-letter topic", new CumulativeSum());
    }

    static Sensor unauthenticated(ProcessorContext<?, ?> context) {
        return sensor(context, "unauthenticated-total", "node messages refused for a missing or wrong signature",
                new CumulativeSum());
    }

    static Sensor budget(ProcessorContext<?, ?> context) {
        return sensor(context, "migration-budget-bytes-per-sec", "current migration bandwidth budget", new Value());
    }

    static Sensor committed(ProcessorContext<?, ?> context) {
        return sensor(context, "migrations-committed-total", "migrations whose switch committed", new CumulativeSum());
    }

    static Sensor aborted(ProcessorContext<?, ?> context) {
        return sensor(context, "batches-aborted-total", "switch batches aborted", new CumulativeSum());
    }

    static Sensor switchStep(ProcessorContext<?, ?> context) {
        return sensor(context, "switch-step-max-ms", "longest processing step that switched a slot", new Max());
    }

    static Sensor stoppedEarly(ProcessorContext<?, ?> context) {
        return sensor(context, "repairs-stopped-early-total", "repairs that ended above the target CV", new CumulativeSum());
    }

    private static Sensor sensor(ProcessorContext<?, ?> context, String name, String description,
            org.apache.kafka.common.metrics.MeasurableStat stat) {
        String task = context.taskId().toString();
        Sensor sensor = context.metrics().addSensor(GROUP + "." + task + "." + name, Sensor.RecordingLevel.INFO);
        MetricName metricName = new MetricName(name, GROUP, description, Map.of("task-id", task));
        sensor.add(metricName, stat);
        return sensor;
    }
}
