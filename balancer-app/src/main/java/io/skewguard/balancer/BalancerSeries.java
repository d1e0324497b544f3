package io.skewguard.balancer;

import io.micrometer.core.instrument.Counter;
import io.skewguard.balancer.policy.Round;
import io.skewguard.runtime.metrics.ClusterGauge;
import io.skewguard.runtime.metrics.ProcessMetrics;

/**
 * The balancer's {@code skewguard_…} series, set where a round is logged (docs/operations.md,
 * "Metrics and health"):
 * <ul>
 *   <li>{@code skewguard_weight_rounds_total{cluster,outcome}}: reports the weight policy decided
 *       on, by what it decided (ADJUSTED and DECAYED open an epoch; TOO_SOON, INSIDE_DEADBAND, … do
 *       not);</li>
 *   <li>{@code skewguard_weight_commands_total{cluster}}: weight commands sent (one per changed node
 *       of a round that opens an epoch);</li>
 *   <li>{@code skewguard_weight_epoch{cluster}}: the cluster's weights epoch after the last round.</li>
 * </ul>
 */
final class BalancerSeries {

    private static final ClusterGauge EPOCH = ClusterGauge.of("skewguard.weight.epoch",
            "the cluster's weights epoch after its last round", null);

    private BalancerSeries() {
    }

    /** A round decided for {@code cluster}; its commands are about to be sent if it opens an epoch. */
    static void round(String cluster, Round round) {
        Counter.builder("skewguard.weight.rounds")
                .description("weight rounds decided, by outcome")
                .tag("cluster", cluster)
                .tag("outcome", round.outcome().name())
                .register(ProcessMetrics.registry())
                .increment();
        Counter commands = Counter.builder("skewguard.weight.commands")
                .description("weight commands sent, one per changed node of a round that opens an epoch")
                .tag("cluster", cluster)
                .register(ProcessMetrics.registry());
        if (round.outcome().opensEpoch()) {
            commands.increment(round.changes().size());
        }
        EPOCH.set(cluster, round.state().epoch());
    }
}
