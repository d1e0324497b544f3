package io.skewguard.testkit;

import io.skewguard.embedded.EmbeddedKafka;
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
    void saslUserRejectsNamesAndPasswordsThatCannotBeWrittenUnquoted() {
        assertThatThrownBy(() -> EmbeddedKafka.builder().saslUser("al ice", "secret"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'al ice'");
        assertThatThrownBy(() -> EmbeddedKafka.builder().saslUser("-alice", "secret"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'-alice'");
        assertThatThrownBy(() -> EmbeddedKafka.builder().saslUser(null, "secret"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("null");
        for (String password : new String[] {"", "has space", "has\"quote", "has\\backslash", "has,comma", "naïve"}) {
            assertThatThrownBy(() -> EmbeddedKafka.builder().saslUser("alice", password))
                    .as("password %s", password)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("password of SASL user 'alice'");
        }
        assertThatThrownBy(() -> EmbeddedKafka.builder().saslUser("alice", null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("password");
    }

    @Test
    void saslUserRejectsADuplicateAndTheInternalAdminName() {
        assertThatThrownBy(() -> EmbeddedKafka.builder().saslUser("alice", "a1").saslUser("alice", "a2"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("declared twice");
        assertThatThrownBy(() -> EmbeddedKafka.builder().saslUser(EmbeddedKafka.INTERNAL_ADMIN_USER, "secret"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved");
    }

    @Test
    void saslIsOnExactlyWhenAUserIsDeclaredAndTheBuilderShowsNoPassword() {
        assertThat(EmbeddedKafka.builder().build().isSasl()).isFalse();
        EmbeddedKafka.Builder builder = EmbeddedKafka.builder().saslUser("svc.detector-1", "p@ss#W0rd!");
        assertThat(builder.build().isSasl()).isTrue();
        assertThat(builder.toString()).contains("svc.detector-1").doesNotContain("p@ss#W0rd!");
    }

    @Test
    void theAuthorizerNeedsSaslSinceWithoutItEveryClientWouldBeTheSamePrincipal() {
        assertThatThrownBy(() -> EmbeddedKafka.builder().authorizer().build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("saslUser");
        EmbeddedKafka authorizing = EmbeddedKafka.builder().saslUser("alice", "a1").authorizer().build();
        assertThat(authorizing.isAuthorizing()).isTrue();
        assertThat(EmbeddedKafka.builder().saslUser("alice", "a1").build().isAuthorizing()).isFalse();
    }

    @Test
    void extensionWithoutARunningBrokerExplainsHowToRegisterIt() {
        assertThatThrownBy(() -> new KafkaBrokerExtension().broker())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("static");
    }
}
