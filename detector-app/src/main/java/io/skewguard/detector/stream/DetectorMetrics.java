package io.skewguard.detector.stream;

import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * The detector's own Kafka Streams metrics, in group {@code stream-skewguard-detector-metrics}
 * with tag {@code skewguard-detector-id = <task id>}: {@code late-heat-dropped-total/-rate} (heat buckets the
 * per-cluster stage received after their window had passed) and {@code ticks-skipped-total/-rate}
 * (ticks skipped across a long gap in a cluster's stream time). The ingest stage's metrics are
 * {@link io.skewguard.detector.ingest.IngestMetrics}.
 */
public final class DetectorMetrics {

    public static final String SCOPE = "skewguard-detector";

    private DetectorMetrics() {}

    static Sensor lateHeatSensor(ProcessorContext<?, ?> context) {
        return sensor(context, "late-heat-dropped");
    }

    static Sensor skippedTicksSensor(ProcessorContext<?, ?> context) {
        return sensor(context, "ticks-skipped");
    }

    private static Sensor sensor(ProcessorContext<?, ?> context, String operation) {
        return context.metrics().addRateTotalSensor(
                SCOPE, context.taskId().toString(), operation, Sensor.RecordingLevel.INFO);
    }
}
