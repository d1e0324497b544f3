package io.skewguard.detector.stream;

import io.micrometer.core.instrument.Counter;
import io.skewguard.runtime.metrics.ClusterGauge;
import io.skewguard.runtime.metrics.ProcessMetrics;
import io.skewguard.schemas.AlertKind;
import io.skewguard.schemas.AlertState;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import java.util.EnumMap;
import java.util.Map;

/**
 * The detector's {@code skewguard_…} series, set where stage two forwards a report or an alert
 * transition (docs/operations.md, "Metrics and health"):
 * <ul>
 *   <li>{@code skewguard_heat_gini{cluster}} and {@code skewguard_capacity_cv{cluster}}: the
 *       figures of the cluster's last report;</li>
 *   <li>{@code skewguard_alert_state{cluster,kind,state}}: 1 for the state each alert is in, 0 for
 *       the others (the usual Prometheus shape of an enumeration);</li>
 *   <li>{@code skewguard_alert_transitions_total{cluster,kind,state}}: transitions into each state.</li>
 * </ul>
 */
final class DetectorSeries {

    private static final ClusterGauge HEAT_GINI = ClusterGauge.of("skewguard.heat.gini",
            "heat Gini of the cluster's last report (write heat over capacity share)", null);
    private static final ClusterGauge CAPACITY_CV = ClusterGauge.of("skewguard.capacity.cv",
            "coefficient of variation of node utilisation in the cluster's last report", null);
    private static final Map<AlertKind, Map<AlertState, ClusterGauge>> ALERT_STATE = new EnumMap<>(AlertKind.class);

    static {
        for (AlertKind kind : AlertKind.values()) {
            Map<AlertState, ClusterGauge> byState = new EnumMap<>(AlertState.class);
            for (AlertState state : AlertState.values()) {
                byState.put(state, ClusterGauge.of("skewguard.alert.state",
                        "1 for the state the cluster's alert of this kind is in, 0 for the others", null,
                        "kind", kind.name(), "state", state.name()));
            }
            ALERT_STATE.put(kind, byState);
        }
    }

    private DetectorSeries() {
    }

    /** A report forwarded: its figures and both alerts' states. */
    static void report(SkewReport report) {
        String cluster = report.getCluster();
        HEAT_GINI.set(cluster, report.getHeatGini());
        CAPACITY_CV.set(cluster, report.getCapacityCv());
        alertState(cluster, AlertKind.HEAT, report.getHeatState());
        alertState(cluster, AlertKind.CAPACITY, report.getCapacityState());
    }

    /** An alert transition forwarded. */
    static void transition(SkewAlert alert) {
        Counter.builder("skewguard.alert.transitions")
                .description("alert transitions, by the state entered")
                .tag("cluster", alert.getCluster())
                .tag("kind", alert.getKind().name())
                .tag("state", alert.getState().name())
                .register(ProcessMetrics.registry())
                .increment();
        alertState(alert.getCluster(), alert.getKind(), alert.getState());
    }

    private static void alertState(String cluster, AlertKind kind, AlertState now) {
        ALERT_STATE.get(kind).forEach((state, gauge) -> gauge.set(cluster, state == now ? 1 : 0));
    }
}
