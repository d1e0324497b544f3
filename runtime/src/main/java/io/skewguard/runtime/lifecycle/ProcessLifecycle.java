package io.skewguard.runtime.lifecycle;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a SkewGuard process made of {@link Service}s, from start to exit code:
 *
 * <ol>
 *   <li>opens the {@link HealthEndpoint} if one is configured (a port that cannot be bound fails the
 *       process before anything starts);</li>
 *   <li>starts the services in order; if one fails to start, what was started (that one included,
 *       it may hold half of what it opened) is closed in reverse order and the exit code is
 *       {@link ExitCode#FAILED};</li>
 *   <li>logs one {@code "<process> ready"} line once every service is ready;</li>
 *   <li>waits for a stop request (SIGTERM or SIGINT through a JVM shutdown hook, or
 *       {@link #stop()}) or a service's {@link Service#failure()};</li>
 *   <li>closes every started service in reverse order, all within {@code closeTimeout};</li>
 *   <li>returns {@link ExitCode#OK} after a requested stop that closed everything in time,
 *       {@link ExitCode#FAILED} after a failure or a close that failed or overran.</li>
 * </ol>
 *
 * <p>The shutdown hook (on by default; off for embedders, see {@link Builder#shutdownHook(boolean)})
 * requests the stop, waits until the close has finished and then ends the JVM with the exit code
 * above: without that, a SIGTERM'd JVM would exit as soon as its hooks return, before the services
 * are closed, and always with status 143. It waits at most {@code closeTimeout} plus two seconds.
 * When the process ends by itself (a service failed), {@link #run()} removes the hook before it
 * returns, so the caller's {@code System.exit} does not wait for anything.
 *
 * <p>Logging backends with a shutdown hook of their own (Log4j 2's) may stop logging while the
 * services still close; processes disable it so that the close is logged.
 */
public final class ProcessLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(ProcessLifecycle.class);

    /** The close budget unless told otherwise. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);

    /**
     * How long after the close deadline the lifecycle still waits for a service's close to return:
     * a service that honours its timeout returns at the deadline, not before, and should not be
     * reported as overrunning because of scheduling noise.
     */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(1);

    /** How often the services' failure and readiness are checked; a stop request is seen at once. */
    static final Duration WATCH_INTERVAL = Duration.ofMillis(100);

    private enum Phase { NEW, STARTING, RUNNING, CLOSING, ENDED }

    private enum Outcome { STOPPED, FAILED }

    private final String process;
    private final List<Service> services;
    private final Duration closeTimeout;
    private final boolean shutdownHook;
    private final String healthHost;
    private final int healthPort;

    private final AtomicBoolean claimed = new AtomicBoolean();
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final List<Service> started = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private boolean readyReached;
    private boolean ended;
    private volatile Phase phase = Phase.NEW;
    /** The service whose {@code start()} runs now, told when a stop is requested meanwhile. */
    private volatile Service starting;
    private volatile boolean failed;

    private ProcessLifecycle(Builder b) {
        this.process = b.process;
        this.services = List.copyOf(b.services);
        this.closeTimeout = b.closeTimeout;
        this.shutdownHook = b.shutdownHook;
        this.healthHost = b.healthHost;
        this.healthPort = b.healthPort;
    }

    /** A lifecycle for the process called {@code process} (its name in every log line). */
    public static Builder builder(String process) {
        return new Builder(process);
    }

    /**
     * Runs the process on the calling thread until it has stopped and every service is closed;
     * returns the {@link ExitCode}. For a {@code main}: {@code System.exit(lifecycle.run())}.
     *
     * @throws IllegalStateException if this lifecycle has already been run
     */
    public int run() {
        claim();
        return execute();
    }

    /**
     * Runs the process on a thread of its own, for embedders (the demo, tests): wait for it with
     * {@link #awaitReady(Duration)}, end it with {@link #stop()}; the future completes with the
     * exit code once every service is closed.
     *
     * @throws IllegalStateException if this lifecycle has already been run
     */
    public CompletableFuture<Integer> runInBackground() {
        claim();
        Thread runner = new Thread(this::execute, process + "-lifecycle");
        runner.start();
        return exit.copy();
    }

    /**
     * Asks the process to stop, as SIGTERM does: every started service is closed, the exit code is
     * {@link ExitCode#OK} if that finished in time. Returns at once; safe to call at any time, any
     * number of times.
     */
    public void stop() {
        stopRequested.countDown();
        Service s = starting;
        if (s != null) {
            s.stopStarting();
        }
    }

    /**
     * Waits until every service has been ready at the same time, at most {@code timeout}; false if
     * that did not happen in time or the process ended before.
     */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lock) {
            while (!readyReached && !ended) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return readyReached;
        }
    }

    /** Whether every service is ready now (and the process is neither starting nor stopping). */
    public boolean ready() {
        return phase == Phase.RUNNING && services.stream().allMatch(Service::ready);
    }

    /** False once a service has failed (or failed to start, or to close). */
    public boolean live() {
        return !failed && services.stream().noneMatch(s -> s.failure().isPresent());
    }

    /** The process name. */
    public String process() {
        return process;
    }

    private void claim() {
        if (!claimed.compareAndSet(false, true)) {
            throw new IllegalStateException(process + ": this lifecycle has already been run");
        }
    }

    private int execute() {
        Thread hook = null;
        if (shutdownHook) {
            hook = new Thread(this::onJvmShutdown, process + "-shutdown");
            Runtime.getRuntime().addShutdownHook(hook);
        }
        HealthEndpoint endpoint = null;
        int code = ExitCode.FAILED;
        boolean interrupted = false;
        try {
            Outcome outcome;
            try {
                endpoint = openHealthEndpoint();
                outcome = startServices();
                if (outcome == null) {
                    outcome = watch();
                }
            } catch (InterruptedException e) {
                // the embedder's way of saying stop: treated as a stop request
                interrupted = true;
                outcome = Outcome.STOPPED;
            } catch (IOException e) {
                LOG.error("{}: cannot open the health endpoint on {}:{}: {}", process, healthHost, healthPort,
                        e.toString());
                failed = true;
                outcome = Outcome.FAILED;
            } catch (RuntimeException | Error e) {
                LOG.error("{}: stopping after an unexpected error", process, e);
                failed = true;
                outcome = Outcome.FAILED;
            }
            phase = Phase.CLOSING;
            boolean closedInTime = closeStarted();
            if (!closedInTime) {
                failed = true;
            }
            code = outcome == Outcome.STOPPED && closedInTime ? ExitCode.OK : ExitCode.FAILED;
        } finally {
            if (endpoint != null) {
                endpoint.close();
            }
            LOG.info("{} stopped (exit code {})", process, code);
            synchronized (lock) {
                phase = Phase.ENDED;
                ended = true;
                lock.notifyAll();
            }
            exit.complete(code);
            if (hook != null) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // a signal came: the hook is running and ends the JVM with our exit code
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        return code;
    }

    private HealthEndpoint openHealthEndpoint() throws IOException {
        if (healthPort == 0) {
            return null;
        }
        HealthEndpoint endpoint = HealthEndpoint.start(new InetSocketAddress(healthHost, healthPort), this::ready,
                this::live);
        LOG.info("{}: health endpoint on http://{}:{}/ready, /health and /metrics", process, healthHost,
                endpoint.address().getPort());
        return endpoint;
    }

    /** Null once every service started; otherwise why starting stopped. */
    private Outcome startServices() {
        phase = Phase.STARTING;
        LOG.info("{} starting: {}", process, services.stream().map(Service::name).toList());
        for (Service service : services) {
            if (stopRequested.getCount() == 0) {
                LOG.info("{}: stop requested while starting; {} and later services not started", process,
                        service.name());
                return Outcome.STOPPED;
            }
            started.add(service);
            starting = service;
            try {
                if (stopRequested.getCount() == 0) {
                    service.stopStarting(); // the stop came between the check above and now
                }
                service.start();
            } catch (StartRefused e) {
                LOG.error("{}: {} cannot start: {}", process, service.name(), e.getMessage());
                failed = true;
                return Outcome.FAILED;
            } catch (Exception | Error e) {
                LOG.error("{}: {} failed to start; closing what started", process, service.name(), e);
                failed = true;
                return Outcome.FAILED;
            } finally {
                starting = null;
            }
        }
        phase = Phase.RUNNING;
        return null;
    }

    private Outcome watch() throws InterruptedException {
        boolean readyLogged = false;
        while (true) {
            for (Service service : services) {
                Optional<Throwable> failure = service.failure();
                if (failure.isPresent()) {
                    LOG.error("{}: {} failed; stopping the process", process, service.name(), failure.get());
                    failed = true;
                    return Outcome.FAILED;
                }
            }
            if (stopRequested.getCount() == 0) {
                LOG.info("{}: stop requested; closing", process);
                return Outcome.STOPPED;
            }
            if (!readyLogged && ready()) {
                readyLogged = true;
                LOG.info("{} ready", process);
                synchronized (lock) {
                    readyReached = true;
                    lock.notifyAll();
                }
            }
            stopRequested.await(WATCH_INTERVAL.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    /**
     * Closes the started services in reverse order, on a thread of its own so that a close that
     * hangs cannot hold the process beyond the deadline (the thread is a daemon: the JVM may exit
     * without it). True if every close returned true in time.
     */
    private boolean closeStarted() {
        List<Service> order = new ArrayList<>(started);
        Collections.reverse(order);
        if (order.isEmpty()) {
            return true;
        }
        long deadline = System.nanoTime() + closeTimeout.toNanos();
        AtomicReference<Service> closing = new AtomicReference<>();
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        Thread closer = new Thread(() -> {
            boolean clean = true;
            for (Service service : order) {
                closing.set(service);
                Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                try {
                    if (service.close(left)) {
                        LOG.info("{}: {} closed", process, service.name());
                    } else {
                        LOG.warn("{}: {} did not close within {}", process, service.name(), left);
                        clean = false;
                    }
                } catch (Exception | Error e) {
                    LOG.error("{}: closing {} failed", process, service.name(), e);
                    clean = false;
                }
            }
            done.complete(clean);
        }, process + "-close");
        closer.setDaemon(true);
        closer.start();
        long waitUntil = deadline + CLOSE_GRACE.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return done.get(Math.max(0, waitUntil - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    // the close is not abandoned for an interrupt; the deadline bounds it anyway
                    interrupted = true;
                } catch (TimeoutException e) {
                    LOG.error("{}: {} was still closing {} after the deadline; giving up on it", process,
                            closing.get().name(), closeTimeout);
                    return false;
                } catch (ExecutionException e) {
                    throw new IllegalStateException("the close thread cannot fail", e);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The JVM shutdown hook: stop, wait for the close, end the JVM with the exit code. */
    private void onJvmShutdown() {
        if (!exit.isDone()) {
            LOG.info("{}: shutdown signal received; closing", process);
            stop();
        }
        int code;
        try {
            code = exit.get(closeTimeout.plus(CLOSE_GRACE).plus(CLOSE_GRACE).toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            LOG.error("{}: not closed within {} of the signal; exiting anyway", process, closeTimeout);
            code = ExitCode.FAILED;
        } catch (InterruptedException | ExecutionException e) {
            code = ExitCode.FAILED;
        }
        System.out.flush();
        System.err.flush();
        // halt, not return: a JVM ended by a signal would otherwise exit with 128 + the signal number
        Runtime.getRuntime().halt(code);
    }

    /** The parts and options of a {@link ProcessLifecycle}. */
    public static final class Builder {
        private final String process;
        private final List<Service> services = new ArrayList<>();
        private Duration closeTimeout = DEFAULT_CLOSE_TIMEOUT;
        private boolean shutdownHook = true;
        private String healthHost = HealthEndpoint.DEFAULT_HOST;
        private int healthPort;

        private Builder(String process) {
            if (process == null || process.isBlank()) {
                throw new IllegalArgumentException("a process needs a name");
            }
            this.process = process;
        }

        /** Adds a service; services start in the order added and close in the reverse order. */
        public Builder service(Service service) {
            services.add(Objects.requireNonNull(service, "service"));
            return this;
        }

        /** How long closing every service may take in all; default 30 s. */
        public Builder closeTimeout(Duration closeTimeout) {
            Objects.requireNonNull(closeTimeout, "closeTimeout");
            if (closeTimeout.isZero() || closeTimeout.isNegative()) {
                throw new IllegalArgumentException("close timeout must be positive, was " + closeTimeout);
            }
            this.closeTimeout = closeTimeout;
            return this;
        }

        /**
         * Whether SIGTERM and SIGINT stop the process through a JVM shutdown hook (default true).
         * Embedders turn it off: the hook ends the JVM with this process's exit code.
         */
        public Builder shutdownHook(boolean shutdownHook) {
            this.shutdownHook = shutdownHook;
            return this;
        }

        /**
         * Serve {@code GET /ready} and {@code GET /live} on {@code host:port} while the process runs;
         * port 0 (the default) means no endpoint. Host default {@value HealthEndpoint#DEFAULT_HOST}.
         */
        public Builder healthEndpoint(String host, int port) {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("health endpoint host must not be empty");
            }
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("health endpoint port must be in 0..65535 (0 = off), was " + port);
            }
            this.healthHost = host;
            this.healthPort = port;
            return this;
        }

        /**
         * @throws IllegalArgumentException without any service, or with two services of one name
         */
        public ProcessLifecycle build() {
            if (services.isEmpty()) {
                throw new IllegalArgumentException(process + ": a process needs at least one service");
            }
            Set<String> names = new HashSet<>();
            for (Service service : services) {
                if (!names.add(service.name())) {
                    throw new IllegalArgumentException(process + ": two services are called " + service.name());
                }
            }
            return new ProcessLifecycle(this);
        }
    }
}
