package io.skewguard.migrator;

import io.micrometer.core.instrument.Counter;
import io.skewguard.migrator.policy.Migration;
import io.skewguard.migrator.policy.MigrationState;
import io.skewguard.migrator.policy.RepairState;
import io.skewguard.runtime.metrics.ClusterGauge;
import io.skewguard.runtime.metrics.ProcessMetrics;
import io.skewguard.schemas.MigrationPhase;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The migrator's {@code skewguard_…} series, set where the coordinator applies a decision
 * (docs/operations.md, "Metrics and health"), next to the Kafka Streams sensors of
 * {@link MigratorMetrics}:
 * <ul>
 *   <li>{@code skewguard_migrations{cluster,state}}: migrations of the running batch in each state
 *       (copying, copied, preparing, … aborted), 0 for every state when no batch runs;</li>
 *   <li>{@code skewguard_migration_commands_total{cluster,phase}}: migration commands sent, by phase;</li>
 *   <li>{@code skewguard_migration_moved_bytes_total{cluster}}: bytes of shards whose switch
 *       committed;</li>
 *   <li>{@code skewguard_migration_budget_bytes_per_second{cluster}}: the cluster's migration
 *       budget;</li>
 *   <li>{@code skewguard_migration_copy_progress_ratio{cluster}}: bytes copied over bytes to copy of
 *       the running batch's copies (copied ones count in full); 1 when nothing is left to copy.</li>
 * </ul>
 */
final class MigratorSeries {

    /** Every state a migration can be in, by its name in the label. */
    private static final Map<Class<?>, ClusterGauge> BY_STATE = new LinkedHashMap<>();
    private static final ClusterGauge BUDGET = ClusterGauge.of("skewguard.migration.budget",
            "the cluster's migration budget", "bytes.per.second");
    private static final ClusterGauge COPY_PROGRESS = ClusterGauge.of("skewguard.migration.copy.progress",
            "bytes copied over bytes to copy of the running batch's copies; 1 when nothing is left to copy", "ratio");

    static {
        for (Class<?> state : MigrationState.class.getPermittedSubclasses()) {
            BY_STATE.put(state, ClusterGauge.of("skewguard.migrations", "migrations of the running batch in each state",
                    null, "state", state.getSimpleName().toLowerCase(Locale.ROOT)));
        }
    }

    private MigratorSeries() {
    }

    /** A migration command sent. */
    static void command(String cluster, MigrationPhase phase) {
        Counter.builder("skewguard.migration.commands")
                .description("migration commands sent, by phase")
                .tag("cluster", cluster)
                .tag("phase", phase.name())
                .register(ProcessMetrics.registry())
                .increment();
    }

    /** The cluster's repair state after a decision ({@code before}: the one it replaces, null for a new cluster). */
    static void repair(RepairState before, RepairState after) {
        String cluster = after.cluster();
        Counter moved = Counter.builder("skewguard.migration.moved")
                .description("bytes of shards whose switch committed")
                .baseUnit("bytes")
                .tag("cluster", cluster)
                .register(ProcessMetrics.registry());
        long delta = after.bytesMoved() - (before == null ? 0 : before.bytesMoved());
        if (delta > 0) {
            moved.increment(delta);
        }
        BUDGET.set(cluster, after.budgetBytesPerSec());
        Map<Class<?>, Integer> counts = new LinkedHashMap<>();
        long toCopy = 0;
        long copied = 0;
        if (after.batch() != null) {
            for (Migration m : after.batch().migrations()) {
                counts.merge(m.state().getClass(), 1, Integer::sum);
                if (m.state() instanceof MigrationState.Copying c) {
                    toCopy += m.bytes();
                    copied += Math.min(m.bytes(), c.bytesCopied());
                } else if (m.state() instanceof MigrationState.Copied) {
                    toCopy += m.bytes();
                    copied += m.bytes();
                }
            }
        }
        BY_STATE.forEach((state, gauge) -> gauge.set(cluster, counts.getOrDefault(state, 0)));
        COPY_PROGRESS.set(cluster, toCopy == 0 ? 1.0 : (double) copied / toCopy);
    }
}
