package io.skewguard.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The table a {@code bench} command prints at the end: each row a measured path, the baseline it is
 * measured against in the same run, their ratio and, where one is set, the target for that ratio.
 */
public final class RatioTable {

    private record Row(String figure, String ours, String baseline, double ratio, String target) {}

    private final List<Row> rows = new ArrayList<>();
    private final Map<String, JmhRun.Score> scores;

    public RatioTable(Map<String, JmhRun.Score> scores) {
        this.scores = scores;
    }

    /**
     * Adds {@code ours ÷ baseline} for two JMH scores keyed {@code method@param}; a score the run
     * did not produce (filtered out, or failed) shows as missing instead of failing the table.
     */
    public RatioTable ratio(String figure, String ours, String baseline, String target) {
        JmhRun.Score a = scores.get(ours);
        JmhRun.Score b = scores.get(baseline);
        rows.add(new Row(figure, describe(ours, a), describe(baseline, b),
                a == null || b == null ? Double.NaN : a.score() / b.score(), target));
        return this;
    }

    /** Adds a row whose baseline is a fixed figure (a budget) rather than a measured path. */
    public RatioTable againstBudget(String figure, String ours, double budget, String budgetText, String target) {
        JmhRun.Score a = scores.get(ours);
        rows.add(new Row(figure, describe(ours, a), budgetText, a == null ? Double.NaN : a.score() / budget, target));
        return this;
    }

    private static String describe(String key, JmhRun.Score s) {
        if (s == null) {
            return "`" + key + "`: not measured";
        }
        String bytes = Double.isNaN(s.bytesPerOp()) ? "" : String.format(", %.1f B/op", s.bytesPerOp());
        return "`" + key + "` " + s.text() + bytes;
    }

    /** Markdown, ready for docs/benchmarks.md. */
    public String markdown() {
        StringBuilder out = new StringBuilder();
        out.append("| figure | ours | baseline (same run) | ratio ours ÷ baseline | target |\n");
        out.append("|---|---|---|---:|---|\n");
        for (Row r : rows) {
            out.append(String.format("| %s | %s | %s | %s | %s |%n", r.figure(), r.ours(), r.baseline(),
                    Double.isNaN(r.ratio()) ? "–" : String.format("%.2f", r.ratio()), r.target()));
        }
        return out.toString();
    }
}
