package io.skewguard.balancer.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * SkewGuard's weight-factor controller (docs/design.md §7): a damped proportional step on
 * log-weight.
 *
 * <h2>Law</h2>
 *
 * For every node with a known capacity, {@code r = heatShare / capacityShare}. A node inside the
 * deadband ({@code |r − 1| <= deadband}) is untouched. Any other node moves
 *
 * <pre>
 *   w' = clamp( w · clamp( r^(−g), 1 − maxStep, 1 + maxStep ), minWeight, maxWeight )
 * </pre>
 *
 * where {@code g} is the node's own gain: it starts at the configured gain (≤ 1/2) and halves every
 * time the direction the node asks for (raise if r &lt; 1, lower if r &gt; 1) reverses within a repair.
 * Cost per round: O(N log N) for N nodes (sorted map), no per-slot work.
 *
 * <h2>Why it converges and does not oscillate</h2>
 *
 * Let {@code x = ln w}. Writers place a write for slot s on candidate i with probability {@code p_is
 * = w_i f_i / Σ_{j∈C(s)} w_j f_j} (f = free ratio), so node heat is {@code H_i = Σ_s h_s p_is}.
 *
 * <ol>
 *   <li><b>A convex potential.</b> {@code F(x) = Σ_s h_s ln Σ_{j∈C(s)} f_j e^{x_j} − Σ_i c_i x_i},
 *       with {@code c_i} = total heat × capacity share, has {@code ∂F/∂x_i = H_i − c_i} and Hessian
 *       {@code L = Σ_s h_s (diag p_s − p_s p_sᵀ)}, which is positive semi-definite. Every step above
 *       has the sign of {@code −∂F/∂x_i} ({@code ln r_i} and {@code H_i − c_i} share their sign), so
 *       it is a descent step on a convex function; the ±5 % clip only shortens it, and the [0.5, 2]
 *       clamp makes it a projected descent over a box. The fixed points are exactly: every node
 *       inside the deadband, or at the bound it pushes against — the floor.</li>
 *   <li><b>No overshoot.</b> Linearised, the error {@code e = ln r} evolves as {@code e' = (I − gJ) e}
 *       with {@code J = diag(H)^−1 L}. J is similar to a symmetric PSD matrix (real eigenvalues ≥
 *       0), its rows sum to 0 and its diagonal {@code J_ii = Σ_s h_s p_is (1 − p_is) / H_i} is below
 *       1, so by Gershgorin its eigenvalues lie in [0, 2). With {@code g ≤ 1/2} every factor {@code 1
 *       − gλ} lies in (0, 1]: each mode of the error shrinks without changing sign. The zero mode is
 *       scaling all weights together, which moves no write.</li>
 *   <li><b>Reversals die out.</b> Coupling through shared candidate sets and the non-linear rest
 *       can still flip one node's error; each flip halves that node's gain, so its k-th reversal
 *       moves it by at most {@code g/2^k} of its error — a geometric series.</li>
 *   <li><b>No stale feedback.</b> Rounds are at least 2 minutes apart and the detector's window is
 *       60 s, so each round sees only writes placed under the previous round's weights; a delayed
 *       loop is what makes a proportional controller ring.</li>
 * </ol>
 *
 * <h2>Repair lifecycle</h2>
 *
 * A CONFIRMED HEAT alert arms a repair. Rounds then run, at least {@code minRoundInterval} of event
 * time apart, also after the alert clears, until the report's heat Gini is at or below {@code
 * repairTarget} or every node is inside the deadband. When every node outside the deadband sits at
 * its bound no weight can move: the round reports {@link RoundOutcome#FLOOR_REACHED}, writes no
 * epoch, and the repair stays armed in case the load shifts. After a repair the weights stay unless
 * {@code decay > 0}, which gives back that fraction of each log-weight per round (same step limit).
 * With {@code followUp > 0} the controller keeps what a repair reached: once every report for that
 * long had a heat Gini above the repair target, a repair arms again by itself (fresh gains, as an
 * alert arms it), without waiting for the HEAT alert.
 *
 * <h2>Excluded nodes</h2>
 *
 * A node the snapshot holds ({@link LoadSnapshot#held()}: an operator excluded it) keeps its
 * weight: its heat and capacity still count in every share, it opens no change, and a decay round
 * skips it. A round in which only held nodes are outside the deadband reports
 * {@link RoundOutcome#EXCLUDED} and writes no epoch.
 *
 * <p>Pure: results depend only on the arguments (Java 17 floating point is strict), so a replayed
 * report yields the same round, epoch and weights.
 */
public final class WeightController implements WeightPolicy {

    /** A change smaller than this (relative) is not worth a command, and counts as no change. */
    static final double MIN_RELATIVE_CHANGE = 1e-4;

    private final ControllerSettings settings;

    public WeightController(ControllerSettings settings) {
        this.settings = settings;
    }

    public ControllerSettings settings() {
        return settings;
    }

    @Override
    public ControllerState onHeatConfirmed(ControllerState state, long since) {
        if (state.confirmedSince() != ControllerState.NEVER && since <= state.confirmedSince()) {
            return state; // this episode (or an older one) was already acted upon: a replay
        }
        if (state.repairing()) {
            return new ControllerState(
                    state.epoch(), state.lastRoundAt(), true, state.floorReached(), since, state.nodes());
        }
        return new ControllerState(state.epoch(), state.lastRoundAt(), true, false, since, rearmed(state));
    }

    @Override
    public Round onReport(ControllerState state, LoadSnapshot snapshot) {
        double gini = snapshot.heatGini();
        if (!state.repairing()) {
            state = followUp(state, snapshot);
        }
        if (!state.repairing() && !decayPending(state)) {
            return new Round(state, RoundOutcome.IDLE, List.of(), gini);
        }
        if (state.lastRoundAt() != ControllerState.NEVER
                && snapshot.time() - state.lastRoundAt() < settings.minRoundInterval().toMillis()) {
            return new Round(state, RoundOutcome.TOO_SOON, List.of(), gini);
        }
        return state.repairing() ? repairRound(state, snapshot) : decayRound(state, snapshot);
    }

    private Round repairRound(ControllerState state, LoadSnapshot snapshot) {
        double gini = snapshot.heatGini();
        if (gini <= settings.repairTarget()) {
            return new Round(ended(state), RoundOutcome.TARGET_REACHED, List.of(), gini);
        }
        double totalHeat = 0;
        double totalCapacity = 0;
        for (NodeLoad load : snapshot.nodes()) {
            if (load.capacity() > 0) {
                totalHeat += load.heat();
                totalCapacity += load.capacity();
            }
        }
        if (totalHeat <= 0 || totalCapacity <= 0) {
            return new Round(state, RoundOutcome.UNMEASURABLE, List.of(), gini);
        }

        NavigableMap<String, NodeControl> next = new TreeMap<>(state.nodes());
        List<WeightChange> changes = new ArrayList<>();
        boolean anyOutside = false;
        boolean heldOutside = false;
        for (NodeLoad load : snapshot.nodes()) {
            NodeControl control = next.computeIfAbsent(load.node(), n -> NodeControl.initial(settings.gain()));
            if (load.capacity() <= 0) {
                continue; // no capacity share yet, so no load ratio
            }
            double ratio = (load.heat() / totalHeat) / (load.capacity() / totalCapacity);
            if (Math.abs(ratio - 1.0) <= settings.deadband()) {
                continue;
            }
            if (snapshot.held().contains(load.node())) {
                heldOutside = true;
                continue;
            }
            anyOutside = true;
            int direction = ratio > 1.0 ? -1 : +1;
            double gain = control.gain();
            int reversals = control.reversals();
            if (control.direction() != 0 && direction != control.direction()) {
                gain /= 2;
                reversals++;
            }
            double oldWeight = control.weight();
            double factor = clamp(Math.pow(ratio, -gain), 1 - settings.maxStep(), 1 + settings.maxStep());
            double newWeight = clamp(oldWeight * factor, settings.minWeight(), settings.maxWeight());
            if (Math.abs(newWeight - oldWeight) < MIN_RELATIVE_CHANGE * oldWeight) {
                newWeight = oldWeight;
            } else {
                changes.add(new WeightChange(load.node(), oldWeight, newWeight, ratio));
            }
            next.put(load.node(), new NodeControl(newWeight, gain, direction, reversals));
        }
        if (!anyOutside) {
            return heldOutside ? new Round(state, RoundOutcome.EXCLUDED, List.of(), gini)
                    : new Round(ended(state), RoundOutcome.INSIDE_DEADBAND, List.of(), gini);
        }
        if (changes.isEmpty()) {
            ControllerState floor = new ControllerState(
                    state.epoch(), state.lastRoundAt(), true, true, state.confirmedSince(), state.nodes());
            return new Round(floor, RoundOutcome.FLOOR_REACHED, List.of(), gini);
        }
        changes.sort(java.util.Comparator.comparing(WeightChange::node));
        ControllerState after = new ControllerState(
                state.epoch() + 1, snapshot.time(), true, false, state.confirmedSince(), next);
        return new Round(after, RoundOutcome.ADJUSTED, changes, gini);
    }

    /**
     * After a repair (one armed by an alert before), watches the heat Gini: a report at or below the
     * target resets the watch; once every report for {@code followUp} was above it, a repair arms
     * again with fresh gains, as an alert would arm it.
     */
    private ControllerState followUp(ControllerState state, LoadSnapshot snapshot) {
        if (!settings.followsUp() || state.confirmedSince() == ControllerState.NEVER) {
            return state;
        }
        if (!(snapshot.heatGini() > settings.repairTarget())) {
            return state.aboveTargetSince() == ControllerState.NEVER ? state : state.withAboveTargetSince(ControllerState.NEVER);
        }
        long since = state.aboveTargetSince() == ControllerState.NEVER ? snapshot.time() : state.aboveTargetSince();
        if (snapshot.time() - since < settings.followUp().toMillis()) {
            return since == state.aboveTargetSince() ? state : state.withAboveTargetSince(since);
        }
        return new ControllerState(state.epoch(), state.lastRoundAt(), true, false, state.confirmedSince(), rearmed(state));
    }

    /** Every node's control memory with a fresh gain, as a new repair starts with. */
    private NavigableMap<String, NodeControl> rearmed(ControllerState state) {
        NavigableMap<String, NodeControl> rearmed = new TreeMap<>();
        state.nodes().forEach((node, control) -> rearmed.put(node, control.rearmed(settings.gain())));
        return rearmed;
    }

    private boolean decayPending(ControllerState state) {
        if (settings.decay() <= 0) {
            return false;
        }
        for (NodeControl control : state.nodes().values()) {
            if (control.weight() != 1.0) {
                return true;
            }
        }
        return false;
    }

    private Round decayRound(ControllerState state, LoadSnapshot snapshot) {
        NavigableMap<String, NodeControl> next = new TreeMap<>(state.nodes());
        List<WeightChange> changes = new ArrayList<>();
        double maxLogStep = Math.log(1 + settings.maxStep());
        double minLogStep = Math.log(1 - settings.maxStep());
        for (var entry : state.nodes().entrySet()) {
            double oldWeight = entry.getValue().weight();
            if (oldWeight == 1.0 || snapshot.held().contains(entry.getKey())) {
                continue;
            }
            double logStep = clamp(-settings.decay() * Math.log(oldWeight), minLogStep, maxLogStep);
            double newWeight = oldWeight * Math.exp(logStep);
            // overshooting 1.0 is impossible (decay <= 1); snap the last hair to exactly 1.0
            if (Math.abs(newWeight - 1.0) < MIN_RELATIVE_CHANGE) {
                newWeight = 1.0;
            }
            newWeight = clamp(newWeight, settings.minWeight(), settings.maxWeight());
            changes.add(new WeightChange(entry.getKey(), oldWeight, newWeight, Double.NaN));
            next.put(entry.getKey(), entry.getValue().withWeight(newWeight));
        }
        if (changes.isEmpty()) {
            return new Round(state, RoundOutcome.EXCLUDED, List.of(), snapshot.heatGini()); // only held nodes left to decay
        }
        ControllerState after = new ControllerState(
                state.epoch() + 1, snapshot.time(), false, false, state.confirmedSince(), next, state.aboveTargetSince());
        return new Round(after, RoundOutcome.DECAYED, changes, snapshot.heatGini());
    }

    private static ControllerState ended(ControllerState state) {
        return new ControllerState(
                state.epoch(), state.lastRoundAt(), false, false, state.confirmedSince(), state.nodes());
    }

    private static double clamp(double value, double low, double high) {
        return Math.max(low, Math.min(high, value));
    }
}
