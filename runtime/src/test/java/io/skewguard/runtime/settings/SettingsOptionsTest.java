package io.skewguard.runtime.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

class SettingsOptionsTest {

    static final AtomicReference<Settings> RAN_WITH = new AtomicReference<>();
    static Map<String, String> environment = Map.of();

    @Command(name = "sample", mixinStandardHelpOptions = true, modelTransformer = SampleApp.Flags.class)
    static final class SampleApp implements Callable<Integer> {
        public static final class Flags extends SettingsOptions {
            public Flags() {
                super(SettingsModelTest.MODEL);
            }
        }

        @Spec
        CommandSpec spec;

        @Override
        public Integer call() {
            return SettingsOptions.run(spec, SettingsModelTest.MODEL, environment, s -> {
                RAN_WITH.set(s);
                return 0;
            });
        }
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        RAN_WITH.set(null);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new SampleApp());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void helpListsEverySettingWithItsDefaultAndTheLayers() {
        Run r = run("--help");
        assertThat(r.exit()).isZero();
        String help = r.out().replaceAll("\\s+", " ");
        assertThat(help).contains("--window=DURATION").contains("Default: 60s").contains("--bootstrap-servers=TEXT")
                .contains("--heat-threshold=X").contains("Must be from 0 to 1").contains("--config=FILE")
                .contains("--set=KEY=VALUE").contains("--print-config").contains("SKEWGUARD_SAMPLE_BOOTSTRAP_SERVERS")
                .contains("SKEWGUARD_SAMPLE_SECURITY_PROTOCOL");
    }

    @Test
    void fileEnvironmentFlagsAndSetAreLayered(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sample.properties");
        Files.writeString(file, "window=30s\nsecurity.protocol=SASL_SSL\nheat-threshold=0.3\n");
        environment = Map.of("SKEWGUARD_SAMPLE_HEAT_THRESHOLD", "0.2");
        try {
            Run r = run("--config", file.toString(), "--window", "10s", "--set", "linger.ms=7");
            assertThat(r.exit()).as(r.err()).isZero();
            Settings s = RAN_WITH.get();
            assertThat(s.duration("window")).hasSeconds(10);
            assertThat(s.number("heat-threshold")).isEqualTo(0.2);
            assertThat(s.kafkaKeys()).containsEntry("security.protocol", "SASL_SSL").containsEntry("linger.ms", "7");
            assertThat(s.origin("linger.ms")).isEqualTo("flag --set linger.ms");
        } finally {
            environment = Map.of();
        }
    }

    @Test
    void aBadSettingIsOneLineAndExitCodeTwo() {
        Run r = run("--window", "1000");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).startsWith("sample: window: '1000' has no unit").doesNotContain("\n")
                .doesNotContain("Exception");
        assertThat(RAN_WITH.get()).isNull();
    }

    @Test
    void aMissingConfigFileIsABadSetting(@TempDir Path dir) {
        Run r = run("--config", dir.resolve("nope.properties").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("does not exist");
    }

    @Test
    void printConfigShowsOriginsHidesSecretsAndDoesNotRun() {
        Run r = run("--print-config", "--set", "sasl.jaas.config=secret-stuff", "--heat-threshold", "0.25");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("heat-threshold").contains("0.25  (flag --heat-threshold)")
                .contains("sasl.jaas.config").contains("[hidden]").doesNotContain("secret-stuff");
        assertThat(RAN_WITH.get()).isNull();
    }

    @Test
    void setWithoutEqualsIsABadSetting() {
        Run r = run("--set", "linger.ms");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("expected KEY=VALUE");
    }
}
