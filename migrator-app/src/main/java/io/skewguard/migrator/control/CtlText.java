package io.skewguard.migrator.control;

import io.skewguard.runtime.control.ClusterControls;
import io.skewguard.schemas.Decision;
import io.skewguard.schemas.OperatorControl;
import io.skewguard.schemas.Proposal;
import io.skewguard.schemas.ProposedMove;
import io.skewguard.schemas.ProposedWeight;
import io.skewguard.schemas.SkewReport;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/** What {@code ctl status}, {@code ctl plan} and {@code ctl explain} print, from a {@link ControlView}. Pure. */
public final class CtlText {

    static final String BALANCER = "balancer";
    static final String MIGRATOR = "migrator";

    private CtlText() {
    }

    /** {@code ctl status}: alerts, controls, the balancer's and the migrator's state as their latest decisions state it. */
    public static List<String> status(ControlView v) {
        List<String> out = new ArrayList<>();
        SkewReport r = v.known().report();
        out.add("cluster " + v.cluster() + (r == null ? ": no report yet" : ": latest report " + time(r.getWindowEnd())));
        if (r != null) {
            out.add(String.format(Locale.ROOT, "  alerts     HEAT %s (heat Gini %.3f), CAPACITY %s (capacity CV %.3f)", r.getHeatState(),
                    r.getHeatGini(), r.getCapacityState(), r.getCapacityCv()));
        }
        ClusterControls c = v.current();
        out.add("  dry run    " + (c.dryRun() ? "on: proposals only, no command is sent" : "off"));
        out.add("  paused     " + (c.paused() ? "yes: no new round or batch" : "no"));
        out.add("  throttle   " + (c.throttled() ? ClusterControls.rate(c.throttleBytesPerSec()) : "auto (the budget follows the write load)"));
        out.add("  excluded   " + (c.excluded().isEmpty() ? "none" : String.join(", ", c.excluded())));
        for (OperatorControl record : v.controls().values()) {
            out.add("             " + setting(record) + " — set by " + record.getOperator() + " at " + time(record.getUpdatedAt())
                    + (record.getReason() == null || record.getReason().isBlank() ? "" : " (\"" + record.getReason() + "\")"));
        }
        v.latest(BALANCER).ifPresentOrElse(d -> {
            out.add("  balancer   weights epoch " + whole(d.getFigures().get("weightsEpoch"))
                    + (d.getFigures().getOrDefault("repairing", 0.0) > 0 ? ", a repair is armed" : ", no repair armed"));
            out.add("             last decision " + line(d));
        }, () -> out.add("  balancer   no decision on the decision log yet"));
        v.latest(MIGRATOR).ifPresentOrElse(d -> {
            Map<String, Double> f = d.getFigures();
            OptionalLong floor = v.budgetFloor();
            out.add("  migrator   routing epoch " + whole(f.get("routingEpoch")) + "; budget "
                    + (f.containsKey("budgetBytesPerSec") ? ClusterControls.rate(f.get("budgetBytesPerSec").longValue()) : "?")
                    + (floor.isPresent() ? " (floor " + ClusterControls.rate(floor.getAsLong()) + ")" : "")
                    + (f.getOrDefault("repairing", 0.0) > 0 ? "; repairing" : "; no repair running"));
            out.add("             migrations: " + whole(f.get("migrations.copying")) + " copying, " + whole(f.get("migrations.copied"))
                    + " copied (waiting for their switch), " + whole(f.get("migrations.preparing")) + " preparing, "
                    + whole(f.get("migrations.committing")) + " committing, " + whole(f.get("migrations.cleaningUp")) + " cleaning up, "
                    + whole(f.get("migrations.aborting")) + " aborting; " + whole(f.get("batchesCommitted")) + " batches committed, "
                    + whole(f.get("batchesAborted")) + " aborted, " + bytes(f.get("bytesMoved")) + " moved");
            out.add("             last decision " + line(d));
        }, () -> out.add("  migrator   no decision on the decision log yet"
                + v.known().routingEpoch().stream().mapToObj(e -> "; the slot table is at routing epoch " + e).findFirst().orElse("")));
        return out;
    }

