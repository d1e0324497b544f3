package io.skewguard.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class DashboardCommandTest {

    private record Run(int exitCode, String out, String err) {}

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cmd = new CommandLine(new DashboardCommand(Map.of()));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        return new Run(cmd.execute(args), out.toString(), err.toString());
    }

    @Test
    void aPortOutOfRangeIsRefusedBeforeAnythingStarts() {
        Run r = run("--port", "70000");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("port").contains("65535");
    }

    @Test
    void aClusterIdNoStoreWouldHoldIsRefused() {
        Run r = run("--cluster", "x".repeat(300));
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).startsWith("dashboard: --cluster:");
    }

    @Test
    void helpNamesEverySetting() {
        Run r = run("--help");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).contains("--bootstrap-servers", "--cluster", "--port", "--host", "--history", "--max-decisions");
    }
}
