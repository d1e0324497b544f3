package io.skewguard.sim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small SVG writer for the report: line charts over time with horizontal threshold lines, and
 * grouped bar charts. Self-contained markup, no script, no network.
 */
final class SvgChart {

    static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
    private static final int W = 860;
    private static final int H = 300;
    private static final int LEFT = 64;
    private static final int RIGHT = 150;
    private static final int TOP = 30;
    private static final int BOTTOM = 40;

    /** One line: name, colour and points (x, y); NaN values break the line. */
    record Line(String name, String colour, double[] x, double[] y, double width) {}

    /** A horizontal line at {@code y}, dashed, labelled. */
    record Threshold(String label, double y) {}

    private SvgChart() {}

    static String lines(String title, String xLabel, String yLabel, List<Line> lines, List<Threshold> thresholds,
                        boolean legend) {
        double xMin = Double.MAX_VALUE;
        double xMax = -Double.MAX_VALUE;
        double yMin = 0;
        double yMax = -Double.MAX_VALUE;
        for (Line l : lines) {
            for (int i = 0; i < l.x().length; i++) {
                if (Double.isFinite(l.y()[i])) {
                    xMin = Math.min(xMin, l.x()[i]);
                    xMax = Math.max(xMax, l.x()[i]);
                    yMax = Math.max(yMax, l.y()[i]);
                    yMin = Math.min(yMin, l.y()[i]);
                }
            }
        }
        for (Threshold t : thresholds) {
            yMax = Math.max(yMax, t.y());
        }
        if (xMax <= xMin) {
            xMax = xMin + 1;
        }
        if (yMax <= yMin) {
            yMax = yMin + 1;
        }
        yMax *= 1.05;
        StringBuilder svg = open(title);
        axes(svg, xMin, xMax, yMin, yMax, xLabel, yLabel);
        for (Threshold t : thresholds) {
            double y = py(t.y(), yMin, yMax);
            svg.append(String.format(Locale.ROOT,
                    "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#555' stroke-dasharray='6 4'/>"
                            + "<text x='%d' y='%.1f' font-size='11' fill='#555'>%s</text>",
                    LEFT, y, W - RIGHT, y, W - RIGHT + 4, y + 4, escape(t.label())));
        }
        int k = 0;
        for (Line l : lines) {
            StringBuilder d = new StringBuilder();
            boolean pen = false;
            for (int i = 0; i < l.x().length; i++) {
                if (!Double.isFinite(l.y()[i])) {
                    pen = false;
                    continue;
                }
                d.append(String.format(Locale.ROOT, "%s%.1f %.1f ", pen ? "L" : "M",
                        px(l.x()[i], xMin, xMax), py(l.y()[i], yMin, yMax)));
                pen = true;
            }
            svg.append(String.format(Locale.ROOT, "<path d='%s' fill='none' stroke='%s' stroke-width='%.1f'/>",
                    d.toString().strip(), l.colour(), l.width()));
            if (legend) {
                int ly = TOP + 14 + 16 * k;
                svg.append(String.format(Locale.ROOT,
                        "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='%s' stroke-width='3'/><text x='%d' y='%d' font-size='12'>%s</text>",
                        W - RIGHT + 4, ly + 50, W - RIGHT + 24, ly + 50, l.colour(), W - RIGHT + 28, ly + 54, escape(l.name())));
            }
            k++;
        }
        return svg.append("</svg>\n").toString();
    }

