package io.skewguard.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The agent's wait with consumption paused (a broker outage, a registry outage) polls to stay in
 * its group. A rebalance during the wait assigns partitions afresh, not paused; what a poll returns
 * for them must be read again after the wait, not dropped.
 */
class CommandAgentPausedPollTest {

    private static final String TOPIC = "commands";
    private final TopicPartition held = new TopicPartition(TOPIC, 0);
    private final TopicPartition fresh = new TopicPartition(TOPIC, 1);

    @Test
    void commandsOfAPartitionAssignedDuringTheWaitAreReadAfterItNotDropped() {
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        consumer.subscribe(List.of(TOPIC));
        consumer.rebalance(List.of(held));
        consumer.updateBeginningOffsets(Map.of(held, 0L, fresh, 0L));
        consumer.addRecord(command(held, 0));
        int[] polls = {0};
        consumer.schedulePollTask(() -> { }); // the wait's first poll: partition 0 paused, nothing comes
        consumer.schedulePollTask(() -> { // its second: a rebalance brings partition 1, two commands in it
            consumer.rebalance(List.of(held, fresh));
            consumer.addRecord(command(fresh, 0));
            consumer.addRecord(command(fresh, 1));
        });

        CommandAgent.pollPaused(consumer, () -> polls[0]++ < 4, () -> Duration.ofMillis(1));

        assertThat(consumer.paused()).as("resumed after the wait").isEmpty();
        // the next poll reads from here: partition 1's two commands again, and partition 0's, which stayed paused
        assertThat(consumer.position(fresh)).as("partition 1 back at its first command").isZero();
        assertThat(consumer.position(held)).as("partition 0 not read past its first command").isZero();
    }

    private static ConsumerRecord<byte[], byte[]> command(TopicPartition tp, long offset) {
        return new ConsumerRecord<>(tp.topic(), tp.partition(), offset, "n1".getBytes(StandardCharsets.UTF_8),
                ("command " + offset).getBytes(StandardCharsets.UTF_8));
    }
}
