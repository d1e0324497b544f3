package io.skewguard.migrator.control;

import io.skewguard.migrator.membership.Verdict;
import io.skewguard.runtime.control.ClusterControls;
import io.skewguard.schemas.MembershipState;
import io.skewguard.schemas.OperatorControl;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/**
 * What {@code skewguard ctl} may write for a {@link ControlChange}, given what the topics say of the
 * cluster ({@link ControlView}): the record, with lines saying what stands and what will happen, or
 * nothing (already so), or a refusal that names the reason. Pure.
 */
public final class ControlRules {

    private ControlRules() {
    }

    /**
     * @param operator who asks (the record's operator; with operator keys, the name the apps check the signature for)
     * @param note the operator's reason, or null
     */
    public static Verdict<OperatorControl> decide(ControlView view, ControlChange change, String operator, String note, Instant now) {
        String c = view.cluster();
        if (!view.isKnown()) {
            return new Verdict.Refused<>("cluster " + c + " is unknown: no report, slot table, membership record, control or decision "
                    + "names it (check --cluster and --topic-prefix)");
        }
        ClusterControls current = view.current();
        if (change instanceof ControlChange.Exclude x) {
            if (!view.known().knows(x.node())) {
                return new Verdict.Refused<>((x.on() ? "exclude" : "include") + " of " + x.node() + " refused: cluster " + c
                        + " has no node " + x.node() + " (its nodes: " + String.join(", ", view.known().nodes()) + ")");
            }
            if (x.on() && view.known().state(x.node()) == MembershipState.DRAINING) {
                return new Verdict.Refused<>("exclude of " + x.node() + " refused: it is DRAINING, and an excluded node is never a "
                        + "migration source, so its drain would stop; cancel the drain first (node drain " + x.node() + " --cancel)");
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add("cluster " + c + ": controls now " + current.describe());
        if (change instanceof ControlChange.Throttle t && t.on()) {
            OptionalLong floor = view.budgetFloor();
            if (floor.isPresent() && t.rate() < floor.getAsLong()) {
                return new Verdict.Refused<>("throttle " + t.rate() + " B/s (" + ClusterControls.rate(t.rate()) + ") refused: below the "
                        + "migration budget's floor " + floor.getAsLong() + " B/s (" + ClusterControls.rate(floor.getAsLong())
                        + "), budget-floor × max-bytes-per-sec as the migrator last stated it");
            }
            if (floor.isEmpty()) {
                lines.add("note: no decision of the migrator states its budget's floor yet; the migrator refuses a throttle below it");
            }
        }
        ClusterControls next = current.with(record(c, change, operator, note, now));
        if (next.equals(current)) {
            lines.add(already(change));
            return new Verdict.Unchanged<>(lines);
        }
        lines.add("next: " + next(change));
        return new Verdict.Write<>(lines, record(c, change, operator, note, now));
    }

    /** The control record of {@code change}, as ctl writes it. */
    static OperatorControl record(String cluster, ControlChange change, String operator, String note, Instant now) {
        return OperatorControl.newBuilder()
                .setCluster(cluster)
                .setControl(change.kind())
                .setNode(change.node())
                .setEnabled(change.on())
                .setBytesPerSec(change.bytesPerSec())
                .setOperator(operator)
                .setReason(note)
                .setUpdatedAt(now)
                .build();
    }

    private static String already(ControlChange change) {
        // Java 17: sealed changes, dispatched with instanceof (pattern switches are final only in 21)
        String what;
        if (change instanceof ControlChange.DryRun d) {
            what = "dry run is already " + (d.on() ? "on" : "off");
        } else if (change instanceof ControlChange.Pause p) {
            what = p.on() ? "already paused" : "not paused";
        } else if (change instanceof ControlChange.Throttle t) {
            what = t.on() ? "the throttle is already " + ClusterControls.rate(t.rate()) : "the budget is already auto";
        } else {
            ControlChange.Exclude x = (ControlChange.Exclude) change;
            what = x.node() + " is already " + (x.on() ? "excluded" : "included");
        }
        return "nothing to write: " + what;
    }

    private static String next(ControlChange change) {
        if (change instanceof ControlChange.DryRun d) {
            return d.on()
                    ? "the balancer and the migrator publish what they would do (ctl plan) and send no command; migrations already "
                            + "running finish (pause holds them)"
                    : "the next report runs the proposed weight round and migration plan for real";
        } else if (change instanceof ControlChange.Pause p) {
            return p.on()
                    ? "no new weight round and no new migration batch; running copies finish their current step and hold before "
                            + "their switch; a switch already started finishes"
                    : "held switches start, and weight rounds and plans go on where they stopped";
        } else if (change instanceof ControlChange.Throttle t) {
            return t.on()
                    ? "the migration budget is " + ClusterControls.rate(t.rate()) + ", shared by the running copies, which get their "
                            + "new rate at once"
                    : "the migration budget follows the write load again (max-bytes-per-sec at low load, its floor at peak)";
        }
        ControlChange.Exclude x = (ControlChange.Exclude) change;
        return x.on()
                ? x.node() + " is never a migration source or target and its weight factor stays as it is; a migration of "
                        + x.node() + " already running finishes"
                : x.node() + " may be a migration source or target again and its weight factor may move";
    }
}
