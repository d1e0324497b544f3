package io.skewguard.detector.ingest;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.Sensor;
import org.apache.kafka.common.metrics.stats.CumulativeSum;
import org.apache.kafka.common.metrics.stats.Rate;
import org.apache.kafka.common.utils.Time;

/**
 * The ingest stage's metrics, group {@value #GROUP}, tag {@code skewguard-ingest-id} = the loop's
 * name: {@code dead-letter-total/-rate} (records sent to the dead-letter topic),
 * {@code records-ingested-total/-rate} (input records taken), {@code transactions-committed-total},
 * {@code transactions-aborted-total}, {@code partition-pauses-total} (times an input partition was
 * paused because its records waited to be taken faster than they were) and {@code pace-holds-total}
 * (takes that stopped because the loop had run ahead of the process's other loops: {@link LoopPace}). Exposed over JMX (domain {@code skewguard.detector}) in the
 * running app.
 */
public final class IngestMetrics implements AutoCloseable {

    public static final String GROUP = "skewguard-detector-ingest-metrics";

    private final Metrics metrics;
    private final Sensor deadLetters;
    private final Sensor ingested;
    private final Sensor committed;
    private final Sensor aborted;
    private final Sensor pauses;
    private final Sensor paceHolds;

    /** @param jmx whether to expose the metrics over JMX (the app: yes; the replay harness: no) */
    public IngestMetrics(String id, boolean jmx) {
        this.metrics = jmx
                ? new Metrics(new MetricConfig(), List.of(new JmxReporter()), Time.SYSTEM,
                        new KafkaMetricsContext("skewguard.detector"))
                : new Metrics();
        Map<String, String> tags = Map.of("skewguard-ingest-id", id);
        this.deadLetters = rateTotal("dead-letter", tags);
        this.ingested = rateTotal("records-ingested", tags);
        this.committed = total("transactions-committed", tags);
        this.aborted = total("transactions-aborted", tags);
        this.pauses = total("partition-pauses", tags);
        this.paceHolds = total("pace-holds", tags);
    }

    private Sensor rateTotal(String name, Map<String, String> tags) {
        Sensor s = metrics.sensor(name);
        s.add(new MetricName(name + "-rate", GROUP, "per second", tags), new Rate());
        s.add(new MetricName(name + "-total", GROUP, "total", tags), new CumulativeSum());
        return s;
    }

    private Sensor total(String name, Map<String, String> tags) {
        Sensor s = metrics.sensor(name);
        s.add(new MetricName(name + "-total", GROUP, "total", tags), new CumulativeSum());
        return s;
    }

    public void deadLetter() {
        deadLetters.record();
    }

    public void ingested(int records) {
        ingested.record(records);
    }

    public void committed() {
        committed.record();
    }

    public void aborted() {
        aborted.record();
    }

    public void paused() {
        pauses.record();
    }

    public void paceHeld() {
        paceHolds.record();
    }

    /** The value of metric {@code name} (e.g. {@code dead-letter-total}), 0 if there is none. */
    public double value(String name) {
        double sum = 0;
        for (var e : metrics.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().equals(GROUP)) {
                sum += ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return sum;
    }

    @Override
    public void close() {
        metrics.close();
    }
}
