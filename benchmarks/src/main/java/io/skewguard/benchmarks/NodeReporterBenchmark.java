package io.skewguard.benchmarks;

import io.skewguard.agent.report.CapacitySnapshot;
import io.skewguard.agent.report.NodeReporter;
import io.skewguard.agent.report.ReporterSettings;
import io.skewguard.schemas.Topics;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@link NodeReporter#record(int, long)} on the write path: cost per call and allocation per call
 * (run with {@code -prof gc}: {@code gc.alloc.rate.norm} must be ≈ 0 B/op). One thread, and four
 * threads writing random slots (contention on the counters' cache lines). Baseline in the same run:
 * the textbook shape, a {@code ConcurrentHashMap<Integer, LongAdder>} per slot ({@code baseline*}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class NodeReporterBenchmark {

    private NodeReporter reporter;
    private final ConcurrentHashMap<Integer, LongAdder> baselineBytes = new ConcurrentHashMap<>();

    /** Per thread: its own slot sequence, so threads spread over slots as writes do. */
    @State(Scope.Thread)
    public static class Slots {
        int next = (int) (Thread.currentThread().getId() * 0x9E3779B9L);

        int nextSlot() {
            next = next * 1664525 + 1013904223; // LCG: no allocation, no shared state
            return (next >>> 24) & 255;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        ReporterSettings settings = new ReporterSettings("bench", "n1", 256, Topics.defaults(),
                Duration.ofHours(1), Duration.ofHours(1), Map.of("schema.registry.url", "mock://bench"));
        reporter = new NodeReporter(settings, new MockProducer<>(true, null, new ByteArraySerializer(), new ByteArraySerializer()),
                () -> new CapacitySnapshot(0, 1, null, Map.of()), System::currentTimeMillis);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        reporter.close();
    }

    @Benchmark
    @Threads(1)
    public void recordOneThread(Slots slots) {
        reporter.record(slots.nextSlot(), 4096);
    }

    @Benchmark
    @Threads(4)
    public void recordFourThreads(Slots slots) {
        reporter.record(slots.nextSlot(), 4096);
    }

    @Benchmark
    @Threads(1)
    public void baselineMapOneThread(Slots slots) {
        baselineBytes.computeIfAbsent(slots.nextSlot(), s -> new LongAdder()).add(4096);
    }

    @Benchmark
    @Threads(4)
    public void baselineMapFourThreads(Slots slots) {
        baselineBytes.computeIfAbsent(slots.nextSlot(), s -> new LongAdder()).add(4096);
    }
}
