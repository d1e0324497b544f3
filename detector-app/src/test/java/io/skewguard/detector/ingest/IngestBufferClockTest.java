package io.skewguard.detector.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.detector.DetectorSettings;
import io.skewguard.detector.stream.PartialHeat;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.testkit.TestClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** How often a buffer reads its clock, and that a record after {@link IngestBuffer#readClockAgain} sees the clock as it is. */
class IngestBufferClockTest {

    private static final long T0 = 1_780_000_000_000L;
    private static final long HOUR = 3_600_000L;

    private final DetectorSettings settings = DetectorSettings.of(Map.of(
            "bootstrap.servers", "127.0.0.1:9", "schema.registry.url", "mock://clock-test-" + UUID.randomUUID()));
    private final SchemaRegistrySerde<WriteEvent> writes = SchemaRegistrySerde.of(WriteEvent.class, settings.serdeConfig(), false);
    private final SchemaRegistrySerde<CapacityEvent> capacities = SchemaRegistrySerde.of(CapacityEvent.class, settings.serdeConfig(), false);
    private final TestClock clock = new TestClock(T0);
    private final List<String> deadLetters = new ArrayList<>();
    private final IngestBuffer buffer = new IngestBuffer("node-writes", "node-capacity", writes.deserializer(), capacities.deserializer(),
            settings.inputCheck(), settings.tick().toMillis(), new IngestBuffer.Sink() {
                @Override
                public void partial(PartialHeat p) {
                }

                @Override
                public void deadLetter(IngestBuffer.DeadLetterOut d) {
                    deadLetters.add(d.reason());
                }
            }, clock, settings.limits());
    private long offset;

    private void write(long time) {
        WriteEvent e = WriteEvent.newBuilder().setCluster("c").setNode("n-" + offset % 7).setSlot((int) (offset % 64))
                .setBytes(100).setOps(1).setEventTime(Instant.ofEpochMilli(time)).build();
        buffer.accept("node-writes", 0, offset++, null, writes.serializer().serialize("node-writes", e), time, new RecordHeaders());
    }

    @Test
    void recordsTakenOneAfterTheOtherShareAReadOfTheClock() {
        for (int i = 0; i < 10 * IngestBuffer.CLOCK_EVERY; i++) {
            write(T0 - 1_000 + i);
        }
        assertThat(clock.reads()).isEqualTo(10);
        assertThat(deadLetters).isEmpty();

        buffer.readClockAgain();
        write(T0);
        assertThat(clock.reads()).as("the first record after readClockAgain reads the clock").isEqualTo(11);
    }

    @Test
    void aRecordAfterReadClockAgainIsJudgedByTheClockAsItIsNow() {
        write(T0);
        write(T0 + 2 * HOUR);
        assertThat(deadLetters).singleElement().asString().startsWith("future:");

        clock.set(T0 + 2 * HOUR); // the clock moves on, as during a wait for the next records
        buffer.readClockAgain();
        write(T0 + 2 * HOUR);
        assertThat(deadLetters).as("two hours on, the same time is no longer ahead of the clock").hasSize(1);
    }
}
