package io.skewguard.balancer.policy;

import java.util.List;

/**
 * Result of offering one report to the controller.
 *
 * @param state the cluster's state after the report (equal to the one before if nothing changed)
 * @param outcome what happened
 * @param changes one entry per node whose weight changed, sorted by node id; empty unless
 *     {@link RoundOutcome#opensEpoch()}
 * @param heatGini the report's heat Gini
 */
public record Round(ControllerState state, RoundOutcome outcome, List<WeightChange> changes, double heatGini) {

    public Round {
        changes = List.copyOf(changes);
        if (outcome.opensEpoch() == changes.isEmpty()) {
            throw new IllegalArgumentException(outcome + " with " + changes.size() + " changes");
        }
    }
}
