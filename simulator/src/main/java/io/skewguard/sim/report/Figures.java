package io.skewguard.sim.report;

import java.util.Locale;

/** How figures are written for people: sizes in decimal units, ratios and percentages. */
final class Figures {

    private Figures() {}

    static String bytes(double b) {
        String[] units = {"B", "KB", "MB", "GB", "TB", "PB", "EB"};
        double v = b;
        int u = 0;
        while (Math.abs(v) >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return String.format(Locale.ROOT, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
    }

    static String bytes(Double b) {
        return b == null ? "—" : bytes(b.doubleValue());
    }

    static String ratio(double r) {
        return String.format(Locale.ROOT, "%.3f", r);
    }

    static String ratio(Double r) {
        return r == null ? "—" : ratio(r.doubleValue());
    }

    static String percent(double r) {
        return String.format(Locale.ROOT, "%.1f %%", r * 100);
    }

    static String number(Double v, String format) {
        return v == null ? "—" : String.format(Locale.ROOT, format, v);
    }
}
