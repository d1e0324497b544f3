package io.skewguard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./skewguard} launcher of the repository's root, run from a copy of it with stand-ins
 * for {@code mvn} and {@code java} on the path: the stand-in build writes the jar and one dependency,
 * the stand-in JVM prints the class path it was given.
 */
class LauncherTest {

    @TempDir
    Path root;

    @Test
    void aRebuildLeavesNoDependencyOfAnEarlierBuildOnTheClassPath() throws Exception {
        Path launcher = root.resolve("skewguard");
        Files.copy(Path.of("..", "skewguard"), launcher);
        executable(launcher);
        Path lib = Files.createDirectories(root.resolve("cli/target/lib"));
        Files.writeString(lib.resolve("kafka-clients-1.0.0.jar"), "an earlier build's");
        Files.writeString(root.resolve("cli/target/skewguard.jar"), "an earlier build's");
        Path bin = Files.createDirectories(root.resolve("bin"));
        script(bin.resolve("mvn"), "mkdir -p cli/target/lib && echo new > cli/target/lib/kafka-clients-2.0.0.jar"
                + " && echo new > cli/target/skewguard.jar");
        script(bin.resolve("java"), "shift_to_cp() { while [ \"$1\" != -cp ]; do shift; done; echo \"$2\"; }; shift_to_cp \"$@\"");

        ProcessBuilder pb = new ProcessBuilder(launcher.toString(), "--help").directory(root.toFile()).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("SKEWGUARD_REBUILD", "1");
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the launcher ended").isTrue();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("skewguard: build done").contains(root.resolve("cli/target/lib") + "/*");
        try (var files = Files.list(lib)) {
            assertThat(files.map(f -> f.getFileName().toString()).toList()).isEqualTo(List.of("kafka-clients-2.0.0.jar"));
        }
    }

    private static void script(Path file, String body) throws IOException {
        Files.writeString(file, "#!/usr/bin/env bash\n" + body + "\n");
        executable(file);
    }

    private static void executable(Path file) throws IOException {
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
}
