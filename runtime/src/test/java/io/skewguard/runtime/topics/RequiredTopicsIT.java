package io.skewguard.runtime.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.skewguard.runtime.settings.CommonSettings;
import io.skewguard.runtime.settings.Settings;
import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.testkit.KafkaBrokerExtension;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** An app's start gate, from the app's own settings, against one real broker. */
class RequiredTopicsIT {

    @RegisterExtension
    static final KafkaBrokerExtension KAFKA = new KafkaBrokerExtension();

    static final SettingsModel APP = SettingsModel.builder("sample")
            .add(CommonSettings.bootstrapServers(), CommonSettings.topicPrefix(), CommonSettings.createTopics()).build();

    private static Settings app(String prefix, boolean create) {
        return APP.with(Map.of("bootstrap.servers", KAFKA.bootstrapServers(), "topic-prefix", prefix,
                "create-topics", Boolean.toString(create)));
    }

    @Test
    void missingTopicsStopTheStartNamingThemAndTheCommandThatCreatesThem() {
        RequiredTopics gate = RequiredTopics.of(app("gate.missing.", false));
        assertThatThrownBy(gate::start).isInstanceOf(MissingTopicsException.class)
                .hasMessageContaining("gate.missing.node-writes")
                .hasMessageContaining("./skewguard topics create --bootstrap-servers " + KAFKA.bootstrapServers())
                .hasMessageContaining("--topic-prefix gate.missing.")
                .hasMessageContaining("create-topics=true");
        assertThat(gate.ready()).isFalse();
    }

    @Test
    void createTopicsTrueCreatesWhatIsMissingAndTheAppStarts() {
        RequiredTopics gate = RequiredTopics.of(app("gate.create.", true));
        gate.start();
        assertThat(gate.ready()).isTrue();
        try (TopicProvisioner p = new TopicProvisioner(KAFKA.broker().adminClient(), KAFKA.bootstrapServers(), Duration.ofSeconds(30))) {
            assertThat(p.check(TopicPlan.defaults("gate.create."))).isEmpty();
        }
        // and a second app on the same topics passes the gate without creating anything
        RequiredTopics again = RequiredTopics.of(app("gate.create.", false));
        again.start();
        assertThat(again.ready()).isTrue();
    }
}
