package io.skewguard.migrator.control;

import io.skewguard.migrator.membership.KnownCluster;
import io.skewguard.runtime.control.ClusterControls;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What the topics say of one cluster when {@code ctl} starts: its nodes, latest report and slot
 * table ({@link KnownCluster}), the latest control record of each key, the newest decisions of the
 * balancer and the migrator (newest first), and the latest proposal of each.
 */
public record ControlView(KnownCluster known, SortedMap<String, OperatorControl> controls, List<Decision> decisions,
        Map<String, Proposal> proposals) {

    public ControlView {
        controls = new TreeMap<>(controls);
        decisions = List.copyOf(decisions);
        proposals = Map.copyOf(proposals);
    }

    public String cluster() {
        return known.cluster();
    }

    /** The controls as they stand. */
    public ClusterControls current() {
        return ClusterControls.of(controls.values());
    }

    /** The newest decision of {@code app} ({@code balancer}, {@code migrator}). */
    public Optional<Decision> latest(String app) {
        return decisions.stream().filter(d -> d.getApp().equals(app)).findFirst();
    }

    /** The migration budget's floor as the migrator last stated it, if it has. */
    public OptionalLong budgetFloor() {
        return latest("migrator").map(d -> d.getFigures().get("budgetFloorBytesPerSec"))
                .map(f -> OptionalLong.of(f.longValue())).orElse(OptionalLong.empty());
    }

    /** Whether anything of the cluster is on the topics: a node, a report, a slot-table row, a control or a decision. */
    public boolean isKnown() {
        return !known.isEmpty() || !controls.isEmpty() || !decisions.isEmpty();
    }
}
