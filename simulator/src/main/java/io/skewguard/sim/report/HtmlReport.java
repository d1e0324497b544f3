package io.skewguard.sim.report;

import io.skewguard.sim.run.PolicyRun;
import io.skewguard.sim.run.PolicySummary;
import io.skewguard.sim.run.Series;
import io.skewguard.sim.scenario.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code report.html}: one self-contained page (inline SVG, no script, nothing fetched) with the
 * table, heat Gini and capacity CV over time with their thresholds, the hot spot close up, per-node
 * utilisation at repair start and at the end, the weight factors over time and the bytes moved.
 */
public final class HtmlReport {

    private HtmlReport() {}

    public static String render(Scenario scenario, List<PolicyRun> runs) {
        List<PolicySummary> summaries = new ArrayList<>();
        runs.forEach(r -> summaries.add(r.summary()));
        StringBuilder html = new StringBuilder();
        html.append("<!DOCTYPE html><html><head><meta charset='utf-8'><title>SkewGuard simulation: ")
                .append(SvgChart.escape(scenario.name()))
                .append("</title><style>body{font-family:sans-serif;margin:24px;max-width:960px}"
                        + "pre{background:#f6f6f6;padding:12px;overflow-x:auto}h2{margin-top:32px}</style></head><body>");
        html.append("<h1>").append(SvgChart.escape(scenario.name())).append("</h1><p>")
                .append(SvgChart.escape(scenario.description())).append("</p>");
        html.append(String.format(Locale.ROOT, "<p>seed %d · %d nodes at the start · %d slots · candidate sets of %d · "
                        + "%.0f simulated days in steps of %.0f minutes · repair from day %.1f</p>",
                scenario.seed(), scenario.nodes().size(), scenario.slots(), scenario.candidates(),
                scenario.durationMillis() / 86_400_000.0, scenario.stepMillis() / 60_000.0, scenario.repairFromMillis() / 86_400_000.0));
        html.append("<h2>Figures next to the paper's</h2><pre>")
                .append(SvgChart.escape(ConsoleTable.render(scenario.name(), scenario.seed(), summaries))).append("</pre>");

        List<SvgChart.Line> gini = new ArrayList<>();
        List<SvgChart.Line> cv = new ArrayList<>();
        List<SvgChart.Line> moved = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            Series s = runs.get(i).series();
            String name = runs.get(i).summary().policy();
            String colour = SvgChart.COLOURS[i % SvgChart.COLOURS.length];
            double[] x = array(s.day);
            gini.add(new SvgChart.Line(name, colour, x, array(s.heatGini), 1.2));
            cv.add(new SvgChart.Line(name, colour, x, array(s.capacityCv), 1.8));
            double[] tb = array(s.bytesMoved);
            for (int k = 0; k < tb.length; k++) {
                tb[k] /= 1e12;
            }
            moved.add(new SvgChart.Line(name, colour, x, tb, 1.8));
        }
        var sg = scenario.skewguard();
        html.append("<h2>Heat Gini over time</h2>").append(SvgChart.lines("heat Gini", "day", "Gini", gini, List.of(
                new SvgChart.Threshold("alert " + sg.heatThreshold(), sg.heatThreshold()),
                new SvgChart.Threshold("target " + sg.repairTarget(), sg.repairTarget()),
                new SvgChart.Threshold("hot spot 0.25", 0.25)), true));
        if (scenario.firstHotSpot() != null) {
            double at = scenario.firstHotSpot().atMillis() / 86_400_000.0;
            List<SvgChart.Line> zoom = new ArrayList<>();
            for (SvgChart.Line l : gini) {
                List<Double> zx = new ArrayList<>();
                List<Double> zy = new ArrayList<>();
                for (int k = 0; k < l.x().length; k++) {
                    if (l.x()[k] >= at - 1 / 24.0 && l.x()[k] <= at + 6 / 24.0) {
                        zx.add((l.x()[k] - at) * 1440);
                        zy.add(l.y()[k]);
                    }
                }
                zoom.add(new SvgChart.Line(l.name(), l.colour(), array(zx), array(zy), 1.5));
            }
            html.append("<h2>The hot spot, close up</h2>").append(SvgChart.lines("heat Gini around the hot spot",
                    "minutes from the hot spot", "Gini", zoom, List.of(new SvgChart.Threshold("0.25", 0.25),
                            new SvgChart.Threshold("alert " + sg.heatThreshold(), sg.heatThreshold())), true));
        }
        html.append("<h2>Capacity CV over time</h2>").append(SvgChart.lines("capacity CV", "day", "CV", cv, List.of(
                new SvgChart.Threshold("alert " + sg.capacityThreshold(), sg.capacityThreshold()),
                new SvgChart.Threshold("paper 0.09", 0.09),
                new SvgChart.Threshold("planner " + sg.migrationTargetCv(), sg.migrationTargetCv())), true));
        html.append("<h2>Bytes moved</h2>").append(SvgChart.lines("bytes moved by the policy (cumulative)", "day", "TB",
                moved, List.of(new SvgChart.Threshold("minimum (" + summaries.get(0).policy() + ")",
                        summaries.get(0).minimumBytes() / 1e12)), true));

