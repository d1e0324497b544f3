package io.skewguard.sim.policy;

import io.skewguard.sim.model.Cluster;
import io.skewguard.sim.model.ClusterFigures;
import java.util.List;

/** Does nothing: the cluster as consistent hashing and the writers' free-ratio term leave it. */
public final class NoRepair implements RepairPolicy {

    @Override
    public String name() {
        return "none";
    }

    @Override
    public void onStep(long now, Cluster cluster, ClusterFigures figures) {
        // no repair
    }

    @Override
    public int migrationsRunning() {
        return 0;
    }

    @Override
    public long weightPhaseEnd() {
        return -1;
    }

    @Override
    public List<String> notes() {
        return List.of();
    }
}
