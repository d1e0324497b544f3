package io.skewguard.runtime.lifecycle;

import java.time.Duration;
import java.util.Optional;

/**
 * A service that only does something once at start (check or create topics, say) and is then
 * ready: nothing runs afterwards, nothing fails later, nothing to close.
 */
public abstract class StartStep implements Service {

    private volatile boolean done;

    /** The one-off work; an exception means the process does not start. */
    protected abstract void run();

    @Override
    public final void start() {
        run();
        done = true;
    }

    @Override
    public final boolean ready() {
        return done;
    }

    @Override
    public final Optional<Throwable> failure() {
        return Optional.empty();
    }

    @Override
    public final boolean close(Duration timeout) {
        return true;
    }
}