        for (PolicyRun run : runs) {
            Series s = run.series();
            String name = run.summary().policy();
            html.append("<h2>Per-node utilisation, ").append(SvgChart.escape(name)).append("</h2>")
                    .append(SvgChart.bars("utilisation at repair start and at the end (" + name + ")", "used / total",
                            s.nodes, List.of("repair start", "end"),
                            List.of(pad(s.utilisationBefore, s.nodes.size()), pad(s.utilisationAfter, s.nodes.size()))));
        }
        for (PolicyRun run : runs) {
            if (run.summary().weightChanges() == 0) {
                continue;
            }
            html.append("<h2>Weight factors, ").append(SvgChart.escape(run.summary().policy())).append("</h2>")
                    .append(weights(run));
        }
        html.append("</body></html>\n");
        return html.toString();
    }

    /** Every node's weight when there are at most 64 nodes, else min, mean and max. */
    private static String weights(PolicyRun run) {
        Series s = run.series();
        double[] x = array(s.day);
        int nodes = s.weights.isEmpty() ? 0 : s.weights.get(0).length;
        List<SvgChart.Line> lines = new ArrayList<>();
        if (nodes <= 64) {
            for (int n = 0; n < nodes; n++) {
                double[] y = new double[x.length];
                for (int k = 0; k < x.length; k++) {
                    y[k] = s.weights.get(k)[n];
                }
                lines.add(new SvgChart.Line(s.nodes.get(n), SvgChart.COLOURS[n % SvgChart.COLOURS.length], x, y, 0.8));
            }
        } else {
            double[] min = new double[x.length];
            double[] mean = new double[x.length];
            double[] max = new double[x.length];
            for (int k = 0; k < x.length; k++) {
                double lo = Double.MAX_VALUE;
                double hi = -Double.MAX_VALUE;
                double sum = 0;
                int count = 0;
                for (double w : s.weights.get(k)) {
                    if (Double.isFinite(w)) {
                        lo = Math.min(lo, w);
                        hi = Math.max(hi, w);
                        sum += w;
                        count++;
                    }
                }
                min[k] = lo;
                max[k] = hi;
                mean[k] = sum / Math.max(1, count);
            }
            lines.add(new SvgChart.Line("min", SvgChart.COLOURS[0], x, min, 1.5));
            lines.add(new SvgChart.Line("mean", SvgChart.COLOURS[1], x, mean, 1.5));
            lines.add(new SvgChart.Line("max", SvgChart.COLOURS[2], x, max, 1.5));
        }
        String policy = run.summary().policy();
        List<SvgChart.Threshold> bounds = policy.equals("skewguard")
                ? List.of(new SvgChart.Threshold("floor 0.5", 0.5), new SvgChart.Threshold("ceiling 2.0", 2.0))
                : List.of();
        return SvgChart.lines("weight factors over time (" + policy + ")", "day", "w", lines, bounds, nodes > 64);
    }

    private static double[] pad(double[] values, int n) {
        return java.util.Arrays.copyOf(values, n);
    }

    private static double[] array(List<Double> values) {
        double[] a = new double[values.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = values.get(i);
        }
        return a;
    }
}
