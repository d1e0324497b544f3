package io.skewguard.sim.report;

import io.skewguard.sim.run.PolicySummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * The final aligned text table: one row per figure, the paper's value (docs/design.md §10) and then one
 * column per policy, followed by the policies' notes.
 */
public final class ConsoleTable {

    private ConsoleTable() {}

    /** The table as text, lines ending in {@code \n}. */
    public static String render(String scenario, long seed, List<PolicySummary> policies) {
        List<String[]> rows = new ArrayList<>();
        List<String> header = new ArrayList<>(List.of("figure", "paper"));
        policies.forEach(p -> header.add(p.policy()));
        rows.add(header.toArray(String[]::new));
        row(rows, "baseline capacity CV", PaperFigures.BASELINE_CV, policies, p -> Figures.ratio(p.baselineCv()));
        row(rows, "baseline max−min gap", PaperFigures.BASELINE_GAP, policies, p -> Figures.percent(p.baselineGap()));
        row(rows, "heat Gini before weights", PaperFigures.GINI_BEFORE, policies, p -> Figures.ratio(p.giniBeforeWeights()));
        row(rows, "heat Gini after weights", PaperFigures.GINI_AFTER, policies, p -> Figures.ratio(p.giniAfterWeights()));
        row(rows, "weight phase (days)", PaperFigures.WEIGHT_DAYS, policies, p -> Figures.number(p.weightPhaseDays(), "%.2f"));
        row(rows, "final capacity CV", PaperFigures.FINAL_CV, policies, p -> Figures.ratio(p.finalCv()));
        row(rows, "final max−min gap", PaperFigures.FINAL_GAP, policies, p -> Figures.percent(p.finalGap()));
        row(rows, "bytes moved (repair)", PaperFigures.BYTES_MOVED, policies, p -> Figures.bytes(p.bytesMoved()));
        row(rows, "minimum bytes to move", "—", policies, p -> Figures.bytes(p.minimumBytes()));
        row(rows, "moved / minimum", "—", policies, p -> String.format(Locale.ROOT, "%.3f", p.movedOverMinimum()));
        row(rows, "heat Gini before hot spot", PaperFigures.GINI_AFTER, policies, p -> Figures.ratio(p.giniBeforeHotspot()));
        row(rows, "hot-spot Gini peak", PaperFigures.HOTSPOT_PEAK, policies, p -> Figures.ratio(p.hotspotGiniPeak()));
        row(rows, "hot-spot recovery (min)", PaperFigures.HOTSPOT_MINUTES, policies,
                p -> p.hotspotGiniPeak() == null ? "—" : p.hotspotRecoveryMinutes() == null ? "never"
                        : String.format(Locale.ROOT, "%.0f", p.hotspotRecoveryMinutes()));
        row(rows, "hot spot back to level before (min)", "—", policies,
                p -> p.hotspotGiniPeak() == null ? "—" : p.hotspotSettleMinutes() == null ? "never"
                        : String.format(Locale.ROOT, "%.0f", p.hotspotSettleMinutes()));
        row(rows, "hot-spot bytes moved", PaperFigures.HOTSPOT_BYTES, policies, p -> Figures.bytes(p.hotspotBytesMoved()));
        row(rows, "  of them until the recovery", "—", policies, p -> Figures.bytes(p.hotspotRecoveryBytes()));
        row(rows, "bytes moved (whole run)", "—", policies, p -> Figures.bytes(p.totalBytesMoved()));
        row(rows, "capacity CV at the end", "—", policies, p -> Figures.ratio(p.endCv()));
        row(rows, "rebuilt after node loss", "—", policies, p -> Figures.bytes(p.recoveryBytes()));
        row(rows, "writes refused (candidates full)", "—", policies, p -> Figures.bytes(p.refusedBytes()));
        if (policies.stream().anyMatch(p -> p.joinedUtilisationSpread() != null)) {
            row(rows, "joined nodes vs mean utilisation", "—", policies, p -> p.joinedUtilisationSpread() == null ? "—"
                    : "≤ " + Figures.percent(p.joinedUtilisationSpread()));
        }
        if (policies.stream().anyMatch(p -> p.writesReroutedFromLost() > 0 || p.writesToLostAfterUpdate() > 0)) {
            row(rows, "writes to a lost node, before its update", "—", policies, p -> Figures.bytes(p.writesReroutedFromLost()));
            row(rows, "writes to a lost node, after its update", "—", policies, p -> Figures.bytes(p.writesToLostAfterUpdate()));
        }
        row(rows, "weight changes", "—", policies, p -> Long.toString(p.weightChanges()));
        row(rows, "keys unreadable / written", "—", policies, p -> p.keysUnreadable() + " / " + p.keysWritten());
        if (policies.stream().anyMatch(p -> p.readProbes() != null || p.spreadReadProbes() != null)) {
            row(rows, "probes per read, slots not spread", "—", policies, p -> probes(p.readProbes()));
            row(rows, "probes per read, spread slots", "—", policies, p -> probes(p.spreadReadProbes()));
        }
        row(rows, "wall time (s)", "—", policies, p -> String.format(Locale.ROOT, "%.1f", p.wallSeconds()));

        int[] width = new int[rows.get(0).length];
        for (String[] r : rows) {
            for (int c = 0; c < r.length; c++) {
                width[c] = Math.max(width[c], r[c].length());
            }
        }
        StringBuilder out = new StringBuilder();
        out.append("scenario ").append(scenario).append(", seed ").append(seed).append('\n');
        for (int i = 0; i < rows.size(); i++) {
            String[] r = rows.get(i);
            for (int c = 0; c < r.length; c++) {
                String cell = r[c];
                out.append(c == 0 ? pad(cell, width[c], false) : "  " + pad(cell, width[c], true));
            }
            out.append('\n');
            if (i == 0) {
                int total = 0;
                for (int w : width) {
                    total += w + 2;
                }
                out.append("-".repeat(total - 2)).append('\n');
            }
        }
        for (PolicySummary p : policies) {
            for (String note : p.notes()) {
                out.append("note: ").append(note).append('\n');
            }
        }
        return out.toString();
    }

    /** "1.27 mean, p99 2 (3 120 keys)". */
    private static String probes(io.skewguard.sim.run.ReadProbes r) {
        return r == null ? "—" : String.format(Locale.ROOT, "%.3f, p99 %d (%d keys)", r.mean(), r.p99(), r.keys());
    }

    private static void row(List<String[]> rows, String name, String paper, List<PolicySummary> policies,
                            Function<PolicySummary, String> cell) {
        List<String> r = new ArrayList<>(List.of(name, paper));
        policies.forEach(p -> r.add(cell.apply(p)));
        rows.add(r.toArray(String[]::new));
    }

    private static String pad(String s, int width, boolean right) {
        int gap = width - s.length();
        if (gap <= 0) {
            return s;
        }
        return right ? " ".repeat(gap) + s : s + " ".repeat(gap);
    }
}
