package io.skewguard.balancer.policy;

import java.util.Collections;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Everything the controller remembers about one cluster between rounds. Kept in a state store so
 * that a restarted balancer resumes with the same weights, epoch and round clock.
 *
 * @param epoch weight-table epoch of the last round; 0 before the first
 * @param lastRoundAt event time of the last round, {@link #NEVER} before the first
 * @param repairing whether a repair is running (from a CONFIRMED HEAT alert until the target)
 * @param floorReached whether the running repair has hit the floor: every node outside the deadband
 *     sits at the bound it is pushing against, so weights can do no more
 * @param confirmedSince episode start ({@code SkewAlert.since}) of the last CONFIRMED HEAT alert that
 *     was acted upon, {@link #NEVER} if none; a replayed alert of the same episode is ignored
 * @param nodes per-node control memory, sorted by node id
 * @param aboveTargetSince after a repair, the event time from which every report's heat Gini was above
 *     the repair target ({@link #NEVER} while one is not, or a repair runs): a follow-up repair starts
 *     once this lasted {@code ControllerSettings.followUp()}
 */
public record ControllerState(
        long epoch,
        long lastRoundAt,
        boolean repairing,
        boolean floorReached,
        long confirmedSince,
        NavigableMap<String, NodeControl> nodes,
        long aboveTargetSince) {

    /** Marks "no such time yet". */
    public static final long NEVER = Long.MIN_VALUE;

    public ControllerState {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0, was " + epoch);
        }
        nodes = Collections.unmodifiableNavigableMap(new TreeMap<>(nodes));
    }

    /** A state with no follow-up pending ({@code aboveTargetSince} = {@link #NEVER}). */
    public ControllerState(long epoch, long lastRoundAt, boolean repairing, boolean floorReached, long confirmedSince,
            NavigableMap<String, NodeControl> nodes) {
        this(epoch, lastRoundAt, repairing, floorReached, confirmedSince, nodes, NEVER);
    }

    /** This state with {@code aboveTargetSince} set to {@code since}. */
    public ControllerState withAboveTargetSince(long since) {
        return new ControllerState(epoch, lastRoundAt, repairing, floorReached, confirmedSince, nodes, since);
    }

    /** A cluster the balancer has not seen before: epoch 0, no repair, no nodes. */
    public static ControllerState initial() {
        return new ControllerState(0, NEVER, false, false, NEVER, new TreeMap<>());
    }

    /** This state without the nodes {@code gone} (expired: they stopped reporting); the rest unchanged. */
    public ControllerState without(java.util.Set<String> gone) {
        TreeMap<String, NodeControl> kept = new TreeMap<>(nodes);
        kept.keySet().removeAll(gone);
        return new ControllerState(epoch, lastRoundAt, repairing, floorReached, confirmedSince, kept, aboveTargetSince);
    }

    /** Current weight factor of {@code node}; 1.0 for a node not in the table. */
    public double weight(String node) {
        NodeControl control = nodes.get(node);
        return control == null ? 1.0 : control.weight();
    }

    /** The weight table: node to weight factor, sorted by node id. */
    public NavigableMap<String, Double> weights() {
        TreeMap<String, Double> table = new TreeMap<>();
        for (Map.Entry<String, NodeControl> e : nodes.entrySet()) {
            table.put(e.getKey(), e.getValue().weight());
        }
        return Collections.unmodifiableNavigableMap(table);
    }
}
