package io.skewguard.detector;

import io.skewguard.detector.ingest.IngestLoop;
import io.skewguard.detector.ingest.LoopPace;
import io.skewguard.runtime.lifecycle.Service;
import io.skewguard.runtime.metrics.InputLag;
import io.skewguard.runtime.settings.Durations;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage one as a {@link Service}: {@code ingest-threads} {@link IngestLoop}s, each a plain consumer
 * of the input topics and a transactional producer of partials. Ready once every loop has its first
 * assignment; failed once a loop stopped on an error it does not retry. Closing hands on what every
 * loop buffers and commits it with the input offsets.
 */
final class IngestStage implements Service {

    private static final Logger LOG = LoggerFactory.getLogger(IngestStage.class);
    /** How long a partition one loop gave up holds the others back at most, waiting for one of them to be assigned it. */
    static final Duration ORPHAN_HOLD = Duration.ofSeconds(10);

    private final DetectorSettings settings;
    private final List<IngestLoop> loops = new CopyOnWriteArrayList<>();
    /** skewguard_input_lag_records of each loop's consumer: the detector's input is read here, not by Kafka Streams. */
    private final List<InputLag> lags = new CopyOnWriteArrayList<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private Boolean closed;

    IngestStage(DetectorSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "ingest";
    }

    @Override
    public synchronized void start() {
        // a stable instance id keeps the transactional ids across restarts, so that a restart fences
        // its predecessor's open transactions at once instead of after their timeout
        String instance = settings.instanceId().isBlank() ? UUID.randomUUID().toString() : settings.instanceId();
        int count = settings.ingestThreads();
        // several loops keep within half the grace period of each other, so that their heat is as exact as one loop's
        LoopPace pace = count == 1 ? LoopPace.alone()
                : new LoopPace(settings.grace().toMillis() / 2, ORPHAN_HOLD.toNanos(), System::nanoTime);
        LOG.info("starting {} ingest loop(s), {} thread(s) each{}", count, settings.ingestTakeThread() ? 2 : 1,
                count == 1 ? "" : ", each at most " + Durations.format(Duration.ofMillis(pace.leadMs()))
                        + " (half the grace period) ahead of the others in record time");
        for (int i = 0; i < count; i++) {
            IngestLoop loop = new IngestLoop(settings, settings.partialsTopic(), instance, i, pace,
                    e -> failure.compareAndSet(null, e));
            loops.add(loop);
            lags.add(InputLag.of(loop.name(), loop::consumerMetrics));
            loop.start();
        }
    }

    @Override
    public boolean ready() {
        return !loops.isEmpty() && failure.get() == null && loops.stream().allMatch(IngestLoop::joined);
    }

    @Override
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure.get());
    }

    /** The loops, in index order. */
    List<IngestLoop> loops() {
        return List.copyOf(loops);
    }

    @Override
    public synchronized boolean close(Duration timeout) {
        if (closed == null) {
            closed = stopEach(timeout, false);
            lags.forEach(InputLag::close);
        }
        return closed;
    }

    /** Stops every loop as a crash would ({@link IngestLoop#halt}); for tests of the recovery path. */
    synchronized void halt(Duration timeout) {
        if (closed == null) {
            closed = stopEach(timeout, true);
            lags.forEach(InputLag::close);
        }
    }

    private boolean stopEach(Duration timeout, boolean crash) {
        long deadline = System.nanoTime() + timeout.toNanos();
        boolean clean = true;
        for (IngestLoop loop : loops) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            try {
                if (!(crash ? loop.halt(left) : loop.stop(left))) {
                    LOG.warn("{} did not stop within {}", loop.name(), left);
                    clean = false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return clean;
    }
}
