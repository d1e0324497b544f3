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

    /** The application: prints a counter every 10 ms. */
    public static final class Counter {
        public static void main(String[] args) throws InterruptedException {
            for (long i = 0; ; i++) {
                System.out.println("tick " + i);
                System.out.flush();
                Thread.sleep(10);
            }
        }
    }

    @Test
    void aFrozenProcessDoesNothingUntilThawedAndCanBeKilledWhileFrozen(@TempDir Path dir) throws Exception {
        try (AppProcess app = AppProcess.start(Counter.class, dir.resolve("out.log"), java.util.List.of("-Xmx32m"))) {
            app.await("it counts", () -> app.output().contains("tick 5"), WAIT);

            app.freeze();
            String frozen = app.output();
            Thread.sleep(300);
            assertThat(app.output()).as("output while frozen").isEqualTo(frozen);
            assertThat(app.isAlive()).isTrue();

            app.thaw();
            app.await("it counts on", () -> app.output().length() > frozen.length(), WAIT);

            app.freeze();
            assertThat(app.kill(WAIT)).as("exit code of a frozen JVM ended by SIGKILL").isEqualTo(128 + 9);
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
