package io.skewguard.migrator.policy;

import java.util.List;
import java.util.Optional;

/**
 * A set of migrations on pairwise disjoint nodes (and distinct slots) that copy together and switch
 * together with one two-phase commit.
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

    SwitchBatch with(BatchPhase next) {
        return new SwitchBatch(cluster, batchId, migrations, next);
    }

    SwitchBatch with(List<Migration> next) {
        return new SwitchBatch(cluster, batchId, next, phase);
    }
}
