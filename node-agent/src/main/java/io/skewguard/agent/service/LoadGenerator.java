package io.skewguard.agent.service;

import io.skewguard.agent.RoutingView;
import io.skewguard.agent.report.NodeReporter;
import io.skewguard.agent.store.NodeStore;
import io.skewguard.agent.store.StaleRouteException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes keys at a steady rate the way a storage system's client does: the {@link RoutingView}
 * picks the node of each key, the write goes into that node's store, and the node's
 * {@link NodeReporter} counts it (what the detector then sees as heat). Keys come from
 * {@link ZipfKeys}.
 *
 * <p>Only the nodes this process hosts can take a write; a key routed to a node hosted elsewhere is
 * counted and skipped. A write refused because its slot left the node ({@link StaleRouteException})
 * is routed again once the router has the new slot-table row, a bounded number of times; refused by
 * a spread node of its slot (one that cleaned the slot up after an earlier migration), it goes to
 * the slot's own winner at once ({@link RoutingView#fallback}).
 *
 * <p><b>Versions.</b> Last-writer-wins by version: versions start at the wall clock in microseconds
 * and count up, so a restarted process's writes are newer than those before the restart.
 *
 * <p><b>Journal.</b> Given a {@link WriteJournal}, every write that its store took is appended to it
 * (key, version, node) before the next write starts, so that the keys written can be checked
 * against the stores after a crash; the generator closes it.
 *
 * <p>One thread of its own; {@link #close()} stops it and waits for it.
 */
public final class LoadGenerator implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LoadGenerator.class);
    private static final int STALE_RETRIES = 50;
    private static final Duration SUMMARY_INTERVAL = Duration.ofSeconds(5);

    /** A node this process hosts: where its writes go and who counts them. */
    public record Target(NodeStore store, NodeReporter reporter) {}

    private final double writesPerSecond;
    private final ZipfKeys keys;
    private final RoutingView view;
    private final Map<String, Target> targets;
    private final byte[] value;
    private final LongSupplier clockMillis;
    private final Thread thread;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong elsewhere = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong version;
    private final WriteJournal journal;
    private volatile boolean running;
    private volatile Throwable failure;
    private String lastKey;
    private long lastVersion;
    private String lastNode;

    /**
     * @param writesPerSecond writes per second, more than 0
     * @param keys the keys to write
     * @param view routes every write
     * @param targets the hosted nodes by id
     * @param valueBytes size of every value
     * @param clockMillis wall clock (versions start from it)
     * @param journal where every completed write is recorded, or null for none
     */
    public LoadGenerator(double writesPerSecond, ZipfKeys keys, RoutingView view, Map<String, Target> targets,
                         int valueBytes, LongSupplier clockMillis, WriteJournal journal) {
        if (!(writesPerSecond > 0) || Double.isInfinite(writesPerSecond)) {
            throw new IllegalArgumentException("writes per second must be positive, was " + writesPerSecond);
        }
        this.writesPerSecond = writesPerSecond;
        this.keys = keys;
        this.view = view;
        this.targets = Map.copyOf(targets);
        this.value = new byte[valueBytes];
        this.clockMillis = clockMillis;
        this.version = new AtomicLong(clockMillis.getAsLong() * 1000);
        this.journal = journal;
        this.thread = new Thread(this::run, "skewguard-load");
        this.thread.setDaemon(true);
    }

    public LoadGenerator start() {
        running = true;
        thread.start();
        LOG.info("load: {} writes/s, routed by the view of cluster {}, into {}{}", writesPerSecond, view.cluster(),
                targets.keySet(), journal == null ? "" : "; every write recorded in " + journal.file());
        return this;
    }

    /** Writes carried out so far. */
    public long written() {
        return written.get();
    }

    /** Why the generator stopped on its own, or null. */
    public Throwable failure() {
        return failure;
    }

    private void run() {
        long start = System.nanoTime();
        long lastSummary = start;
        long n = 0;
        try {
            while (running) {
                long due = start + (long) (n * 1e9 / writesPerSecond);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(100)));
                    continue;
                }
                writeOne(keys.next());
                n++;
                if (System.nanoTime() - lastSummary >= SUMMARY_INTERVAL.toNanos()) {
                    lastSummary = System.nanoTime();
                    logSummary();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure = e;
            LOG.error("load: stopped: {}", e.getMessage(), e);
        }
    }

    private void writeOne(String key) throws InterruptedException {
        String fallback = null;
        for (int attempt = 0; ; attempt++) {
            String node;
            try {
                node = fallback != null ? fallback : view.pick(key);
            } catch (IllegalStateException noRoute) {
                refused.incrementAndGet(); // no candidate set yet, or every candidate full
                return;
            }
            Target target = targets.get(node);
            if (target == null) {
                elsewhere.incrementAndGet();
                return;
            }
            long v = version.incrementAndGet();
            try {
                target.store().put(key, v, value);
            } catch (StaleRouteException stale) {
                if (attempt >= STALE_RETRIES) {
                    refused.incrementAndGet();
                    return;
                }
                try {
                    fallback = fallback == null ? view.fallback(key, node) : null;
                } catch (IllegalStateException full) {
                    refused.incrementAndGet(); // every own writer of the slot is full
                    return;
                }
                if (fallback == null) {
                    Thread.sleep(20); // the router gets the new slot-table row within a poll
                }
                continue;
            }
            if (journal != null) {
                journal.written(key, v, node);
            }
            target.reporter().record(view.slotOf(key), key.length() + (long) value.length);
            written.incrementAndGet();
            lastKey = key;
            lastVersion = v;
            lastNode = node;
            return;
        }
    }

    private void logSummary() {
        // the last write named here has returned from the store: what a kill must not lose
        LOG.info("load: {} writes, {} routed to nodes hosted elsewhere, {} refused; last write {}@{} on {}",
                written.get(), elsewhere.get(), refused.get(), lastKey, lastVersion, lastNode);
    }

    /** Stops writing and waits for the thread. */
    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.getState() != Thread.State.NEW) {
            logSummary();
        }
        if (journal != null && !thread.isAlive()) {
            journal.close();
        }
    }
}
