package io.skewguard.benchmarks;

import io.skewguard.detector.DetectorSettings;
import io.skewguard.detector.ingest.IngestBuffer;
import io.skewguard.detector.stream.PartialHeat;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the detector's stage one does with one write event once it is fetched: {@code
 * IngestBuffer.accept} (decode into the one reused record, the input check, the node's bound, the
 * time rule, the sums), against decoding the same record alone with the wire-format deserializer (a
 * new record each time, as the benchmark's plain consumer does). The records lie in memory, 1,024 of
 * them, so this is the work per record without the fetch, the queues and the cache misses of records
 * handed from the thread that polled them; the detector benchmark measures all of that together.
 * Event times lie a minute before the clock and within one tick, so every record is on time and no
 * buffer is handed on.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class TakeBenchmark {

    private static final String WRITES = "skewguard.node.writes";
    private static final String CAPACITY = "skewguard.node.capacity";
    private static final int RECORDS = 1024;

    @Param({"48", "512"})
    int nodes;

    private SchemaRegistrySerde<WriteEvent> writes;
    private IngestBuffer buffer;
    private final byte[][] records = new byte[RECORDS][];
    private final long[] times = new long[RECORDS];
    private final Headers headers = new RecordHeaders();
    private long offset;
    private int next;

    @Setup
    public void setUp() {
        DetectorSettings settings = DetectorSettings.of(Map.of(
                "bootstrap.servers", "127.0.0.1:9", "schema.registry.url", "mock://take-bench-" + nodes));
        writes = SchemaRegistrySerde.of(WriteEvent.class, settings.serdeConfig(), false);
        SchemaRegistrySerde<CapacityEvent> capacities = SchemaRegistrySerde.of(CapacityEvent.class, settings.serdeConfig(), false);
        long tick = settings.tick().toMillis();
        long start = (System.currentTimeMillis() - 60_000) / tick * tick; // a tick's start, a minute ago
        for (int i = 0; i < RECORDS; i++) {
            times[i] = start + i; // 1,024 ms: within the tick
            WriteEvent e = new WriteEvent("c1", String.format("node-%03d", (i * 7) % nodes), (i * 13) % 4096,
                    1_000L + i, 1L, Instant.ofEpochMilli(times[i]));
            records[i] = writes.serializer().serialize(WRITES, e);
        }
        buffer = new IngestBuffer(WRITES, CAPACITY, writes.deserializer(), capacities.deserializer(), settings.inputCheck(),
                tick, new IngestBuffer.Sink() {
                    @Override
                    public void partial(PartialHeat p) {
                    }

                    @Override
                    public void deadLetter(IngestBuffer.DeadLetterOut d) {
                        throw new IllegalStateException("a benchmark record was dead-lettered: " + d.reason());
                    }
                }, Clock.systemUTC(), settings.limits());
    }

    private int nextIndex() {
        next = (next + 1) & (RECORDS - 1);
        return next;
    }

    @Benchmark
    public void take() {
        int i = nextIndex();
        buffer.accept(WRITES, 0, offset++, null, records[i], times[i], headers);
    }

    @Benchmark
    public WriteEvent decodeAlone() {
        return writes.deserializer().deserialize(WRITES, records[nextIndex()]);
    }
}
