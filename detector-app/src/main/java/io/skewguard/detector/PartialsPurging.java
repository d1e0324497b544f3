package io.skewguard.detector;

import io.skewguard.detector.stream.PartialsPurger;
import io.skewguard.runtime.lifecycle.Service;
import java.time.Duration;
import java.util.Optional;
import org.apache.kafka.clients.admin.Admin;

/** The {@link PartialsPurger} as a {@link Service}: never fails (a failed purge is retried), closes its admin client. */
final class PartialsPurging implements Service {

    private final DetectorSettings settings;
    private volatile PartialsPurger purger;
    private boolean closed;

    PartialsPurging(DetectorSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "partials-purger";
    }

    @Override
    public synchronized void start() {
        if (!closed) {
            purger = PartialsPurger.start(Admin.create(settings.adminProperties()), settings.applicationId(),
                    settings.partialsTopic(), settings.purgeInterval());
        }
    }

    @Override
    public boolean ready() {
        return purger != null;
    }

    @Override
    public Optional<Throwable> failure() {
        return Optional.empty();
    }

    @Override
    public synchronized boolean close(Duration timeout) {
        if (!closed) {
            closed = true;
            PartialsPurger p = purger;
            if (p != null) {
                p.close();
            }
        }
        return true;
    }
}
