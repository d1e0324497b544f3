package io.skewguard.detector.stream;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Lets an orderly shutdown empty the ingest buffers before Kafka Streams' last commit.
 *
 * <p>Why: Kafka Streams commits a task <em>before</em> it calls {@code Processor.close()}, so
 * heat forwarded from {@code close()} would belong to a transaction that is never committed. So
 * {@link #request()} switches every ingest processor to hand on each record at once and to flush
 * what it holds at its next drain check (every {@link #CHECK_INTERVAL}); {@link #awaitDrained}
 * returns once every processor has done so, and only then is Kafka Streams closed.
 *
 * <p>Thread-safe: processors of several stream threads report here.
 */
public final class IngestDrain {

    /** How often an ingest processor looks whether a drain was requested. */
    public static final Duration CHECK_INTERVAL = Duration.ofMillis(100);

    private final Set<Object> holding = ConcurrentHashMap.newKeySet();
    private volatile boolean requested;

    /** Asks every ingest processor to hand on its buffers and buffer nothing from now on. */
    public void request() {
        requested = true;
    }

    public boolean requested() {
        return requested;
    }

    /**
     * Waits until every ingest processor flushed after {@link #request()}, at most {@code timeout}.
     *
     * @return whether all did
     */
    public boolean awaitDrained(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!holding.isEmpty()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    void opened(Object processor) {
        if (!requested) {
            holding.add(processor);
        }
    }

    void drained(Object processor) {
        holding.remove(processor);
    }
}
