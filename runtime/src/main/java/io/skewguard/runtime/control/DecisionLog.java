package io.skewguard.runtime.control;

import io.micrometer.core.instrument.Counter;
import io.skewguard.runtime.metrics.ProcessMetrics;
import io.skewguard.schemas.Decision;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One app's side of the decision log (topic {@code decisions}, docs/operations.md, "Operator
 * control"): every decision is counted ({@code skewguard_decisions_total{cluster,app,reason}}), and
 * turned into a {@link Decision} record when it is worth publishing. An app decides on every report
 * (every tick), but an unchanged "did not act, same reason" need not be said every tick: a decision
 * is published when it acts, when its reason differs from the last one published for the cluster,
 * or when {@code interval} has passed since then, so the log always shows current figures. The
 * memory is the process's own: after a restart the first decision of each cluster is published
 * again, which repeats one line and loses nothing. Not thread-safe: one per stream task.
 */
public final class DecisionLog {

    /** Reason codes are upper-case words: e.g. {@code TOO_SOON}, {@code PAUSED}. */
    private static final Pattern REASON = Pattern.compile("[A-Z][A-Z0-9_]{0,47}");

    private record Last(String reason, long at) {}

    private final String app;
    private final long intervalMillis;
    private final Map<String, Last> last = new HashMap<>();

    /** @param app {@code balancer} or {@code migrator} */
    public DecisionLog(String app, long intervalMillis) {
        if (intervalMillis < 1) {
            throw new IllegalArgumentException("interval must be at least 1 ms, was " + intervalMillis);
        }
        this.app = app;
        this.intervalMillis = intervalMillis;
    }

    /**
     * Counts the decision and returns its record when it is due; when it is, it counts as the last
     * one published for {@code cluster}.
     *
     * @param acted whether it sent commands
     * @param reason an upper-case reason code
     * @param figures what the decision was based on, by name (copied; NaN and infinite values are left out)
     * @param at when, in the app's time
     */
    public Optional<Decision> decide(String cluster, boolean acted, String reason, String message, Map<String, Double> figures, long at) {
        if (!REASON.matcher(reason).matches()) {
            throw new IllegalArgumentException("a reason code is an upper-case word, was '" + reason + "'");
        }
        Counter.builder("skewguard.decisions")
                .description("decisions of the balancer and the migrator, by reason code (the decision log)")
                .tag("cluster", cluster)
                .tag("app", app)
                .tag("reason", reason)
                .register(ProcessMetrics.registry())
                .increment();
        Last previous = last.get(cluster);
        boolean due = acted || previous == null || !previous.reason().equals(reason)
                || at - previous.at() >= intervalMillis || at < previous.at();
        if (!due) {
            return Optional.empty();
        }
        last.put(cluster, new Last(reason, at));
        Map<String, Double> kept = new LinkedHashMap<>();
        figures.forEach((name, value) -> {
            if (value != null && Double.isFinite(value)) {
                kept.put(name, value);
            }
        });
        return Optional.of(Decision.newBuilder()
                .setCluster(cluster)
                .setApp(app)
                .setActed(acted)
                .setReason(reason)
                .setMessage(message)
                .setFigures(kept)
                .setDecidedAt(Instant.ofEpochMilli(at))
                .build());
    }

    /** Forgets {@code cluster} (its state was dropped): its next decision is published. */
    public void forget(String cluster) {
        last.remove(cluster);
    }
}
