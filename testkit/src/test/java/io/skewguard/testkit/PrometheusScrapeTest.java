package io.skewguard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class PrometheusScrapeTest {

    private static final PrometheusScrape SCRAPE = new PrometheusScrape(String.join("\n",
            "# HELP skewguard_heat_gini heat Gini",
            "# TYPE skewguard_heat_gini gauge",
            "skewguard_heat_gini{cluster=\"c1\"} 0.25",
            "skewguard_heat_gini{cluster=\"c2\"} NaN",
            "skewguard_dead_letters_total{reason=\"poison\",extra=\"a \\\"quoted\\\" value\"} 3.0",
            "process_uptime_seconds 12.5",
            ""));

    @Test
    void aSeriesHasTheValueOfItsFirstSampleWhoseLabelsIncludeTheOnesAskedFor() {
        assertThat(SCRAPE.value("skewguard_heat_gini", "cluster", "c1")).hasValue(0.25);
        assertThat(SCRAPE.value("skewguard_heat_gini")).hasValue(0.25);
        assertThat(SCRAPE.value("skewguard_dead_letters_total", "reason", "poison")).hasValue(3.0);
        assertThat(SCRAPE.value("process_uptime_seconds")).hasValue(12.5);
    }

    @Test
    void nanOtherLabelValuesAndOtherNamesAreNoValue() {
        assertThat(SCRAPE.value("skewguard_heat_gini", "cluster", "c2")).isEmpty();
        assertThat(SCRAPE.value("skewguard_heat_gini", "cluster", "c3")).isEmpty();
        assertThat(SCRAPE.value("skewguard_heat")).isEmpty();
    }

    @Test
    void missingNamesTheSeriesWithoutAValueWrittenAsInTheScrape() {
        assertThat(SCRAPE.missing(List.of("skewguard_heat_gini{cluster=\"c1\"}", "skewguard_heat_gini{cluster=\"c2\"}",
                "process_uptime_seconds", "skewguard_capacity_cv"))).containsExactly(
                "skewguard_heat_gini{cluster=\"c2\"}", "skewguard_capacity_cv");
        assertThatThrownBy(() -> SCRAPE.missing(List.of("not a series!"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a series!");
        assertThatThrownBy(() -> SCRAPE.value("skewguard_heat_gini", "cluster")).isInstanceOf(IllegalArgumentException.class);
    }
}
