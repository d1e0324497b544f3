package io.skewguard.detector.replay;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.skewguard.detector.DetectorApp;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ReplayCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    /** Two nodes, all writes on n2 for two minutes, one malformed line, one invalid event. */
    private Path scenario() throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("# a skewed two-node cluster");
        lines.add("{\"type\":\"capacity\",\"cluster\":\"c1\",\"node\":\"n1\",\"used\":500,\"total\":1000,\"rack\":\"r1\",\"time\":" + T0 + "}");
        lines.add("{\"type\":\"capacity\",\"cluster\":\"c1\",\"node\":\"n2\",\"used\":100,\"total\":1000,\"shards\":[{\"slot\":12,\"used\":100}],\"time\":" + T0 + "}");
        lines.add("{\"type\":\"write\",\"cluster\":\"c1\",\"node\":\"n2\",\"slot\":12,\"bytes\":oops}");
        lines.add("{\"type\":\"write\",\"cluster\":\"c1\",\"node\":\"n2\",\"slot\":12,\"bytes\":-1,\"ops\":1,\"time\":" + T0 + "}");
        for (long t = T0; t <= T0 + 120_000; t += 5_000) {
            lines.add("{\"type\":\"write\",\"cluster\":\"c1\",\"node\":\"n2\",\"slot\":12,\"bytes\":4096,\"ops\":1,\"time\":" + t + "}");
        }
        Path file = dir.resolve("events.jsonl");
        Files.write(file, lines);
        return file;
    }

    private record Run(int exit, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new DetectorApp());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    private static List<JsonNode> parse(String text) throws IOException {
        List<JsonNode> nodes = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isBlank()) {
                nodes.add(JSON.readTree(line));
            }
        }
        return nodes;
    }

    @Test
    void replayWritesReportAndAlertLinesAndReportsBadLinesOnStderr() throws IOException {
        Run r = run("replay", "--cooldown", "20s", "--input", scenario().toString());

        assertThat(r.exit()).isZero();
        assertThat(r.err()).contains("line 4: skipped: not JSON");
        assertThat(r.err()).contains("line 5: dead letter: invalid: negative bytes -1");
        List<JsonNode> lines = parse(r.out());
        assertThat(lines).isNotEmpty().allSatisfy(n -> assertThat(n.get("type").asText()).isIn("report", "alert"));

        List<JsonNode> reports = lines.stream().filter(n -> n.get("type").asText().equals("report")).toList();
        JsonNode first = reports.get(0);
        assertThat(first.get("cluster").asText()).isEqualTo("c1");
        assertThat(first.get("windowEnd").asLong()).isEqualTo(T0 + 10_000);
        assertThat(first.get("nodes").asInt()).isEqualTo(2);
        assertThat(first.get("heatGini").asDouble()).isEqualTo(0.5); // all heat on one of two nodes
        assertThat(first.get("capacityCv").asDouble()).isBetween(0.66, 0.67); // 0.5 and 0.1
        assertThat(first.get("hottestSlots").get(0).get("slot").asInt()).isEqualTo(12);

        List<JsonNode> alerts = lines.stream().filter(n -> n.get("type").asText().equals("alert")).toList();
        assertThat(alerts).extracting(n -> n.get("kind").asText() + ":" + n.get("state").asText())
                .containsExactly("HEAT:OBSERVING", "CAPACITY:OBSERVING", "HEAT:CONFIRMED", "CAPACITY:CONFIRMED");
        JsonNode confirmed = alerts.get(2);
        assertThat(confirmed.get("time").asLong()).isEqualTo(T0 + 30_000);
        assertThat(confirmed.get("value").asDouble()).isEqualTo(0.5);
        assertThat(confirmed.get("cluster").asText()).isEqualTo("c1");
        // an alert line comes before the report of its tick
        int confirmedAt = lines.indexOf(confirmed);
        assertThat(lines.get(confirmedAt + 2).get("type").asText()).isEqualTo("report");
        assertThat(lines.get(confirmedAt + 2).get("heatState").asText()).isEqualTo("CONFIRMED");
    }

    @Test
    void replayWritesToTheOutputFileWhenGiven() throws IOException {
        Path out = dir.resolve("out.jsonl");
        Run r = run("replay", "--input", scenario().toString(), "--output", out.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.out()).isEmpty();
        List<JsonNode> lines = parse(Files.readString(out));
        assertThat(lines).isNotEmpty();
        assertThat(lines.get(lines.size() - 1).get("windowEnd").asLong()).isEqualTo(T0 + 90_000); // 120 s - 30 s grace
    }

    @Test
    void missingInputFileIsAUsageError() {
        Run r = run("replay", "--input", dir.resolve("nope.jsonl").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("cannot read");
    }

    @Test
    void settingsGivenBeforeReplayAreRefusedNotIgnored() throws IOException {
        Run r = run("--cooldown", "20s", "replay", "--input", scenario().toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--cooldown given before 'replay'; settings go after it");
    }

    @Test
    void aBadSettingOfTheReplayEndsWithExitCode2() throws IOException {
        Run r = run("replay", "--tick", "7s", "--input", scenario().toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("window: 1m (from default) must be a multiple of tick 7s");
    }

    @Test
    void helpDocumentsTheDefaults() {
        Run r = run("replay", "--help");
        assertThat(r.out()).contains("--input", "--window", "Default: 60s", "Default: 0.4", "Default: 5m",
                "SKEWGUARD_DETECTOR_BOOTSTRAP_SERVERS");
    }
}
