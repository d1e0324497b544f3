package io.skewguard.migrator.policy;

import java.util.List;
import java.util.Optional;

/**
 * A set of migrations on pairwise disjoint nodes (and distinct slots): while the batch copies, every
 * one of them; once one copy is complete, the migrations whose copies are complete switch together
 * with one two-phase commit (or abort together), and those still copying are <em>carried</em>: they
 * stay in the list, keep copying, and go on into the repair's next batch under their own ids.
 *
 * @param cluster cluster id
 * @param batchId batch id, unique within the cluster
 * @param migrations the migrations, sorted by shard id (the commit order)
 * @param phase where the batch stands
 */
public record SwitchBatch(String cluster, String batchId, List<Migration> migrations, BatchPhase phase) {

    public SwitchBatch {
        migrations = List.copyOf(migrations);
    }

    public Optional<Migration> find(String migrationId) {
        return migrations.stream().filter(m -> m.id().equals(migrationId)).findFirst();
    }

    public boolean finished() {
        return phase instanceof BatchPhase.Finished;
    }

    /**
     * The migrations not in this batch's switch: once the batch is past copying, those still copying,
     * copied after the switch began, or whose copy failed meanwhile. Empty while the batch copies
     * (every migration is in it then).
     */
    public List<Migration> carried() {
        if (phase instanceof BatchPhase.Copying) {
            return List.of();
        }
        return migrations.stream().filter(SwitchBatch::isCopy).toList();
    }

    /** Copying, copied or failed copying: not (yet) switching, committing or aborting. */
    static boolean isCopy(Migration m) {
        return m.state() instanceof MigrationState.Copying || m.state() instanceof MigrationState.Copied
                || m.state() instanceof MigrationState.CopyFailed;
    }

    SwitchBatch with(BatchPhase next) {
        return new SwitchBatch(cluster, batchId, migrations, next);
    }

    SwitchBatch with(List<Migration> next) {
        return new SwitchBatch(cluster, batchId, next, phase);
    }
}
