package io.skewguard.runtime.lifecycle;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;

/** A {@link Service} whose behaviour a test sets, recording "start NAME" / "close NAME" in a shared journal. */
final class FakeService implements Service {

    private final String name;
    private final List<String> journal;
    private volatile boolean ready = true;
    private volatile Throwable failure;
    private volatile RuntimeException startFailure;
    private volatile Consumer<FakeService> onStart = s -> { };
    private volatile boolean closeAnswer = true;
    private volatile RuntimeException closeFailure;
    private volatile CountDownLatch closeBlocker;
    private volatile Duration closeTimeoutGiven;
    private int closes;

    FakeService(String name, List<String> journal) {
        this.name = name;
        this.journal = journal;
    }

    FakeService notReady() {
        ready = false;
        return this;
    }

    FakeService failingToStart(RuntimeException e) {
        startFailure = e;
        return this;
    }

    FakeService onStart(Consumer<FakeService> action) {
        onStart = action;
        return this;
    }

    FakeService closingLate() {
        closeAnswer = false;
        return this;
    }

    FakeService closingWith(RuntimeException e) {
        closeFailure = e;
        return this;
    }

    /** close() blocks until the latch opens (ignoring its timeout, as a buggy service would). */
    FakeService closingOnlyAfter(CountDownLatch latch) {
        closeBlocker = latch;
        return this;
    }

    void becomeReady() {
        ready = true;
    }

    void fail(Throwable e) {
        failure = e;
    }

    synchronized int closes() {
        return closes;
    }

    Duration closeTimeoutGiven() {
        return closeTimeoutGiven;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void start() {
        journal.add("start " + name);
        onStart.accept(this);
        if (startFailure != null) {
            throw startFailure;
        }
    }

    @Override
    public boolean ready() {
        return ready;
    }

    @Override
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public boolean close(Duration timeout) {
        synchronized (this) {
            closes++;
            if (closes > 1) {
                return closeAnswer;
            }
        }
        closeTimeoutGiven = timeout;
        journal.add("close " + name);
        CountDownLatch blocker = closeBlocker;
        if (blocker != null) {
            try {
                blocker.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (closeFailure != null) {
            throw closeFailure;
        }
        return closeAnswer;
    }
}
