package io.skewguard.detector.replay;

import io.skewguard.detector.DetectorApp;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.runtime.settings.SettingsOptions;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.WriteEvent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.apache.avro.specific.SpecificRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code detector replay --input events.jsonl [--output out.jsonl]}: runs the detector's topology
 * through {@link DetectorHarness} (no broker) over a JSON-lines file of events and writes one JSON
 * line per report and per alert ({@link JsonLines}). A malformed line is reported on stderr with
 * its line number and skipped; so is a line the detector sends to its dead-letter topic.
 */
@Command(name = "replay", mixinStandardHelpOptions = true, modelTransformer = DetectorApp.Flags.class,
        description = {
            "Replays a JSON-lines file of write and capacity events through the detector topology "
                    + "(TopologyTestDriver, no broker) and prints one JSON line per report and per alert.",
            "Input lines: {\"type\":\"write\",\"cluster\":\"c1\",\"node\":\"n1\",\"slot\":12,\"bytes\":4096,\"ops\":1,\"time\":1700000000000}",
            "             {\"type\":\"capacity\",\"cluster\":\"c1\",\"node\":\"n1\",\"used\":500,\"total\":1000,\"rack\":\"r1\",\"time\":1700000000000}",
            "Blank lines and lines starting with # are ignored. The detector's settings are given after 'replay', "
                    + "as for the detector itself (detector replay --cooldown 20s --input events.jsonl)."
        })
public final class ReplayCommand implements Callable<Integer> {

    @ParentCommand
    private DetectorApp parent;

    @Spec
    private CommandSpec spec;

    @Option(names = "--input", required = true, paramLabel = "FILE", description = "JSON-lines file of events.")
    private Path input;

    @Option(names = "--output", paramLabel = "FILE", description = "Where to write the report and alert lines (default: stdout).")
    private Path output;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        if (parent != null) {
            CommandSpec parentSpec = spec.parent();
            List<String> before = parentSpec.commandLine().getParseResult().matchedOptions().stream()
                    .map(o -> o.longestName()).toList();
            if (!before.isEmpty()) {
                // they would be read by nobody: say so rather than replay with other settings than asked
                err.println("detector replay: " + String.join(", ", before) + " given before 'replay'; settings go after it "
                        + "(detector replay " + before.get(0) + " ... --input FILE)");
                err.flush();
                return SettingsOptions.BAD_SETTINGS;
            }
        }
        return SettingsOptions.run(spec, DetectorSettings.MODEL, System.getenv(), s -> {
            try {
                return replayFile(DetectorSettings.from(s), err);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    private int replayFile(DetectorSettings settings, PrintWriter err) throws IOException {
        if (!Files.isReadable(input)) {
            err.println("detector replay: cannot read " + input);
            return 2;
        }
        try (BufferedReader in = Files.newBufferedReader(input, StandardCharsets.UTF_8);
                Writer sink = output == null ? null : Files.newBufferedWriter(output, StandardCharsets.UTF_8)) {
            PrintWriter out = sink == null ? spec.commandLine().getOut() : new PrintWriter(sink);
            Summary s = replay(settings, in, out, err);
            out.flush();
            err.printf("detector replay: %d events, %d malformed lines, %d dead letters, %d reports, %d alerts%n",
                    s.events(), s.malformed(), s.deadLetters(), s.reports(), s.alerts());
            err.flush();
        }
        return 0;
    }

    /** Counts of one replay. */
    public record Summary(int events, int malformed, int deadLetters, int reports, int alerts) {}

    /** Replays {@code in} and writes the report and alert lines to {@code out}, problems to {@code err}. */
    public static Summary replay(DetectorSettings settings, BufferedReader in, PrintWriter out, PrintWriter err)
            throws IOException {
        int events = 0;
        int malformed = 0;
        int reports = 0;
        int alerts = 0;
        int dead = 0;
        try (DetectorHarness h = new DetectorHarness(settings)) {
            String line;
            int number = 0;
            while ((line = in.readLine()) != null) {
                number++;
                String t = line.strip();
                if (t.isEmpty() || t.startsWith("#")) {
                    continue;
                }
                SpecificRecord event;
                try {
                    event = JsonLines.parse(t);
                } catch (IllegalArgumentException e) {
                    malformed++;
                    err.println("line " + number + ": skipped: " + e.getMessage());
                    continue;
                }
                events++;
                if (event instanceof WriteEvent w) {
                    h.send(w);
                } else {
                    h.send((CapacityEvent) event);
                }
                List<DetectorHarness.DeadLetterRecord> letters = h.deadLetters();
                for (; dead < letters.size(); dead++) {
                    err.println("line " + number + ": dead letter: " + letters.get(dead).letter().reason());
                }
                for (DetectorHarness.Output o : h.takeOutputs()) {
                    if (o instanceof DetectorHarness.ReportOutput r) {
                        out.println(JsonLines.report(r.report()));
                        reports++;
                    } else {
                        out.println(JsonLines.alert(((DetectorHarness.AlertOutput) o).alert()));
                        alerts++;
                    }
                }
            }
        }
        return new Summary(events, malformed, dead, reports, alerts);
    }
}
