package io.skewguard.sim.placement;

import java.util.List;
import java.util.Locale;

/** Renders the placement simulation's rows as an aligned text table for people. */
final class PlacementTable {

    private PlacementTable() {}

    static String render(List<PlacementSimulation.Row> rows, int keys, long seed) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "Placement of %,d keys (seed %d): keys moved by a change, and spread after it%n%n", keys, seed));
        String header = String.format(Locale.ROOT, "%-26s  %-6s  %9s  %10s  %12s  %12s  %8s%n",
                "scheme", "change", "moved", "fair share", "max keys", "min keys", "max/min");
        out.append(header);
        out.append("-".repeat(header.length() - 1)).append(System.lineSeparator());
        for (PlacementSimulation.Row row : rows) {
            out.append(String.format(Locale.ROOT, "%-26s  %-6s  %8.1f%%  %9.1f%%  %,12d  %,12d  %8s%n",
                    row.scheme(), row.change().label(),
                    100 * row.movedFraction(), 100 * row.change().fairShare(),
                    row.maxKeys(), row.minKeys(),
                    Double.isInfinite(row.maxOverMin()) ? "inf" : String.format(Locale.ROOT, "%.2f", row.maxOverMin())));
        }
        out.append(System.lineSeparator())
                .append("moved: keys whose node changed. fair share: 1/6 of the keys for a joining node, 1/5 for a leaving one;")
                .append(System.lineSeparator())
                .append("a ring that moves less than that has given the new node less than its share (see max/min).")
                .append(System.lineSeparator())
                .append("mod N remaps almost everything; a ring moves about the fair share; virtual nodes even out the spread.")
                .append(System.lineSeparator());
        return out.toString();
    }
}
