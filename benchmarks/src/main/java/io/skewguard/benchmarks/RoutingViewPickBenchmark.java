package io.skewguard.benchmarks;

import io.skewguard.agent.RoutingView;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.ring.Node;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.schemas.NodeWeight;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The writer's whole placement of one key through {@link RoutingView#pick}: xxh3 of the key string,
 * slot, weighted rendezvous over the slot's 8 candidates with uneven weight factors and free ratios,
 * read from the view's volatile snapshot. Run with {@code -prof gc}: must show ≈ 0 B/op.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RoutingViewPickBenchmark {

    private static final int KEY_COUNT = 1 << 16;

    @Param({"48", "512"})
    int nodes;

    RoutingView view;
    String[] keys;
    int cursor;

    @Setup
    public void setUp() {
        List<Node> members = new ArrayList<>(nodes);
        for (int n = 0; n < nodes; n++) {
            members.add(Node.of(String.format("node-%03d", n), "rack-" + (n % 16)));
        }
        view = RoutingView.of("c1", SlotTable.fromRing(HashRing.of(members), SlotTable.DEFAULT_CANDIDATES));
        SplittableRandom random = new SplittableRandom(7);
        for (int n = 0; n < nodes; n++) {
            String id = String.format("node-%03d", n);
            view.apply(NodeWeight.newBuilder().setCluster("c1").setNode(id).setEpoch(1)
                    .setWeight(0.5 + 1.5 * random.nextDouble()).setUpdatedAt(Instant.EPOCH).build());
            view.setFreeRatio(id, 0.05 + 0.9 * random.nextDouble());
        }
        keys = new String[KEY_COUNT];
        SplittableRandom keyRandom = new SplittableRandom(42);
        for (int i = 0; i < KEY_COUNT; i++) {
            keys[i] = "object/" + Long.toHexString(keyRandom.nextLong());
        }
    }

    /** One write placement: key string in, node id out. */
    @Benchmark
    public String pick() {
        return view.pick(keys[cursor++ & (KEY_COUNT - 1)]);
    }
}
