package io.skewguard.detector.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmptyCheckpointsTest {

    @TempDir
    Path dir;

    @Test
    void installsOnThisKafkaVersionsDriverAndTheTopologyCountsAsBefore() throws Exception {
        try (TopologyTestDriver driver = driver(dir)) {
            assertThat(EmptyCheckpoints.skipDeletes(driver)).isTrue();
            assertThat(EmptyCheckpoints.skipDeletes(driver)).as("a second call keeps the one installed").isTrue();
            var in = driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
            var out = driver.createOutputTopic("out", new StringDeserializer(), new StringDeserializer());
            in.pipeInput("a", "x");
            in.pipeInput("b", "x");
            in.pipeInput("a", "x");
            assertThat(out.readKeyValuesToMap()).containsEntry("a", "2").containsEntry("b", "1");

            // the driver's checkpoint is the installed one: it took the file to be absent and does not
            // look again (Kafka's own deletes it after the next record: the test below)
            File checkpoint = checkpointFile(dir);
            Files.writeString(checkpoint.toPath(), "0\n0\n");
            in.pipeInput("a", "x");
            assertThat(out.readKeyValuesToMap()).containsEntry("a", "3");
            assertThat(checkpoint).exists();
        }
    }

    @Test
    void withoutItTheDriverDeletesTheEmptyCheckpointAfterEveryRecord() throws Exception {
        try (TopologyTestDriver driver = driver(dir)) {
            var in = driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
            in.pipeInput("a", "x");
            File checkpoint = checkpointFile(dir);
            Files.writeString(checkpoint.toPath(), "0\n0\n");
            in.pipeInput("a", "x");
            assertThat(checkpoint).doesNotExist();
        }
    }

    @Test
    void aCheckpointWithOffsetsIsWrittenAndAnEmptyOneDeletesAFileThatIsThere() throws Exception {
        File file = dir.resolve(".checkpoint").toFile();
        Files.writeString(file.toPath(), "0\n0\n");
        EmptyCheckpoints.Remembering checkpoint = new EmptyCheckpoints.Remembering(file);

        checkpoint.write(Map.of());
        assertThat(file).as("there when it was made: deleted").doesNotExist();
        checkpoint.write(Map.of()); // absent: nothing to do, no failure

        TopicPartition changelog = new TopicPartition("app-store-changelog", 0);
        checkpoint.write(Map.of(changelog, 42L));
        assertThat(file).exists();
        assertThat(new org.apache.kafka.streams.state.internals.OffsetCheckpoint(file).read()).containsEntry(changelog, 42L);

        checkpoint.write(Map.of());
        assertThat(file).as("written, then empty: deleted as Kafka deletes it").doesNotExist();

        checkpoint.write(Map.of(changelog, 43L));
        checkpoint.delete();
        assertThat(file).doesNotExist();
        checkpoint.write(Map.of());
        assertThat(file).doesNotExist();
    }

    /** A count per key in an in-memory store without a changelog, as fast mode's drivers keep their state. */
    private static TopologyTestDriver driver(Path stateDir) {
        Topology topology = new Topology();
        topology.addSource("source", Serdes.String().deserializer(), Serdes.String().deserializer(), "in");
        topology.addProcessor("count", () -> new Processor<String, String, String, String>() {
            private ProcessorContext<String, String> context;
            private KeyValueStore<String, Long> counts;

            @Override
            public void init(ProcessorContext<String, String> context) {
                this.context = context;
                this.counts = context.getStateStore("counts");
            }

            @Override
            public void process(Record<String, String> record) {
                Long before = counts.get(record.key());
                long now = before == null ? 1 : before + 1;
                counts.put(record.key(), now);
                context.forward(record.withValue(Long.toString(now)));
            }
        }, "source");
        topology.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("counts"), Serdes.String(), Serdes.Long())
                .withLoggingDisabled(), "count");
        topology.addSink("sink", "out", Serdes.String().serializer(), Serdes.String().serializer(), "count");
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "empty-checkpoints");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        return new TopologyTestDriver(topology, props);
    }

    /** The checkpoint of the driver's one task, 0_0 (its directory made: in-memory stores need none). */
    private static File checkpointFile(Path stateDir) throws java.io.IOException {
        Path task = Files.createDirectories(stateDir.resolve("empty-checkpoints").resolve("0_0"));
        return task.resolve(".checkpoint").toFile();
    }
}
