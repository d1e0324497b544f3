package io.skewguard.runtime.lifecycle;

import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.skewguard.runtime.metrics.InputLag;
import io.skewguard.runtime.metrics.ProcessMetrics;
import io.skewguard.runtime.streams.DeadLetterProducer;
import io.skewguard.runtime.streams.DeadLetters;
import io.skewguard.runtime.streams.PoisonPills;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import io.skewguard.schemas.serde.RegistryUnavailableException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka Streams application as a {@link Service}: the one place where SkewGuard creates, starts and
 * closes a {@link KafkaStreams}.
 *
 * <ul>
 *   <li>The state listener and the uncaught-exception handler are set before
 *       {@link KafkaStreams#start()} (Kafka Streams refuses a state listener afterwards).</li>
 *   <li>A stream thread that dies is replaced as the {@link ThreadReplacementPolicy} allows; past
 *       its limit the client shuts down and the service reports the thread's exception as its
 *       {@link #failure()}, so that the process exits and its supervisor restarts it cleanly.</li>
 *   <li>It is {@link #ready()} once Kafka Streams has reached RUNNING, and stays ready through
 *       later rebalances (they are routine, not a reason to fail a health check).</li>
 *   <li>A stream thread that fails because the schema registry cannot answer
 *       ({@link RegistryUnavailableException} anywhere in its causes) is replaced too, but after a
 *       back-off ({@value #OUTAGE_BACKOFF_FIRST_MS} ms doubling up to
 *       {@value #OUTAGE_BACKOFF_MAX_MS} ms, cut short by {@link #close}) and without counting
 *       against the policy: the outage is nobody's input and may last longer than any limit. The
 *       replacement resumes from the last commit, so nothing past the record that waited for the
 *       registry was committed, and nothing is dead-lettered (docs/design.md §5).</li>
 *   <li>The same holds for a thread that fails because the broker did not answer in time (a Kafka
 *       {@link TimeoutException} among its causes, e.g. a task that could make no progress within
 *       {@code task.timeout.ms} while the broker was down): a broker outage is waited out however
 *       long it lasts, it does not use up the replacements meant for failures that repeat on a
 *       record.</li>
 *   <li>ERROR, or a shutdown nobody asked for, is a failure.</li>
 *   <li>{@link #close(Duration)} commits and leaves the consumer group, so that the partitions move
 *       to the other instances at once instead of after the session timeout. Kafka Streams 4.1's
 *       {@code CloseOptions.leaveGroup(true)} does that only for static members (it removes them
 *       through the admin client); its stream threads' consumers are configured not to leave on
 *       close, so a dynamic member would stay until its session expired. The service therefore
 *       sets the main consumer's {@value #LEAVE_GROUP_ON_CLOSE} to true unless the caller set it:
 *       every stream thread's consumer then leaves on close, including that of a thread being
 *       replaced, whose successor no longer waits for the session timeout either.</li>
 * </ul>
 *
 * <p>The {@link KafkaStreams} is created by {@link #start()}, so a service that never starts holds
 * no clients and no state-directory lock. When the properties name a dead-letter topic
 * ({@link PoisonPills#DEAD_LETTER_TOPIC}), start also opens the {@link DeadLetterProducer} that
 * {@link PoisonPills}' exception handlers write poison pills to, and close closes it after Kafka
 * Streams.
 */
public final class StreamsService implements Service {

    private static final Logger LOG = LoggerFactory.getLogger(StreamsService.class);

    /** The consumer's (internal) setting that makes {@code close()} send a LeaveGroup request. */
    static final String LEAVE_GROUP_ON_CLOSE = "internal.leave.group.on.close";

    /** The first wait before a thread stopped by a registry outage is replaced. */
    static final long OUTAGE_BACKOFF_FIRST_MS = 1_000;
    /** The longest wait before a thread stopped by a registry outage is replaced. */
    static final long OUTAGE_BACKOFF_MAX_MS = 30_000;

    private final String name;
    private final Topology topology;
    private final Properties properties;
    private final ThreadReplacementPolicy policy;
    private final Clock clock;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile KafkaStreams streams;
    private volatile DeadLetters deadLetters;
    private DeadLetterProducer deadLetterProducer;
    private KafkaStreamsMetrics streamsMetrics;
    private InputLag inputLag;
    private volatile boolean reachedRunning;
    private volatile boolean closing;
    private final CountDownLatch closeBegun = new CountDownLatch(1);
    /** Consecutive outage replacements; guarded by {@link #outageLock}. */
    private final Object outageLock = new Object();
    private int outageStreak;
    private long lastOutageAtMs;
    private Boolean closed;

    /** A service with {@link ThreadReplacementPolicy#defaults()}. */
    public StreamsService(String name, Topology topology, Properties properties) {
        this(name, topology, properties, ThreadReplacementPolicy.defaults(), Clock.systemUTC());
    }

    public StreamsService(String name, Topology topology, Properties properties, ThreadReplacementPolicy policy,
                          Clock clock) {
        this.name = Objects.requireNonNull(name, "name");
        this.topology = Objects.requireNonNull(topology, "topology");
        this.properties = new Properties();
        this.properties.putAll(Objects.requireNonNull(properties, "properties"));
        if (!this.properties.containsKey(StreamsConfig.consumerPrefix(LEAVE_GROUP_ON_CLOSE))
                && !this.properties.containsKey(StreamsConfig.mainConsumerPrefix(LEAVE_GROUP_ON_CLOSE))) {
            this.properties.put(StreamsConfig.mainConsumerPrefix(LEAVE_GROUP_ON_CLOSE), "true");
        }
        this.policy = Objects.requireNonNull(policy, "policy");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public synchronized void start() {
        if (streams != null) {
            throw new IllegalStateException(name + " was already started");
        }
        if (closed != null) {
            throw new IllegalStateException(name + " was closed before it started");
        }
        Properties config = properties();
        String deadLetterTopic = config.getProperty(PoisonPills.DEAD_LETTER_TOPIC);
        if (config.get(PoisonPills.DEAD_LETTERS) instanceof DeadLetters given) {
            deadLetters = given;
        } else if (deadLetterTopic != null) {
            deadLetterProducer = new DeadLetterProducer(name + "-dead-letters", config);
            deadLetters = new DeadLetters(deadLetterTopic, deadLetterProducer);
            PoisonPills.writingTo(config, deadLetters);
        }
        KafkaStreams s;
        try {
            s = new KafkaStreams(topology, config);
        } catch (RuntimeException e) {
            closeDeadLetterProducer();
            throw e;
        }
        s.setStateListener(this::onStateChange);
        s.setUncaughtExceptionHandler(this::onThreadFailure);
        streams = s;
        streamsMetrics = new KafkaStreamsMetrics(s);
        streamsMetrics.bindTo(ProcessMetrics.registry());
        inputLag = InputLag.of(name, s::metrics);
        s.start();
    }

    private void onStateChange(KafkaStreams.State now, KafkaStreams.State before) {
        LOG.info("{}: Kafka Streams {} -> {}", name, before, now);
        switch (now) {
            case RUNNING -> reachedRunning = true;
            case PENDING_ERROR, ERROR -> fail(new IllegalStateException(name + ": Kafka Streams went to " + now));
            case PENDING_SHUTDOWN, NOT_RUNNING -> {
                if (!closing) {
                    fail(new IllegalStateException(name + ": Kafka Streams shut down by itself (" + now + ")"));
                }
            }
            default -> {
                // CREATED, REBALANCING: nothing to report
            }
        }
    }

    private StreamThreadExceptionResponse onThreadFailure(Throwable e) {
        Optional<RegistryUnavailableException> outage = RegistryUnavailableException.causeOf(e);
        if (outage.isPresent()) {
            return afterOutageBackoff("schema registry " + outage.get().registry() + " cannot answer", outage.get());
        }
        Optional<TimeoutException> brokerTimeout = brokerTimeout(e);
        if (brokerTimeout.isPresent()) {
            return afterOutageBackoff("the broker did not answer in time", brokerTimeout.get());
        }
        ThreadReplacementPolicy.Decision decision = policy.decide(clock.instant());
        if (decision == ThreadReplacementPolicy.Decision.REPLACE) {
            LOG.warn("{}: a stream thread failed; replacing it ({} of {} replacements within {} used)", name,
                    policy.replacementsWithinWindow(clock.instant()), policy.maxReplacements(), policy.window(), e);
            return StreamThreadExceptionResponse.REPLACE_THREAD;
        }
        LOG.error("{}: a stream thread failed after {} replacements within {}; shutting Kafka Streams down, "
                + "the process will exit", name, policy.maxReplacements(), policy.window(), e);
        fail(e);
        return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    }

    /** The Kafka client timeout among the causes of {@code e}, if there is one. */
    static Optional<TimeoutException> brokerTimeout(Throwable e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof TimeoutException timeout) {
                return Optional.of(timeout);
            }
        }
        return Optional.empty();
    }

    /**
     * Waits, on the failed thread, before it is replaced: a replacement would meet the same outage at
     * once. The registry client logs a registry outage once at WARN and its end at INFO, so that one is
     * logged here only at DEBUG; a broker timeout at WARN, once per replacement.
     */
    private StreamThreadExceptionResponse afterOutageBackoff(String what, Exception outage) {
        long waitMs;
        synchronized (outageLock) {
            long now = clock.millis();
            if (now - lastOutageAtMs > 2 * OUTAGE_BACKOFF_MAX_MS) {
                outageStreak = 0; // a new outage starts at the first wait again
            }
            lastOutageAtMs = now;
            waitMs = Math.min(OUTAGE_BACKOFF_MAX_MS, OUTAGE_BACKOFF_FIRST_MS << Math.min(outageStreak, 16));
            outageStreak++;
        }
        if (outage instanceof RegistryUnavailableException) {
            LOG.debug("{}: a stream thread stopped at a record while {}; replacing it in {} ms (not counted as a failure): {}",
                    name, what, waitMs, outage.getMessage());
        } else {
            LOG.warn("{}: a stream thread stopped because {}; replacing it in {} ms (not counted as a failure): {}",
                    name, what, waitMs, outage.getMessage());
        }
        try {
            closeBegun.await(waitMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
        }
        return StreamThreadExceptionResponse.REPLACE_THREAD;
    }

    private void fail(Throwable e) {
        // the first reason wins: the thread's exception says more than the ERROR state it leads to
        failure.compareAndSet(null, e);
    }

    @Override
    public boolean ready() {
        KafkaStreams s = streams;
        return s != null && reachedRunning && failure.get() == null && !closing
                && s.state().isRunningOrRebalancing();
    }

    @Override
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    /**
     * The running {@link KafkaStreams}, for its state, metrics and interactive queries.
     *
     * @throws IllegalStateException before {@link #start()}
     */
    public KafkaStreams streams() {
        KafkaStreams s = streams;
        if (s == null) {
            throw new IllegalStateException(name + " has not been started");
        }
        return s;
    }

    /** Where poison pills go and how many went there, once started with a dead-letter topic. */
    public Optional<DeadLetters> deadLetters() {
        return Optional.ofNullable(deadLetters);
    }

    /** The properties Kafka Streams is created with (a copy). */
    Properties properties() {
        Properties copy = new Properties();
        copy.putAll(properties);
        return copy;
    }

    @Override
    public synchronized boolean close(Duration timeout) {
        if (closed != null) {
            return closed;
        }
        closing = true;
        closeBegun.countDown();
        KafkaStreams s = streams;
        if (s == null) {
            closed = true;
            closeDeadLetterProducer();
            return true;
        }
        boolean inTime = s.close(new KafkaStreams.CloseOptions().leaveGroup(true).timeout(timeout));
        if (!inTime) {
            LOG.warn("{}: Kafka Streams did not close within {} (state {})", name, timeout, s.state());
        }
        closed = inTime;
        closeDeadLetterProducer();
        unbindMetrics();
        return inTime;
    }

    private void unbindMetrics() {
        if (streamsMetrics != null) {
            streamsMetrics.close();
            streamsMetrics = null;
        }
        if (inputLag != null) {
            inputLag.close();
            inputLag = null;
        }
    }

    private void closeDeadLetterProducer() {
        if (deadLetterProducer != null) {
            deadLetterProducer.close();
            deadLetterProducer = null;
        }
    }

    @Override
    public String toString() {
        KafkaStreams s = streams;
        return "StreamsService{" + name + ", " + (s == null ? "not started" : s.state()) + ", " + policy + "}";
    }
}
