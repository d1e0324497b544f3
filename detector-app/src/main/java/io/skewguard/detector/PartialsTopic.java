package io.skewguard.detector;

import io.skewguard.detector.stream.PartialsPurger;
import io.skewguard.runtime.lifecycle.StartStep;
import io.skewguard.schemas.Topics;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The detector's first service: {@code <application.id>-partials}, the topic between its two
 * stages, exists before either starts. Created if missing, with as many partitions as the larger
 * input topic and {@link #CONFIG}; an input topic that does not exist fails the start.
 */
final class PartialsTopic extends StartStep {

    private static final Logger LOG = LoggerFactory.getLogger(PartialsTopic.class);

    /**
     * The configuration {@code <application.id>-partials} is created with: that of a Kafka Streams
     * repartition topic. Records are deleted by {@link PartialsPurger} once stage two has committed
     * them, never by time: their timestamps are event times, which may be old.
     */
    static final Map<String, String> CONFIG = Map.of(
            TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_DELETE,
            TopicConfig.RETENTION_MS_CONFIG, "-1",
            TopicConfig.SEGMENT_BYTES_CONFIG, "52428800");

    private final DetectorSettings settings;
    PartialsTopic(DetectorSettings settings) {
        this.settings = settings;
    }

    @Override
    public String name() {
        return "partials-topic";
    }


    @Override
    protected void run() {
        String partials = settings.partialsTopic();
        Topics topics = settings.topics();
        try (Admin admin = Admin.create(settings.adminProperties())) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            if (existing.contains(partials)) {
                warnOnTimeRetention(admin, partials);
                        return;
            }
            int partitions = 1;
            for (String input : List.of(topics.nodeWrites(), topics.nodeCapacity())) {
                if (!existing.contains(input)) {
                    throw new IllegalStateException("input topic " + input + " does not exist");
                }
                TopicDescription d = admin.describeTopics(List.of(input)).allTopicNames().get(30, TimeUnit.SECONDS).get(input);
                partitions = Math.max(partitions, d.partitions().size());
            }
            try {
                admin.createTopics(List.of(new NewTopic(partials, Optional.of(partitions), Optional.empty())
                                .configs(CONFIG)))
                        .all().get(30, TimeUnit.SECONDS);
                LOG.info("created topic {} with {} partition(s), {}", partials, partitions, CONFIG);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw e;
                }
            }
            } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking topic " + partials, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot check or create topic " + partials + ": " + e.getMessage(), e);
        }
    }

    /** An existing partials topic is left as it is; a time retention on it is worth a warning. */
    private static void warnOnTimeRetention(Admin admin, String partials)
            throws InterruptedException, ExecutionException, TimeoutException {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, partials);
        Config config = admin.describeConfigs(List.of(resource)).all().get(30, TimeUnit.SECONDS).get(resource);
        ConfigEntry retention = config == null ? null : config.get(TopicConfig.RETENTION_MS_CONFIG);
        if (retention != null && !"-1".equals(retention.value())) {
            LOG.warn("topic {} has retention.ms={}: partials carry event-time timestamps, so the broker may delete "
                    + "ones stage two has not read yet; set retention.ms=-1 (the detector purges what stage two "
                    + "has committed, see purge-interval)", partials, retention.value());
        }
    }
}
