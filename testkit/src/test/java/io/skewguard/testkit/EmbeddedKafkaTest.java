package io.skewguard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;

import org.junit.jupiter.api.Test;

/** The contract of an EmbeddedKafka that is not running; no broker needed. */
class EmbeddedKafkaTest {

    @Test
    void bootstrapServersBeforeStartIsAnError() {
        EmbeddedKafka kafka = EmbeddedKafka.builder().build();
        assertThat(kafka.isRunning()).isFalse();
        assertThatThrownBy(kafka::bootstrapServers).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not been started");
        assertThatThrownBy(kafka::restart).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closedBeforeStartCannotBeStarted() {
        EmbeddedKafka kafka = EmbeddedKafka.builder().build();
        kafka.close();
        assertThatThrownBy(kafka::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("only once");
        assertThatThrownBy(kafka::adminClient).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void builderRejectsImpossiblePortsAndTimeouts() {
        assertThatThrownBy(() -> EmbeddedKafka.builder().port(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EmbeddedKafka.builder().port(65_536)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> EmbeddedKafka.builder().startTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void extensionWithoutARunningBrokerExplainsHowToRegisterIt() {
        assertThatThrownBy(() -> new KafkaBrokerExtension().broker())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("static");
    }
}
