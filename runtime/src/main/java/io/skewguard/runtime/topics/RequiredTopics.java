package io.skewguard.runtime.topics;

import io.skewguard.runtime.lifecycle.StartStep;
import io.skewguard.runtime.settings.ClientType;
import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Settings;
import java.time.Duration;
import java.util.Properties;

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
        }
    }

}
