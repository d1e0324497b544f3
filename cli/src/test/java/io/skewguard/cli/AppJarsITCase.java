package io.skewguard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.cli.AppJar.Unwanted;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Each long-running app's self-contained jar ({@code java -jar detector-app/target/skewguard-detector.jar},
 * and the same for the balancer and the migrator) runs its own app, logs to stdout, starts on its own,
 * and ships no test tooling, no Kafka broker and no simulator.
 *
 * <p>Why the jars and not the dependency graph: the jar is what gets deployed, so a scope slip
 * anywhere (an app module, a module it depends on, a transitive dependency) shows up here exactly as it
 * would in production, including in Kafka's own jars, which carry no Maven metadata. The jars are made
 * by the app modules in {@code package}, after this module's unit tests would run if the reactor were
 * ordered differently, so this is an integration test: maven-failsafe runs it in {@code verify} (named
 * {@code *ITCase} so that surefire, which takes {@code *IT}, leaves it alone), and the reactor builds
 * the three app modules, {@code package} included, before this module. {@code mvn -B verify} from the
 * root runs it; alone, {@code mvn -pl cli -am verify}. A missing jar fails with how to build it.
 *
 * <p>kafka-streams-test-utils is allowed in the detector's jar only: its replay harness (main code)
 * runs the topology on {@code TopologyTestDriver}.
 */
class AppJarsITCase {

    enum App {
        DETECTOR("detector-app", "skewguard-detector", "io.skewguard.detector.DetectorApp", "detector",
                EnumSet.of(Unwanted.STREAMS_TEST_UTILS)),
        BALANCER("balancer-app", "skewguard-balancer", "io.skewguard.balancer.BalancerApp", "balancer",
                EnumSet.noneOf(Unwanted.class)),
        MIGRATOR("migrator-app", "skewguard-migrator", "io.skewguard.migrator.MigratorApp", "migrator",
                EnumSet.noneOf(Unwanted.class));

        final String module;
        final String jarName;
        final String mainClass;
        final String command;
        final Set<Unwanted> allowed;

        App(String module, String jarName, String mainClass, String command, Set<Unwanted> allowed) {
            this.module = module;
            this.jarName = jarName;
            this.mainClass = mainClass;
            this.command = command;
            this.allowed = allowed;
        }

        Path jar() {
            // failsafe passes the project's root; run elsewhere (an IDE), the working directory is this module
            Path root = Path.of(System.getProperty("skewguard.root", ".."));
            return root.resolve(module).resolve("target").resolve(jarName + ".jar").toAbsolutePath().normalize();
        }

        AppJar open() throws IOException {
            Path jar = jar();
            assertThat(jar).as("%s's app jar, made by its `package` phase: build it with `mvn -B verify` from the"
                    + " root or `mvn -B -pl cli -am verify`", module).isRegularFile();
            return AppJar.open(jar);
        }
    }

    @ParameterizedTest
    @EnumSource(App.class)
    void runsItsOwnApp(App app) throws IOException {
        AppJar jar = app.open();

        assertThat(jar.mainClass()).as("Main-Class of %s", jar.path()).isEqualTo(app.mainClass);
        assertThat(jar.contains(app.mainClass)).as("%s inside %s", app.mainClass, jar.path()).isTrue();
    }

    @ParameterizedTest
    @EnumSource(App.class)
    void shipsNoTestToolingNoBrokerAndNoSimulator(App app) throws IOException {
        AppJar jar = app.open();

        assertThat(jar.unwantedInside(app.allowed))
                .as("%s ships these; `mvn -pl %s dependency:tree -Dscope=runtime` shows who brings them",
                        jar.path(), app.module)
                .isEmpty();
    }

    @ParameterizedTest
    @EnumSource(App.class)
    void logsToStdout(App app) throws IOException {
        AppJar jar = app.open();

        assertThat(jar.logConfiguration()).as("log4j2.xml at the root of %s", jar.path())
                .hasValueSatisfying(xml -> assertThat(xml).contains("target=\"SYSTEM_OUT\"").doesNotContain("SYSTEM_ERR"));
    }

    @ParameterizedTest
    @EnumSource(App.class)
    void startsOnItsOwnAndPrintsItsUsage(App app) throws Exception {
        Path jar = app.open().path();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-jar", jar.toString(), "--help")
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("java -jar %s --help exited", jar).isTrue();
        assertThat(process.exitValue()).as("exit code of java -jar %s --help; stdout:%n%s", jar, out).isZero();
        assertThat(out).startsWith("Usage: " + app.command + " ");
    }
}
