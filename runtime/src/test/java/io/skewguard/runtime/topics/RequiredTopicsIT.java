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
    void aBrokerThatDoesNotAnswerYetIsWaitedForAndTheStartGoesOnOnceItDoes() throws Exception {
        int port = io.skewguard.testkit.AppProcess.freePort();
        Settings app = APP.with(Map.of("bootstrap.servers", "127.0.0.1:" + port, "topic-prefix", "gate.wait.",
                "create-topics", "true", "default.api.timeout.ms", "1000", "request.timeout.ms", "500"));
        RequiredTopics gate = RequiredTopics.of(app);
        java.util.concurrent.CompletableFuture<Void> starting = java.util.concurrent.CompletableFuture.runAsync(gate::start);
        Thread.sleep(3_000);
        assertThat(starting).as("the start while nothing listens on port " + port).isNotDone();

        try (var broker = io.skewguard.embedded.EmbeddedKafka.builder().port(port).build().start()) {
            starting.get(60, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(gate.ready()).isTrue();
            try (TopicProvisioner p = new TopicProvisioner(broker.adminClient(), broker.bootstrapServers(), Duration.ofSeconds(30))) {
                assertThat(p.check(TopicPlan.defaults("gate.wait."))).isEmpty();
            }
        }
    }

    @Test
    void aStopEndsTheWaitForABrokerThatDoesNotAnswer() throws Exception {
        Settings app = APP.with(Map.of("bootstrap.servers", "127.0.0.1:" + io.skewguard.testkit.AppProcess.freePort(),
                "topic-prefix", "gate.stop.", "default.api.timeout.ms", "1000", "request.timeout.ms", "500"));
        RequiredTopics gate = RequiredTopics.of(app);
        java.util.concurrent.CompletableFuture<Void> starting = java.util.concurrent.CompletableFuture.runAsync(gate::start);
        Thread.sleep(1_500);
        gate.stopStarting();
        starting.get(10, java.util.concurrent.TimeUnit.SECONDS);
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
