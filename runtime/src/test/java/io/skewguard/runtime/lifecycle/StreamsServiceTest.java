package io.skewguard.runtime.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.Topology;
import org.junit.jupiter.api.Test;

/** What {@link StreamsService} does without a broker: nothing is created before {@link StreamsService#start()}. */
class StreamsServiceTest {

    private static StreamsService unstarted() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("in");
        Topology topology = builder.build();
        return new StreamsService("unstarted", topology, new Properties());
    }

    @Test
    void anUnstartedServiceIsNotReadyHasNotFailedAndClosesAtOnce() {
        StreamsService service = unstarted();

        assertThat(service.ready()).isFalse();
        assertThat(service.failure()).isEmpty();
        assertThat(service.close(Duration.ofSeconds(1))).isTrue();
    }

    @Test
    void itsKafkaStreamsExistsOnlyOnceStarted() {
        assertThatThrownBy(() -> unstarted().streams())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("unstarted has not been started");
    }

    @Test
    void aClosedServiceCannotBeStarted() {
        StreamsService service = unstarted();
        service.close(Duration.ofSeconds(1));

        assertThatThrownBy(service::start)
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed before it started");
    }

    @Test
    void makesEveryStreamThreadLeaveTheGroupOnCloseUnlessTheCallerDecided() {
        assertThat(propertiesOf(new Properties())).containsEntry("main.consumer.internal.leave.group.on.close", "true");

        Properties decided = new Properties();
        decided.put("consumer.internal.leave.group.on.close", "false");
        assertThat(propertiesOf(decided)).doesNotContainKey("main.consumer.internal.leave.group.on.close")
                .containsEntry("consumer.internal.leave.group.on.close", "false");
    }

    private static Properties propertiesOf(Properties given) {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream("in");
        return new StreamsService("s", builder.build(), given).properties();
    }
}
