package io.skewguard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An application as a JVM of its own: waiting on what it shows, SIGTERM and SIGKILL. */
class AppProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    /** The application: says it started, then runs until stopped; a shutdown hook says so. */
    public static final class Sleeper {
        public static void main(String[] args) throws InterruptedException {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> System.out.println("shutdown hook ran")));
            System.out.println("started");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** The application: ends at once with exit code 3. */
    public static final class Quitter {
        public static void main(String[] args) {
            System.out.println("giving up");
            System.exit(3);
        }
    }

    @Test
    void awaitReturnsOnceTheConditionHoldsAndSigtermRunsTheShutdownHooks(@TempDir Path dir) throws Exception {
        try (AppProcess app = AppProcess.start(Sleeper.class, dir.resolve("out.log"))) {
            app.await("it started", () -> app.output().contains("started"), WAIT);

            assertThat(app.stop(WAIT)).as("exit code of a JVM ended by SIGTERM").isEqualTo(128 + 15);
            assertThat(app.output()).contains("shutdown hook ran");
        }
    }

    @Test
    void sigkillEndsTheProcessWithoutRunningItsShutdownHooks(@TempDir Path dir) throws Exception {
        try (AppProcess app = AppProcess.start(Sleeper.class, dir.resolve("out.log"))) {
            app.await("it started", () -> app.output().contains("started"), WAIT);

            assertThat(app.kill(WAIT)).isEqualTo(128 + 9);
            assertThat(app.isAlive()).isFalse();
            assertThat(app.output()).doesNotContain("shutdown hook ran");
        }
    }

    @Test
    void awaitFailsNamingTheConditionTheExitCodeAndTheOutputWhenTheProcessEndsFirst(@TempDir Path dir) {
        try (AppProcess app = AppProcess.start(Quitter.class, dir.resolve("out.log"))) {
            assertThatThrownBy(() -> app.await("it says hello", () -> app.output().contains("hello"), WAIT))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("exit code 3 before it says hello")
                    .hasMessageContaining("giving up");
        }
    }
}