    /** Grouped bars: one group per label, one bar per series. */
    static String bars(String title, String yLabel, List<String> labels, List<String> seriesNames, List<double[]> values) {
        double yMax = 0;
        for (double[] v : values) {
            for (double x : v) {
                if (Double.isFinite(x)) {
                    yMax = Math.max(yMax, x);
                }
            }
        }
        yMax = yMax <= 0 ? 1 : yMax * 1.05;
        StringBuilder svg = open(title);
        axes(svg, 0, labels.size(), 0, yMax, "node", yLabel);
        double group = (W - LEFT - RIGHT) / (double) Math.max(1, labels.size());
        double bar = group * 0.8 / Math.max(1, seriesNames.size());
        for (int s = 0; s < seriesNames.size(); s++) {
            double[] v = values.get(s);
            for (int i = 0; i < labels.size(); i++) {
                if (!Double.isFinite(v[i])) {
                    continue;
                }
                double x = LEFT + i * group + group * 0.1 + s * bar;
                double y = py(v[i], 0, yMax);
                svg.append(String.format(Locale.ROOT,
                        "<rect x='%.1f' y='%.1f' width='%.2f' height='%.1f' fill='%s'><title>%s %s: %.3f</title></rect>",
                        x, y, Math.max(0.5, bar), H - BOTTOM - y, COLOURS[s % COLOURS.length], escape(labels.get(i)),
                        escape(seriesNames.get(s)), v[i]));
            }
            int ly = TOP + 14 + 16 * s;
            svg.append(String.format(Locale.ROOT,
                    "<rect x='%d' y='%d' width='14' height='10' fill='%s'/><text x='%d' y='%d' font-size='12'>%s</text>",
                    W - RIGHT + 6, ly + 40, COLOURS[s % COLOURS.length], W - RIGHT + 24, ly + 50, escape(seriesNames.get(s))));
        }
        return svg.append("</svg>\n").toString();
    }

    private static StringBuilder open(String title) {
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' viewBox='0 0 %d %d' font-family='sans-serif'>"
                        + "<rect width='100%%' height='100%%' fill='white'/><text x='%d' y='18' font-size='14' font-weight='bold'>%s</text>",
                W, H, W, H, LEFT, escape(title)));
        return svg;
    }

    private static void axes(StringBuilder svg, double xMin, double xMax, double yMin, double yMax, String xLabel, String yLabel) {
        svg.append(String.format(Locale.ROOT,
                "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/><line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>",
                LEFT, H - BOTTOM, W - RIGHT, H - BOTTOM, LEFT, TOP, LEFT, H - BOTTOM));
        for (double t : ticks(yMin, yMax)) {
            double y = py(t, yMin, yMax);
            svg.append(String.format(Locale.ROOT,
                    "<line x1='%d' y1='%.1f' x2='%d' y2='%.1f' stroke='#eee'/><text x='%d' y='%.1f' font-size='11' text-anchor='end'>%s</text>",
                    LEFT, y, W - RIGHT, y, LEFT - 4, y + 4, label(t)));
        }
        for (double t : ticks(xMin, xMax)) {
            double x = px(t, xMin, xMax);
            svg.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' font-size='11' text-anchor='middle'>%s</text>",
                    x, H - BOTTOM + 14, label(t)));
        }
        svg.append(String.format(Locale.ROOT,
                "<text x='%d' y='%d' font-size='12' text-anchor='middle'>%s</text>"
                        + "<text x='14' y='%d' font-size='12' text-anchor='middle' transform='rotate(-90 14 %d)'>%s</text>",
                (LEFT + W - RIGHT) / 2, H - 6, escape(xLabel), (TOP + H - BOTTOM) / 2, (TOP + H - BOTTOM) / 2, escape(yLabel)));
    }

    private static List<Double> ticks(double min, double max) {
        double span = max - min;
        double raw = span / 6;
        double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
        double step = raw / magnitude >= 5 ? 10 * magnitude : raw / magnitude >= 2 ? 5 * magnitude : 2 * magnitude;
        List<Double> ticks = new ArrayList<>();
        for (double t = Math.ceil(min / step) * step; t <= max + 1e-9; t += step) {
            ticks.add(t);
        }
        return ticks;
    }

    private static String label(double t) {
        if (Math.abs(t - Math.rint(t)) < 1e-9) {
            return String.format(Locale.ROOT, "%.0f", t);
        }
        return String.format(Locale.ROOT, "%.2f", t);
    }

    private static double px(double x, double min, double max) {
        return LEFT + (x - min) / (max - min) * (W - LEFT - RIGHT);
    }

    private static double py(double y, double min, double max) {
        return H - BOTTOM - (y - min) / (max - min) * (H - TOP - BOTTOM);
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;");
    }
}
