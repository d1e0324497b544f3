package io.skewguard.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.junit.jupiter.api.Test;

class SkewGuardSeriesTest {

    @Test
    void aClusterGaugeShowsTheLastValueOfEachClusterAsASeriesOfItsOwn() {
        ClusterGauge gauge = ClusterGauge.of("skewguard.test.figure", "a figure for this test", null, "kind", "HEAT");

        gauge.set("c1", 0.25);
        gauge.set("c2", 0.5);
        gauge.set("c1", 0.75);

        assertThat(ProcessMetrics.scrape())
                .contains("skewguard_test_figure{cluster=\"c1\",kind=\"HEAT\"} 0.75")
                .contains("skewguard_test_figure{cluster=\"c2\",kind=\"HEAT\"} 0.5");
    }

    @Test
    void aDeadLetterCountsUnderTheCodeItsReasonStartsWithAndFreeTextUnderOther() {
        assertThat(DeadLetterCounter.code("poison: NullPointerException")).isEqualTo("poison");
        assertThat(DeadLetterCounter.code("over-capacity: 65 clusters")).isEqualTo("over-capacity");
        assertThat(DeadLetterCounter.code("future")).isEqualTo("future");
        assertThat(DeadLetterCounter.code("Some free text: with a colon")).isEqualTo("other");
        assertThat(DeadLetterCounter.code("a reason without any code at all")).isEqualTo("other");
        assertThat(DeadLetterCounter.code(null)).isEqualTo("other");
    }

    @Test
    void inputLagSumsTheRecordsLagOfAssignedPartitionsAndLeavesRestoreConsumersOut() {
        Map<MetricName, Metric> metrics = new HashMap<>();
        put(metrics, "app-StreamThread-1-consumer", "0", 5.0);
        put(metrics, "app-StreamThread-1-consumer", "1", 7.0);
        put(metrics, "app-StreamThread-1-consumer", "2", Double.NaN); // not fetched yet
        put(metrics, "app-StreamThread-1-restore-consumer", "0", 1000.0);
        // the consumer-wide maximum has no partition tag and must not be added again
        metrics.put(new MetricName("records-lag", "consumer-fetch-manager-metrics", "", Map.of("client-id", "x")),
                metric(12.0));

        try (InputLag lag = InputLag.of("test-consumer", () -> metrics)) {
            assertThat(lag.records()).isEqualTo(12.0);
            assertThat(ProcessMetrics.scrape()).contains("skewguard_input_lag_records{consumer=\"test-consumer\"} 12.0");
        }
        assertThat(ProcessMetrics.scrape()).doesNotContain("consumer=\"test-consumer\"");
    }

    @Test
    void aConsumerStartedAgainUnderTheSameNameShowsItsOwnLagAndTheOldOnesCloseLeavesItAlone() {
        Map<MetricName, Metric> before = new HashMap<>();
        put(before, "c-1", "0", 3.0);
        Map<MetricName, Metric> after = new HashMap<>();
        put(after, "c-2", "0", 8.0);

        InputLag old = InputLag.of("restarted", () -> before);
        try (InputLag again = InputLag.of("restarted", () -> after)) {
            old.close();
            assertThat(ProcessMetrics.scrape()).contains("skewguard_input_lag_records{consumer=\"restarted\"} 8.0");
        }
        assertThat(ProcessMetrics.scrape()).doesNotContain("consumer=\"restarted\"");
    }

    private static void put(Map<MetricName, Metric> metrics, String client, String partition, double value) {
        metrics.put(new MetricName("records-lag", "consumer-fetch-manager-metrics", "",
                Map.of("client-id", client, "topic", "in", "partition", partition)), metric(value));
    }

    private static Metric metric(double value) {
        return new Metric() {
            @Override
            public MetricName metricName() {
                throw new UnsupportedOperationException();
            }

            @Override
            public Object metricValue() {
                return value;
            }
        };
    }
}
