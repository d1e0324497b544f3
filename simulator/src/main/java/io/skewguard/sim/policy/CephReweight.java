package io.skewguard.sim.policy;

import io.skewguard.sim.model.Cluster;
import io.skewguard.sim.model.ClusterFigures;
import io.skewguard.sim.scenario.CephSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The Ceph-style baseline, {@code ceph osd reweight-by-utilization} with its defaults, run every
 * {@code interval}: with {@code mean} the cluster's mean utilisation (Σused / Σtotal), every live node
 * with {@code util ≥ overload × mean} (120 %) is a candidate; the most utilised {@code maxNodes} (4)
 * get {@code w ← max(w − maxChange, w · mean / util)} ({@code maxChange} 0.05). Ceph places data as a
 * function of the weights, so each change relocates the existing data whose placement changes
 * ({@link Cluster#relocateAfterWeightChange}); those bytes count as moved. Nodes below the mean are
 * never raised, and a node in no candidate set (an empty node that joined) never receives data:
 * both are Ceph's behaviour under this command, not a simulator shortcut.
 *
 * <p>Placement itself is CRUSH-like: when a node joins, the slot table is rebuilt from the ring and
 * the shards of the nodes that left a candidate set move to the nodes that entered it
 * ({@link Cluster#remapToRing}) at once, as Ceph remaps placement groups onto a new OSD; those bytes
 * count as moved by this policy.
 */
public final class CephReweight implements RepairPolicy {

    private final CephSettings settings;
    private long nextRun = Long.MIN_VALUE;
    private long lastChange = -1;
    private long firstIdle = -1;
    private double idleCv;

    public CephReweight(CephSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "ceph";
    }

    @Override
    public void onEvent(long now, io.skewguard.sim.scenario.ScenarioEvent event, Cluster cluster) {
        if (event instanceof io.skewguard.sim.scenario.ScenarioEvent.Join) {
            cluster.remapToRing();
        }
    }

    @Override
    public void onStep(long now, Cluster cluster, ClusterFigures figures) {
        if (now < nextRun) {
            return;
        }
        nextRun = now + settings.intervalMillis();
        double mean = figures.targetUtilisation();
        List<Integer> over = new ArrayList<>();
        for (int i = 0; i < cluster.maxNodes(); i++) {
            if (cluster.alive(i) && cluster.utilisation(i) >= settings.overload() * mean) {
                over.add(i);
            }
        }
        over.sort((a, b) -> {
            int c = Double.compare(cluster.utilisation(b), cluster.utilisation(a));
            return c != 0 ? c : Integer.compare(a, b);
        });
        int changed = 0;
        for (int node : over.subList(0, Math.min(settings.maxNodes(), over.size()))) {
            double w = cluster.weight(node);
            double next = Math.max(w - settings.maxChange(), w * mean / cluster.utilisation(node));
            if (next < w && next > 0) {
                cluster.relocateAfterWeightChange(node, w, next);
                cluster.setWeight(node, next);
                changed++;
            }
        }
        if (changed > 0) {
            lastChange = now;
        } else if (firstIdle < 0) {
            firstIdle = now;
            idleCv = figures.capacityCv();
        }
    }

    @Override
    public int migrationsRunning() {
        return 0;
    }

    @Override
    public long weightPhaseEnd() {
        return lastChange;
    }

    @Override
    public List<String> notes() {
        if (firstIdle < 0) {
            return List.of();
        }
        return List.of(String.format(Locale.ROOT,
                "ceph: from day %.1f (capacity CV %.3f) runs find no node at or above %.0f %% of mean utilisation "
                        + "and change nothing: reweight-by-utilization only cuts overloaded nodes, it never raises an "
                        + "under-used one", firstIdle / 86_400_000.0, idleCv, settings.overload() * 100));
    }
}
