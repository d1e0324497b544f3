package io.skewguard.runtime.registry;

import io.skewguard.runtime.lifecycle.StartRefused;
import io.skewguard.runtime.lifecycle.StartStep;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.schemas.serde.RegistryUnavailableException;
import io.skewguard.schemas.serde.SchemaRegistryClient;
import io.skewguard.schemas.serde.SchemaRegistrySerdeConfig;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A start step of every SkewGuard process that reads or writes Avro: asks the schema registry of
 * {@code schema.registry.url} for its subjects before anything is consumed.
 *
 * <ul>
 *   <li>A registry that answers: the step is done.</li>
 *   <li>Something at that URL that answers 404 without a registry error code (a web server, a
 *       proxy, the registry under another path): the process does not start, with one line naming
 *       the URL ({@link StartRefused}). Started, it would find no schema for any record.</li>
 *   <li>No answer (unreachable, timeout, 5xx, refused credentials): the step waits and asks again,
 *       {@value #FIRST_WAIT_MS} ms doubling up to {@value #MAX_WAIT_MS} ms, logged once at WARN
 *       and once at INFO when it answers; a stop request ends the wait. A registry that is down at
 *       start is an outage like any other, not a reason to crash-loop.</li>
 *   <li>The in-process registry ({@code mock://}) is not probed.</li>
 * </ul>
 */
public final class RegistryProbe extends StartStep {

    private static final Logger LOG = LoggerFactory.getLogger(RegistryProbe.class);

    static final long FIRST_WAIT_MS = 1_000;
    static final long MAX_WAIT_MS = 30_000;

    private final Map<String, Object> serdeConfig;
    private final CountDownLatch stop = new CountDownLatch(1);

    /** A probe of the registry that {@code serdeConfig} names. */
    public RegistryProbe(Map<String, Object> serdeConfig) {
        this.serdeConfig = Map.copyOf(serdeConfig);
    }

    /** The probe of the registry an app's {@code settings} name. */
    public static RegistryProbe of(Settings settings) {
        return new RegistryProbe(settings.serdeConfig());
    }

    @Override
    public String name() {
        return "schema-registry";
    }

    @Override
    public void stopStarting() {
        stop.countDown();
    }

    @Override
    protected void run() {
        SchemaRegistrySerdeConfig config = SchemaRegistrySerdeConfig.parse(serdeConfig);
        if (config.isMock()) {
            return;
        }
        long waitMs = FIRST_WAIT_MS;
        long startedAt = System.nanoTime();
        boolean warned = false;
        try (SchemaRegistryClient client = SchemaRegistryClient.forConfig(config)) {
            while (true) {
                try {
                    client.probe();
                    if (warned) {
                        LOG.info("schema registry {} answers after {} s; starting", client,
                                Duration.ofNanos(System.nanoTime() - startedAt).toSeconds());
                    }
                    return;
                } catch (RegistryUnavailableException e) {
                    if (e.wrongBasePath()) {
                        throw new StartRefused("schema registry " + e.registry() + " is not the registry API at that "
                                + "URL (it answered 404 without a registry error code): wrong base path? Set "
                                + SchemaRegistrySerdeConfig.URL + " to the URL the registry's /subjects is under");
                    }
                    if (!warned) {
                        warned = true;
                        LOG.info("schema registry {} does not answer yet; waiting for it before starting ({})",
                                e.registry(), e.getMessage());
                    }
                }
                if (stop.await(waitMs, TimeUnit.MILLISECONDS)) {
                    LOG.info("stop requested while waiting for schema registry {}", client);
                    return;
                }
                waitMs = Math.min(MAX_WAIT_MS, waitMs * 2);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
