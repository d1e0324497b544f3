package io.skewguard.runtime.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The lifecycle with fake services; a signal is simulated through {@link ProcessLifecycle#stop()}, its programmatic twin. */
class ProcessLifecycleTest {

    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private final List<String> journal = new CopyOnWriteArrayList<>();

    private ProcessLifecycle.Builder embedded(Service... services) {
        ProcessLifecycle.Builder builder = ProcessLifecycle.builder("test-process").shutdownHook(false);
        for (Service s : services) {
            builder.service(s);
        }
        return builder;
    }

    private static int exitCode(CompletableFuture<Integer> exit) throws Exception {
        return exit.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void startsTheServicesInOrderAndAfterAStopClosesThemInReverseWithExitCodeZero() throws Exception {
        ProcessLifecycle lifecycle = embedded(new FakeService("a", journal), new FakeService("b", journal),
                new FakeService("c", journal)).build();

        CompletableFuture<Integer> exit = lifecycle.runInBackground();
        assertThat(lifecycle.awaitReady(DEADLINE)).isTrue();
        assertThat(journal).containsExactly("start a", "start b", "start c");
        lifecycle.stop();

        assertThat(exitCode(exit)).isEqualTo(ExitCode.OK);
        assertThat(journal).containsExactly("start a", "start b", "start c", "close c", "close b", "close a");
    }

    @Test
    void isReadyOnlyOnceEveryServiceIsReady() throws Exception {
        FakeService slow = new FakeService("slow", journal).notReady();
        ProcessLifecycle lifecycle = embedded(new FakeService("quick", journal), slow).build();

        CompletableFuture<Integer> exit = lifecycle.runInBackground();
        assertThat(lifecycle.awaitReady(Duration.ofMillis(300))).isFalse();
        assertThat(lifecycle.ready()).isFalse();
        assertThat(lifecycle.live()).isTrue();

        slow.becomeReady();
        assertThat(lifecycle.awaitReady(DEADLINE)).isTrue();
        assertThat(lifecycle.ready()).isTrue();

        lifecycle.stop();
        assertThat(exitCode(exit)).isEqualTo(ExitCode.OK);
        assertThat(lifecycle.ready()).isFalse();
    }

    @Test
    void aServiceFailingToStartClosesWhatStartedInReverseOrderAndExitsOne() throws Exception {
        FakeService later = new FakeService("later", journal);
        ProcessLifecycle lifecycle = embedded(new FakeService("first", journal),
                new FakeService("broken", journal).failingToStart(new IllegalStateException("cannot bind")),
                later).build();

        CompletableFuture<Integer> exit = lifecycle.runInBackground();

        assertThat(exitCode(exit)).isEqualTo(ExitCode.FAILED);
        // the broken one is closed too: it may have opened half of what it needs
        assertThat(journal).containsExactly("start first", "start broken", "close broken", "close first");
        assertThat(later.closes()).isZero();
        assertThat(lifecycle.awaitReady(DEADLINE)).isFalse();
        assertThat(lifecycle.live()).isFalse();
    }

    @Test
    void aServiceThatRefusesToStartEndsTheProcessWithExitCodeOneLikeAnyStartFailure() throws Exception {
        ProcessLifecycle lifecycle = embedded(new FakeService("first", journal),
                new FakeService("topics", journal).failingToStart(new StartRefused("missing topic t; run: make-topics")),
                new FakeService("later", journal)).build();

        assertThat(exitCode(lifecycle.runInBackground())).isEqualTo(ExitCode.FAILED);
        assertThat(journal).containsExactly("start first", "start topics", "close topics", "close first");
    }

    @Test
    void aServiceFailingWhileRunningStopsTheProcessWithExitCodeOne() throws Exception {
        FakeService worker = new FakeService("worker", journal);
        ProcessLifecycle lifecycle = embedded(new FakeService("first", journal), worker).build();
        CompletableFuture<Integer> exit = lifecycle.runInBackground();
        assertThat(lifecycle.awaitReady(DEADLINE)).isTrue();

        worker.fail(new IllegalStateException("poison record"));

        assertThat(exitCode(exit)).isEqualTo(ExitCode.FAILED);
        assertThat(journal).containsExactly("start first", "start worker", "close worker", "close first");
        assertThat(lifecycle.live()).isFalse();
    }

    @Test
    void aStopRequestedWhileStartingStartsNothingMoreClosesWhatStartedAndExitsZero() throws Exception {
        AtomicReference<ProcessLifecycle> self = new AtomicReference<>();
        FakeService never = new FakeService("never", journal);
        ProcessLifecycle lifecycle = embedded(new FakeService("first", journal).onStart(s -> self.get().stop()), never)
                .build();
        self.set(lifecycle);

        CompletableFuture<Integer> exit = lifecycle.runInBackground();

        assertThat(exitCode(exit)).isEqualTo(ExitCode.OK);
        assertThat(journal).containsExactly("start first", "close first");
        assertThat(never.closes()).isZero();
    }

    @Test
    void aStopRequestedBeforeTheRunStartsNothing() throws Exception {
        ProcessLifecycle lifecycle = embedded(new FakeService("first", journal)).build();
        lifecycle.stop();

        assertThat(exitCode(lifecycle.runInBackground())).isEqualTo(ExitCode.OK);
        assertThat(journal).isEmpty();
    }

    @Test
    void aCloseThatDidNotFinishInTimeExitsOneAfterClosingTheOthers() throws Exception {
        ProcessLifecycle lifecycle = embedded(new FakeService("first", journal),
                new FakeService("late", journal).closingLate()).build();
        CompletableFuture<Integer> exit = lifecycle.runInBackground();
        assertThat(lifecycle.awaitReady(DEADLINE)).isTrue();

        lifecycle.stop();

        assertThat(exitCode(exit)).isEqualTo(ExitCode.FAILED);
        assertThat(journal).containsExactly("start first", "start late", "close late", "close first");
    }

    @Test
    void aCloseThatThrowsStillClosesTheOthersAndExitsOne() throws Exception {
        ProcessLifecycle lifecycle = embedded(new FakeService("first", journal),
                new FakeService("throwing", journal).closingWith(new IllegalStateException("flush failed"))).build();
        CompletableFuture<Integer> exit = lifecycle.runInBackground();
        assertThat(lifecycle.awaitReady(DEADLINE)).isTrue();

        lifecycle.stop();

        assertThat(exitCode(exit)).isEqualTo(ExitCode.FAILED);
        assertThat(journal).containsExactly("start first", "start throwing", "close throwing", "close first");
    }

    @Test
    void aCloseHangingPastTheDeadlineIsAbandonedAndTheProcessExitsOne() throws Exception {
        CountDownLatch never = new CountDownLatch(1);
        try {
            ProcessLifecycle lifecycle = embedded(new FakeService("hanging", journal).closingOnlyAfter(never))
                    .closeTimeout(Duration.ofMillis(200)).build();
            CompletableFuture<Integer> exit = lifecycle.runInBackground();
            assertThat(lifecycle.awaitReady(DEADLINE)).isTrue();

            lifecycle.stop();

            assertThat(exitCode(exit)).isEqualTo(ExitCode.FAILED);
            assertThat(never.getCount()).as("the close is still blocked").isOne();
        } finally {
            never.countDown();
        }
    }

    @Test
    void eachCloseIsGivenWhatIsLeftOfTheCloseBudget() throws Exception {
        FakeService first = new FakeService("first", journal);
        FakeService second = new FakeService("second", journal);
        ProcessLifecycle lifecycle = embedded(first, second).closeTimeout(Duration.ofSeconds(20)).build();
        CompletableFuture<Integer> exit = lifecycle.runInBackground();
        assertThat(lifecycle.awaitReady(DEADLINE)).isTrue();

        lifecycle.stop();

        assertThat(exitCode(exit)).isEqualTo(ExitCode.OK);
        assertThat(second.closeTimeoutGiven()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(20));
        assertThat(first.closeTimeoutGiven()).isPositive().isLessThanOrEqualTo(second.closeTimeoutGiven());
    }

    @Test
    void interruptingTheThreadThatRunsItIsAStopRequest() throws Exception {
        ProcessLifecycle lifecycle = embedded(new FakeService("first", journal)).build();
        CompletableFuture<Integer> exit = new CompletableFuture<>();
        AtomicReference<Boolean> stillInterrupted = new AtomicReference<>();
        Thread runner = new Thread(() -> {
            exit.complete(lifecycle.run());
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        runner.start();
        assertThat(lifecycle.awaitReady(DEADLINE)).isTrue();

        runner.interrupt();

        assertThat(exitCode(exit)).isEqualTo(ExitCode.OK);
        runner.join(DEADLINE.toMillis());
        assertThat(journal).containsExactly("start first", "close first");
        assertThat(stillInterrupted.get()).as("the interrupt is kept for the caller").isTrue();
    }

    @Test
    void runsOnlyOnce() throws Exception {
        ProcessLifecycle lifecycle = embedded(new FakeService("first", journal)).build();
        lifecycle.stop();
        assertThat(exitCode(lifecycle.runInBackground())).isEqualTo(ExitCode.OK);

        assertThatThrownBy(lifecycle::run).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already been run");
    }

    @Test
    void servesReadinessAndLivenessWhileItRuns() throws Exception {
        int port = freePort();
        FakeService worker = new FakeService("worker", journal).notReady();
        ProcessLifecycle lifecycle = embedded(worker).healthEndpoint("127.0.0.1", port).build();
        CompletableFuture<Integer> exit = lifecycle.runInBackground();
        HttpClient http = HttpClient.newHttpClient();
        URI ready = URI.create("http://127.0.0.1:" + port + "/ready");
        URI live = URI.create("http://127.0.0.1:" + port + "/live");

        assertThat(statusOnceListening(http, ready)).isEqualTo(503);
        worker.becomeReady();
        assertThat(lifecycle.awaitReady(DEADLINE)).isTrue();
        assertThat(status(http, ready)).isEqualTo(200);
        assertThat(status(http, live)).isEqualTo(200);

        worker.fail(new IllegalStateException("broken"));
        assertThat(exitCode(exit)).isEqualTo(ExitCode.FAILED);
        assertThatThrownBy(() -> status(http, live)).isInstanceOf(ConnectException.class);
    }

    @Test
    void aHealthPortThatIsTakenFailsTheProcessBeforeAnyServiceStarts() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            ProcessLifecycle lifecycle = embedded(new FakeService("first", journal))
                    .healthEndpoint("127.0.0.1", taken.getLocalPort()).build();

            assertThat(exitCode(lifecycle.runInBackground())).isEqualTo(ExitCode.FAILED);
            assertThat(journal).isEmpty();
        }
    }

    @Test
    void rejectsAProcessWithoutServicesOrWithTwoServicesOfOneName() {
        assertThatThrownBy(() -> ProcessLifecycle.builder("p").build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one service");
        assertThatThrownBy(() -> ProcessLifecycle.builder("p").service(new FakeService("x", journal))
                .service(new FakeService("x", journal)).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two services are called x");
        assertThatThrownBy(() -> ProcessLifecycle.builder(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
    }

    @Test
    void rejectsANonPositiveCloseTimeoutAndAPortOutOfRange() {
        ProcessLifecycle.Builder builder = ProcessLifecycle.builder("p");
        assertThatThrownBy(() -> builder.closeTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("close timeout");
        assertThatThrownBy(() -> builder.healthEndpoint("127.0.0.1", 70_000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0..65535");
        assertThatThrownBy(() -> builder.healthEndpoint("", 8080))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("host");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    private static int status(HttpClient http, URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }

    /** The endpoint opens on the lifecycle's thread: retry until it listens. */
    private static int statusOnceListening(HttpClient http, URI uri) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (true) {
            try {
                return status(http, uri);
            } catch (ConnectException notYet) {
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                Thread.sleep(20);
            }
        }
    }
}
