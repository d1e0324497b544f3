package io.skewguard.runtime.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.schemas.Decision;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DecisionLogTest {

    private final DecisionLog log = new DecisionLog("balancer", 60_000);

    private Optional<Decision> decide(String cluster, String reason, boolean acted, long at) {
        return log.decide(cluster, acted, reason, reason.toLowerCase(), Map.of("heatGini", 0.4), at);
    }

    @Test
    void theFirstDecisionOfAClusterIsPublishedWithItsFigures() {
        Decision d = decide("c1", "TOO_SOON", false, 1_000).orElseThrow();
        assertThat(d.getCluster()).isEqualTo("c1");
        assertThat(d.getApp()).isEqualTo("balancer");
        assertThat(d.getActed()).isFalse();
        assertThat(d.getReason()).isEqualTo("TOO_SOON");
        assertThat(d.getFigures()).containsEntry("heatGini", 0.4);
        assertThat(d.getDecidedAt().toEpochMilli()).isEqualTo(1_000);
        assertThat(decide("c2", "TOO_SOON", false, 1_000)).isPresent();
    }

    @Test
    void anUnchangedDecisionIsRepeatedOnlyOncePerInterval() {
        assertThat(decide("c1", "TOO_SOON", false, 0)).isPresent();
        assertThat(decide("c1", "TOO_SOON", false, 10_000)).isEmpty();
        assertThat(decide("c1", "TOO_SOON", false, 59_999)).isEmpty();
        assertThat(decide("c1", "TOO_SOON", false, 60_000)).isPresent();
        assertThat(decide("c1", "TOO_SOON", false, 70_000)).isEmpty();
    }

    @Test
    void aNewReasonOrAnActionIsPublishedAtOnce() {
        assertThat(decide("c1", "TOO_SOON", false, 0)).isPresent();
        assertThat(decide("c1", "PAUSED", false, 1)).isPresent();
        assertThat(decide("c1", "ADJUSTED", true, 2)).isPresent();
        assertThat(decide("c1", "ADJUSTED", true, 3)).isPresent();
    }

    @Test
    void aClockThatWentBackOrAForgottenClusterPublishesAgain() {
        assertThat(decide("c1", "IDLE", false, 100_000)).isPresent();
        assertThat(decide("c1", "IDLE", false, 50_000)).isPresent();
        log.forget("c1");
        assertThat(decide("c1", "IDLE", false, 50_001)).isPresent();
    }

    @Test
    void figuresThatAreNotNumbersAreLeftOut() {
        Map<String, Double> figures = new LinkedHashMap<>();
        figures.put("cv", 0.2);
        figures.put("nan", Double.NaN);
        figures.put("none", null);
        assertThat(log.decide("c1", false, "IDLE", "m", figures, 0).orElseThrow().getFigures()).containsOnlyKeys("cv");
    }

    @Test
    void aReasonIsAnUpperCaseCodeAndAnIntervalAtLeastOneMillisecond() {
        assertThatThrownBy(() -> log.decide("c1", false, "too soon", "m", Map.of(), 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DecisionLog("balancer", 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
