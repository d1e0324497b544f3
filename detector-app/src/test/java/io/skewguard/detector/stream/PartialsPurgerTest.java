package io.skewguard.detector.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class PartialsPurgerTest {

    private static final String TOPIC = "app-partials";

    private static TopicPartition p(int partition) {
        return new TopicPartition(TOPIC, partition);
    }

    @Test
    void deletesExactlyUpToTheCommittedOffsetOfPartitionsThatAdvanced() {
        Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
        committed.put(p(0), new OffsetAndMetadata(120)); // advanced from 100
        committed.put(p(1), new OffsetAndMetadata(50)); // purged to 50 already
        committed.put(p(2), new OffsetAndMetadata(7)); // never purged
        committed.put(p(3), new OffsetAndMetadata(0)); // nothing consumed yet
        committed.put(p(4), null); // no committed offset
        committed.put(new TopicPartition("app-other", 0), new OffsetAndMetadata(99)); // the group's other input

        Map<TopicPartition, Long> plan = PartialsPurger.plan(TOPIC, committed, Map.of(p(0), 100L, p(1), 50L));

        assertThat(plan).containsExactly(Map.entry(p(0), 120L), Map.entry(p(2), 7L));
    }

    @Test
    void aCommittedOffsetBelowTheLastPurgeIsNotPurgedAgain() {
        // e.g. the group's offsets were reset: never delete anything on that account
        Map<TopicPartition, Long> plan = PartialsPurger.plan(TOPIC, Map.of(p(0), new OffsetAndMetadata(30)), Map.of(p(0), 40L));
        assertThat(plan).isEmpty();
    }

    @Test
    void nothingCommittedMeansNothingDeleted() {
        assertThat(PartialsPurger.plan(TOPIC, Map.of(), Map.of())).isEmpty();
    }
}
