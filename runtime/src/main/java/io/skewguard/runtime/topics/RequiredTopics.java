package io.skewguard.runtime.topics;

import io.skewguard.runtime.lifecycle.StartRefused;
import io.skewguard.runtime.lifecycle.StartStep;
import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Settings;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;

/**
 * The first service of every SkewGuard process: at start it checks that every SkewGuard topic
 * exists (with the app's {@code topic-prefix} and Kafka client keys), creates the missing ones when
 * {@code create-topics=true}, and otherwise refuses to start with a message that names the missing
 * topics and the command that creates them ({@link TopicProvisioner#requireTopics}). Differences
 * from the plan other than a missing topic are logged as warnings. Nothing runs after the check.
 */
public final class RequiredTopics extends StartStep {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

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
    protected void run() {
        try (TopicProvisioner provisioner = TopicProvisioner.connect(adminProperties, TIMEOUT)) {
            provisioner.requireTopics(plan, create);
        } catch (IllegalStateException e) {
            // refused credentials or rights are the operator's to fix, and the first thing every
            // process does is this check: one line that says so, not a stack trace
            throw refusal(e).orElseThrow(() -> e);
        }
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
