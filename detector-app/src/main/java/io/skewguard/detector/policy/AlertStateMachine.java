package io.skewguard.detector.policy;

import io.skewguard.schemas.AlertState;
import java.util.ArrayList;
import java.util.List;

/**
 * The alert state machine of docs/design.md §6 for one (cluster, kind), evaluated once per tick:
 *
 * <pre>
 * NORMAL    ── value &gt; threshold ─────────────────────────▶ OBSERVING (since = tick)
 * OBSERVING ── value ≤ threshold ─────────────────────────▶ NORMAL     (transient)
 * OBSERVING ── value &gt; threshold and tick ≥ since+cooldown ─▶ CONFIRMED
 * CONFIRMED ── value ≤ threshold × (1 − hysteresis) ───────▶ CLEARED
 * CLEARED   ── next tick, unconditionally ────────────────▶ NORMAL, then evaluated as NORMAL
 * </pre>
 *
 * CLEARED lasts exactly one tick so that every state appears in at least one report; the
 * CLEARED → NORMAL transition is emitted at the following tick, before that tick's own
 * evaluation (so NORMAL → OBSERVING can follow at the same tick). With a zero cooldown
 * NORMAL → OBSERVING → CONFIRMED happen at the same tick. Between threshold × (1 − hysteresis)
 * and threshold a CONFIRMED alert stays CONFIRMED. Every transition is returned once, in order.
 */
public final class AlertStateMachine {

    /** One transition; {@code threshold} is the level the value was compared with. */
    public record Transition(
            AlertState from, AlertState to, double value, double threshold, long since, long time) {}

    private final double threshold;
    private final double clearLevel;
    private final long cooldownMs;
    private AlertState state;
    private long since;

    public AlertStateMachine(double threshold, double hysteresis, long cooldownMs) {
        this(threshold, hysteresis, cooldownMs, AlertState.NORMAL, Long.MIN_VALUE);
    }

    /** Restores a machine in {@code state}; {@code since} is the start of the current episode. */
    public AlertStateMachine(
            double threshold, double hysteresis, long cooldownMs, AlertState state, long since) {
        if (!(threshold >= 0) || !(hysteresis >= 0 && hysteresis < 1) || cooldownMs < 0) {
            throw new IllegalArgumentException("need threshold >= 0, 0 <= hysteresis < 1, cooldown >= 0");
        }
        this.threshold = threshold;
        this.clearLevel = threshold * (1.0 - hysteresis);
        this.cooldownMs = cooldownMs;
        this.state = state;
        this.since = since;
    }

    public AlertState state() {
        return state;
    }

    /** Start of the current episode (NORMAL → OBSERVING tick); meaningless in NORMAL. */
    public long since() {
        return since;
    }

    public double threshold() {
        return threshold;
    }

    /** Feeds the metric of the tick at {@code time}; returns the transitions it caused, in order. */
    public List<Transition> observe(double value, long time) {
        List<Transition> out = new ArrayList<>(2);
        if (state == AlertState.CLEARED) {
            move(out, AlertState.NORMAL, value, clearLevel, time, time);
        }
        switch (state) {
            case NORMAL -> {
                if (value > threshold) {
                    move(out, AlertState.OBSERVING, value, threshold, time, time);
                    if (time - since >= cooldownMs) {
                        move(out, AlertState.CONFIRMED, value, threshold, since, time);
                    }
                }
            }
            case OBSERVING -> {
                if (value <= threshold) {
                    move(out, AlertState.NORMAL, value, threshold, time, time);
                } else if (time - since >= cooldownMs) {
                    move(out, AlertState.CONFIRMED, value, threshold, since, time);
                }
            }
            case CONFIRMED -> {
                if (value <= clearLevel) {
                    move(out, AlertState.CLEARED, value, clearLevel, since, time);
                }
            }
            case CLEARED -> throw new IllegalStateException("CLEARED is left before evaluation");
        }
        return out;
    }

    private void move(List<Transition> out, AlertState to, double value, double level, long newSince, long time) {
        out.add(new Transition(state, to, value, level, newSince, time));
        state = to;
        since = newSince;
    }
}
