package io.skewguard.sim.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.skewguard.sim.report.ConsoleTable;
import io.skewguard.sim.report.HtmlReport;
import io.skewguard.sim.report.SummaryJson;
import io.skewguard.sim.scenario.Scenario;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The demo's outputs through the simulator's own writers: the aligned table next to the paper's
 * figures ({@link ConsoleTable}), {@code summary.json} ({@link SummaryJson}) and {@code report.html}
 * ({@link HtmlReport}), with the demo's run as the one policy column; a run that changed the
 * cluster's membership adds a membership section to both files: what the scenario did, and every
 * record of the membership topic with the simulated time it was read, who wrote it and why.
 */
final class DemoReport {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private DemoReport() {}

    /** The membership records, one line each ({@code t+00:21 n11 ACTIVE by migrator: joined: ...}); empty when there are none. */
    static List<String> membershipLines(DemoOutcome outcome) {
        List<String> lines = new ArrayList<>();
        for (LoopObserver.MembershipChange c : outcome.membership()) {
            lines.add(clock(c.simulatedMillis()) + " " + c.node() + " " + c.state() + " by " + c.source()
                    + (c.reason() == null ? "" : ": " + c.reason())
                    + (c.routingEpoch() == null ? "" : " (routing epoch " + c.routingEpoch() + ")"));
        }
        return lines;
    }

    static String table(Scenario scenario, DemoOutcome outcome) {
        return ConsoleTable.render(scenario.name() + " (embedded demo)", scenario.seed(), List.of(outcome.run().summary()));
    }

    /** Writes {@code report.html} and {@code summary.json} into {@code dir}; returns the HTML file. */
    static Path write(Path dir, Scenario scenario, DemoOutcome outcome) throws IOException {
        Files.createDirectories(dir);
        String json = SummaryJson.render(scenario.name(), scenario.seed(), List.of(outcome.run().summary()));
        String html = HtmlReport.render(scenario, List.of(outcome.run()));
        if (!outcome.played().isEmpty() || !outcome.membership().isEmpty()) {
            json = withMembership(json, outcome);
            html = html.replace("</body></html>", membershipHtml(outcome) + "</body></html>");
        }
        Files.writeString(dir.resolve("summary.json"), json, StandardCharsets.UTF_8);
        Path file = dir.resolve("report.html");
        Files.writeString(file, html, StandardCharsets.UTF_8);
        return file;
    }

    /** {@code summary.json} with a {@code membership} object: {@code played} (the scenario's events) and {@code records} (the topic's). */
    private static String withMembership(String json, DemoOutcome outcome) throws IOException {
        ObjectNode root = (ObjectNode) JSON.readTree(json);
        ObjectNode membership = root.putObject("membership");
        ArrayNode played = membership.putArray("played");
        outcome.played().forEach(played::add);
        ArrayNode records = membership.putArray("records");
        for (LoopObserver.MembershipChange c : outcome.membership()) {
            ObjectNode r = records.addObject();
            r.put("simulatedMinutes", Math.round(c.simulatedMillis() / 6_000.0) / 10.0);
            r.put("node", c.node());
            r.put("state", c.state().toString());
            r.put("source", c.source());
            r.put("reason", c.reason());
            if (c.routingEpoch() == null) {
                r.putNull("routingEpoch");
            } else {
                r.put("routingEpoch", c.routingEpoch());
            }
        }
        return JSON.writeValueAsString(root) + "\n";
    }

    private static String membershipHtml(DemoOutcome outcome) {
        StringBuilder b = new StringBuilder("<h2>Membership</h2><p>What the scenario did:</p><ul>");
        outcome.played().forEach(line -> b.append("<li>").append(escape(line)).append("</li>"));
        b.append("</ul><p>The membership topic, as read (simulated time when read):</p>");
        if (outcome.membership().isEmpty()) {
            return b.append("<p>no records</p>").toString();
        }
        b.append("<table><tr><th>time</th><th>node</th><th>state</th><th>written by</th><th>reason</th><th>routing epoch</th></tr>");
        for (LoopObserver.MembershipChange c : outcome.membership()) {
            b.append("<tr><td>").append(clock(c.simulatedMillis())).append("</td><td>").append(escape(c.node()))
                    .append("</td><td>").append(c.state()).append("</td><td>").append(escape(c.source()))
                    .append("</td><td>").append(c.reason() == null ? "" : escape(c.reason()))
                    .append("</td><td>").append(c.routingEpoch() == null ? "" : c.routingEpoch()).append("</td></tr>");
        }
        return b.append("</table>").toString();
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&#39;").replace("\"", "&quot;");
    }

    /** Simulated time since the start as {@code t+hh:mm}. */
    static String clock(long millis) {
        long minutes = millis / 60_000;
        return String.format(Locale.ROOT, "t+%02d:%02d", minutes / 60, minutes % 60);
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
