package io.skewguard.sim.demo;

import io.skewguard.sim.report.ConsoleTable;
import io.skewguard.sim.report.HtmlReport;
import io.skewguard.sim.report.SummaryJson;
import io.skewguard.sim.scenario.Scenario;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The demo's outputs through the simulator's own writers: the aligned table next to the paper's
 * figures ({@link ConsoleTable}), {@code summary.json} ({@link SummaryJson}) and {@code report.html}
 * ({@link HtmlReport}), with the demo's run as the one policy column.
 */
final class DemoReport {

    private DemoReport() {}

    static String table(Scenario scenario, DemoOutcome outcome) {
        return ConsoleTable.render(scenario.name() + " (embedded demo)", scenario.seed(), List.of(outcome.run().summary()));
    }

    /** Writes {@code report.html} and {@code summary.json} into {@code dir}; returns the HTML file. */
    static Path write(Path dir, Scenario scenario, DemoOutcome outcome) throws IOException {
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("summary.json"),
                SummaryJson.render(scenario.name(), scenario.seed(), List.of(outcome.run().summary())), StandardCharsets.UTF_8);
        Path html = dir.resolve("report.html");
        Files.writeString(html, HtmlReport.render(scenario, List.of(outcome.run())), StandardCharsets.UTF_8);
        return html;
    }

    /** Bytes in decimal units, as the simulator's table writes them. */
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
}
