package io.skewguard.runtime.topics;

import io.skewguard.runtime.lifecycle.StartRefused;
import io.skewguard.runtime.lifecycle.StartStep;
import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Settings;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first service of every SkewGuard process: at start it checks that every SkewGuard topic
 * exists (with the app's {@code topic-prefix} and Kafka client keys), creates the missing ones when
 * {@code create-topics=true}, and otherwise refuses to start with a message that names the missing
 * topics and the command that creates them ({@link TopicProvisioner#requireTopics}). Differences
 * from the plan other than a missing topic are logged as warnings. Nothing runs after the check.
 *
 * <p>A broker that does not answer (down, or too slow to answer within the timeouts) is not a
 * reason to exit: the step waits ({@value #FIRST_WAIT_MS} ms doubling up to {@value #MAX_WAIT_MS}
 * ms) and asks again, logging the wait once at WARN and the answer once at INFO; a stop request
 * ends the wait. Refused credentials or rights still end the start at once.
 */
public final class RequiredTopics extends StartStep {

    private static final Logger LOG = LoggerFactory.getLogger(RequiredTopics.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    static final long FIRST_WAIT_MS = 1_000;
    static final long MAX_WAIT_MS = 30_000;
    private final CountDownLatch stop = new CountDownLatch(1);

    private final TopicPlan plan;
    private final Properties adminProperties;
    private final boolean create;
    public RequiredTopics(TopicPlan plan, Properties adminProperties, boolean create) {
        this.plan = plan;
        this.adminProperties = adminProperties;
        this.create = create;
    }

    /** The check an app's {@code settings} ask for: its prefix, its admin client keys, its {@code create-topics}. */
    public static RequiredTopics of(Settings settings) {
        boolean create = settings.model().has(CommonSettings.CREATE_TOPICS) && settings.bool(CommonSettings.CREATE_TOPICS);
        Properties admin = settings.clientProperties(ClientType.ADMIN);
        return new RequiredTopics(TopicPlan.defaults(settings.string(CommonSettings.TOPIC_PREFIX)), admin, create);
    }

    @Override
    public String name() {
        return "topics";
    }

    @Override
    public void stopStarting() {
        stop.countDown();
    }

    @Override
    protected void run() {
        String servers = adminProperties.getProperty("bootstrap.servers", "?");
        long waitMs = FIRST_WAIT_MS;
        long startedAt = System.nanoTime();
        boolean warned = false;
        while (true) {
            try (TopicProvisioner provisioner = TopicProvisioner.connect(adminProperties, TIMEOUT)) {
                provisioner.requireTopics(plan, create);
                if (warned) {
                    LOG.info("Kafka at {} answers after {} s; topics checked", servers,
                            Duration.ofNanos(System.nanoTime() - startedAt).toSeconds());
                }
                return;
            } catch (IllegalStateException e) {
                // refused credentials or rights are the operator's to fix, and the first thing every
                // process does is this check: one line that says so, not a stack trace
                java.util.Optional<StartRefused> refused = refusal(e);
                if (refused.isPresent()) {
                    throw refused.get();
                }
                if (!noAnswer(e)) {
                    throw e;
                }
                if (!warned) {
                    warned = true;
                    LOG.warn("Kafka at {} does not answer yet; waiting for it before starting ({})", servers, oneLine(e.getMessage()));
                }
            }
            try {
                if (stop.await(waitMs, TimeUnit.MILLISECONDS)) {
                    LOG.info("stop requested while waiting for Kafka at {}", servers);
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            waitMs = Math.min(MAX_WAIT_MS, waitMs * 2);
        }
    }

    /** Whether {@code e} says only that the broker did not answer in time (a client timeout among its causes). */
    static boolean noAnswer(Throwable e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof java.util.concurrent.TimeoutException || t instanceof org.apache.kafka.common.errors.TimeoutException) {
                return true;
            }
        }
        return false;
    }

    /** A refused login or request as a {@link StartRefused} that says what to check; empty for other failures. */
    java.util.Optional<StartRefused> refusal(IllegalStateException e) {
        String servers = " (Kafka at " + adminProperties.getProperty("bootstrap.servers", "?") + ")";
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof AuthenticationException) {
                return java.util.Optional.of(new StartRefused("Kafka refused this app's credentials (" + t.getClass().getSimpleName()
                        + ": " + oneLine(t.getMessage()) + "); check security.protocol, sasl.mechanism and sasl.jaas.config"
                        + " in the --config file" + servers));
            }
            if (t instanceof AuthorizationException) {
                return java.util.Optional.of(new StartRefused("Kafka refused a request of this app's principal (" + t.getClass().getSimpleName()
                        + ": " + oneLine(t.getMessage()) + "); every role needs DESCRIBE and DESCRIBE_CONFIGS on the SkewGuard topics:"
                        + " see './skewguard acls'" + servers));
            }
        }
        return java.util.Optional.empty();
    }

    private static String oneLine(String message) {
        return message == null ? "no message" : message.replaceAll("\\s+", " ").trim();
    }

}