    /** {@code ctl plan}: the latest proposal of each app as a table, or why there is none. */
    public static List<String> plan(ControlView v) {
        List<String> out = new ArrayList<>();
        ClusterControls c = v.current();
        if (v.proposals().isEmpty()) {
            out.add("cluster " + v.cluster() + ": no proposal" + (c.dryRun()
                    ? " yet: dry run is on, and the apps propose at their next round or planning step"
                    : ": proposals are published in dry run only (ctl dry-run on)"));
            return out;
        }
        if (!c.dryRun()) {
            out.add("note: dry run is off; these are the last proposals made while it was on");
        }
        Proposal w = v.proposals().get(BALANCER);
        if (w != null) {
            out.add(String.format(Locale.ROOT, "weight round proposed by the balancer at %s: heat Gini %.3f, expected %.3f (an estimate); "
                    + "no data moves", time(w.getProposedAt()), w.getCurrent(), w.getExpected()));
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"NODE", "WEIGHT", "PROPOSED", "LOAD RATIO"});
            for (ProposedWeight p : w.getWeights()) {
                rows.add(new String[] {p.getNode(), fmt(p.getOldWeight()), fmt(p.getNewWeight()),
                        Double.isNaN(p.getLoadRatio()) ? "decay" : fmt(p.getLoadRatio())});
            }
            table(rows, out);
        }
        Proposal m = v.proposals().get(MIGRATOR);
        if (m != null) {
            out.add(String.format(Locale.ROOT, "migration plan proposed by the migrator at %s: capacity CV %.4f → %.4f, %d move%s, %s to "
                            + "move; the first batch would start %d of them", time(m.getProposedAt()), m.getCurrent(), m.getExpected(),
                    m.getMoves().size(), m.getMoves().size() == 1 ? "" : "s", bytes((double) m.getBytesToMove()), m.getFirstBatch()));
            List<String[]> rows = new ArrayList<>();
            rows.add(new String[] {"#", "SLOT", "FROM", "TO", "BYTES"});
            int i = 1;
            for (ProposedMove p : m.getMoves()) {
                rows.add(new String[] {Integer.toString(i++), Integer.toString(p.getSlot()), p.getSource(), p.getTarget(),
                        bytes((double) p.getBytes())});
            }
            table(rows, out);
        }
        return out;
    }

    /** {@code ctl explain}: the newest decisions, newest first, each with its figures. */
    public static List<String> explain(ControlView v, int count) {
        List<String> out = new ArrayList<>();
        if (v.decisions().isEmpty()) {
            out.add("cluster " + v.cluster() + ": no decision on the decision log yet (the balancer and the migrator publish one "
                    + "at their first report of the cluster)");
            return out;
        }
        out.add("cluster " + v.cluster() + ": the " + Math.min(count, v.decisions().size()) + " newest decisions, newest first");
        for (Decision d : v.decisions().subList(0, Math.min(count, v.decisions().size()))) {
            out.add(time(d.getDecidedAt()) + "  " + d.getApp() + "  " + d.getReason() + (d.getActed() ? " (acted)" : ""));
            out.add("    " + d.getMessage());
            List<String> figures = new ArrayList<>();
            d.getFigures().entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .forEach(e -> figures.add(e.getKey() + "=" + figure(e.getValue())));
            if (!figures.isEmpty()) {
                out.add("    " + String.join(" ", figures));
            }
        }
        return out;
    }

    private static String setting(OperatorControl r) {
        return switch (r.getControl()) {
            case DRY_RUN -> "dry run " + (r.getEnabled() ? "on" : "off");
            case PAUSE -> r.getEnabled() ? "paused" : "resumed";
            case THROTTLE -> r.getEnabled() ? "throttle " + ClusterControls.rate(r.getBytesPerSec()) : "throttle auto";
            case EXCLUDE -> (r.getEnabled() ? "excluded " : "included ") + r.getNode();
        };
    }

    private static String line(Decision d) {
        return time(d.getDecidedAt()) + ": " + d.getReason() + " — " + d.getMessage();
    }

    private static void table(List<String[]> rows, List<String> out) {
        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            StringBuilder b = new StringBuilder("  ");
            for (int i = 0; i < r.length; i++) {
                b.append(String.format(Locale.ROOT, "%-" + width[i] + "s  ", r[i]));
            }
            out.add(b.toString().stripTrailing());
        }
    }

    private static String time(Instant t) {
        return t.truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private static String whole(Double d) {
        return d == null ? "?" : Long.toString(d.longValue());
    }

    private static String fmt(double d) {
        return String.format(Locale.ROOT, "%.3f", d);
    }

    private static String figure(double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? Long.toString((long) d) : String.format(Locale.ROOT, "%.4f", d);
    }

    private static String bytes(Double d) {
        return d == null ? "?" : io.skewguard.migrator.membership.ByteSize.format(d.longValue());
    }
}
