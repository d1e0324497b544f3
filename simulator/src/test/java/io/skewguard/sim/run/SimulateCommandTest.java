package io.skewguard.sim.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SimulateCommandTest {

    private static Path small() throws Exception {
        return Paths.get(SimulateCommandTest.class.getClassLoader().getResource("scenarios/small.properties").toURI());
    }

    @Test
    void reportDirGetsTheHtmlAndTheSummaryOfTheChosenPolicy(@TempDir Path dir) throws Exception {
        int exit = new CommandLine(new SimulateCommand()).execute(small().toString(), "--policy", "ceph", "--seed", "9",
                "--report", dir.toString(), "--quiet");
        assertThat(exit).isZero();
        String json = Files.readString(dir.resolve("summary.json"));
        assertThat(json).contains("\"seed\" : 9").contains("\"mode\" : \"model\"").contains("\"ceph\"")
                .doesNotContain("\"skewguard\"");
        assertThat(Files.readString(dir.resolve("report.html"))).contains("<svg");
    }

    @Test
    void unknownPolicyAndUnknownScenarioAreUsageErrors() throws Exception {
        assertThat(new CommandLine(new SimulateCommand()).execute(small().toString(), "--policy", "magic")).isEqualTo(2);
        assertThat(new CommandLine(new SimulateCommand()).execute("no-such-scenario")).isEqualTo(2);
        assertThat(new CommandLine(new SimulateCommand()).execute()).isEqualTo(2);
    }

    @Test
    void anUnknownModeIsAUsageErrorBeforeRunningAnything(@TempDir Path dir) throws Exception {
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            assertThat(new CommandLine(new SimulateCommand()).execute(small().toString(), "--mode", "turbo",
                    "--report", dir.toString())).isEqualTo(2);
        } finally {
            System.setErr(err);
        }
        String said = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(said).contains("unknown mode 'turbo'").doesNotContain(" day "); // refused before any policy ran
        assertThat(dir.resolve("summary.json")).doesNotExist();
    }

    @Test
    void listNamesTheShippedScenarios() {
        assertThat(new CommandLine(new SimulateCommand()).execute("--list")).isZero();
    }
}
