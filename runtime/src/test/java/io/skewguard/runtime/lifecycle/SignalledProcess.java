package io.skewguard.runtime.lifecycle;

import java.time.Duration;
import java.util.Optional;

/**
 * A process for {@link ProcessLifecycleSignalTest}, run in a child JVM: one service that prints
 * what happens to it on stdout. Argument {@code until-signal} (default): runs until SIGTERM;
 * {@code fail-when-ready}: its service fails once the process is ready, so the process ends by itself.
 */
public final class SignalledProcess {

    private SignalledProcess() {
    }

    public static void main(String[] args) {
        boolean failWhenReady = args.length > 0 && args[0].equals("fail-when-ready");
        Echo echo = new Echo();
        ProcessLifecycle lifecycle = ProcessLifecycle.builder("signalled").service(echo)
                .closeTimeout(Duration.ofSeconds(20)).build();
        if (failWhenReady) {
            Thread failer = new Thread(() -> {
                try {
                    if (lifecycle.awaitReady(Duration.ofSeconds(60))) {
                        echo.failure = new IllegalStateException("echo broke");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "failer");
            failer.setDaemon(true);
            failer.start();
        }
        System.exit(lifecycle.run());
    }

    private static final class Echo implements Service {
        private volatile boolean started;
        private volatile Throwable failure;

        @Override
        public String name() {
            return "echo";
        }

        @Override
        public void start() {
            started = true;
            print("echo service started");
        }

        @Override
        public boolean ready() {
            return started;
        }

        @Override
        public Optional<Throwable> failure() {
            return Optional.ofNullable(failure);
        }

        @Override
        public boolean close(Duration timeout) {
            print("echo service closed");
            return true;
        }

        private static void print(String line) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
