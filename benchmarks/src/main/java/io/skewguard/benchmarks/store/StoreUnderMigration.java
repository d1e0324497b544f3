package io.skewguard.benchmarks.store;

import io.skewguard.agent.service.ZipfKeys;
import io.skewguard.agent.store.CopyPacer;
import io.skewguard.agent.store.CopyProgress;
import io.skewguard.agent.store.LatencyGovernor;
import io.skewguard.agent.store.RocksDbNodeStore;
import io.skewguard.agent.store.StaleRouteException;
import io.skewguard.benchmarks.MachineLoad;
import io.skewguard.core.ring.HashRing;
import io.skewguard.core.slots.SlotTable;
import io.skewguard.migrator.MigratorSettings;
import io.skewguard.migrator.policy.AdaptiveRateLimiter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The paper's two service figures on the agent's real store: write latency with migrations running
 * next to the same load without, and the switch time of a migration batch.
 *
 * <p><b>Set-up.</b> {@code --nodes} {@link RocksDbNodeStore}s in one process (as {@code skewguard
 * agent} hosts them, each its own RocksDB directory, write-ahead log to the operating system on every
 * write), filled with {@code --keys} keys. One writer thread writes Zipf-distributed keys
 * ({@link ZipfKeys}, as the agent's load generator draws them) at a fixed rate into the node that owns
 * the key's slot. The rate is open-loop: each write has its due time, and its latency is counted from
 * that due time to the store's return, so a stall delays and counts every write behind it
 * (no coordinated omission). Latencies go into HdrHistograms.
 *
 * <p><b>Phases.</b> Quiet and migrating phases of equal length alternate ({@code --rounds} of each);
 * the writer runs through all of them without a break and each write counts in the phase it was due
 * in. Before them a warm-up pair, a quiet phase and a migrating one, counts nowhere (its p99s are
 * printed): both code paths are compiled and the stores' caches warm before either side is measured,
 * as JMH warms a benchmark before it measures. {@code --no-warmup-migrating} warms the quiet path
 * only. In a migrating phase a driver thread runs batches back to back, as the migrator does: up to
 * {@code max-parallel} migrations on disjoint node pairs; each target copies its slot
 * ({@code startCopy}, then {@code copyProgress} driven every 20 ms) within the batch's share of the
 * budget of the migrator's {@link AdaptiveRateLimiter} (its defaults, fed the writer's measured byte
 * rate every second); when every copy is done, the switch: PREPARE on every source, then COMMIT on
 * every target and source, the slots' owners flip (the writers' slot table), then CLEANUP on the
 * sources.
 *
 * <p><b>Which slots move.</b> The migrator's planner gives a source's coldest shards first (docs/migrator.md
 * §2), so the driver moves slots of the colder {@code --cold-share} of them (by the writer's Zipf
 * shares), coldest first, round after round; {@code --cold-share 1} moves every slot in turn, the
 * hottest included, as a planner that ignored heat would.
 *
 * <p><b>Latency pacing.</b> As {@code skewguard agent} does by default, one {@link LatencyGovernor} times
 * every store's writes and paces the copies by their p99 ({@link CopyPacer}); {@code --no-latency-pacing}
 * runs the copies at the limiter's rate alone, for the figure without it.
 *
 * <p><b>Control.</b> {@code --control} runs the same phases with nothing moved in the migrating ones: its
 * ratio is quiet ÷ quiet, how far two quiet phases of the machine differ by themselves, to read the
 * figure of a real run against.
 *
 * <p><b>Switch time</b>: from the first PREPARE of a batch to the return of its last COMMIT, on the
 * stores themselves. The command and answer topics' round trips between the migrator and the agents
 * are not in it (no broker here).
 */
@Command(name = "store", mixinStandardHelpOptions = true,
        description = {"Write latency p99 on the RocksDB store with migrations against without, and switch time (~2 min).",
            "The agent's store, an open-loop writer and the migrator's limiter; HdrHistogram."})
public final class StoreUnderMigration implements Callable<Integer> {

    @Option(names = "--nodes", defaultValue = "8", description = "storage nodes, one RocksDB store each (default: ${DEFAULT-VALUE})")
    int nodes;

    @Option(names = "--slots", defaultValue = "256", description = "slots S, a power of two (default: ${DEFAULT-VALUE})")
    int slots;

    @Option(names = "--keys", defaultValue = "200000", description = "distinct keys, all written before the phases (default: ${DEFAULT-VALUE})")
    int keys;

    @Option(names = "--value-bytes", defaultValue = "512", description = "size of every value (default: ${DEFAULT-VALUE})")
    int valueBytes;

    @Option(names = "--writes-per-second", defaultValue = "5000", description = "the writer's fixed rate (default: ${DEFAULT-VALUE})")
    int writesPerSecond;

    @Option(names = "--phase-seconds", defaultValue = "15", description = "length of each quiet and migrating phase (default: ${DEFAULT-VALUE})")
    int phaseSeconds;

    @Option(names = "--rounds", defaultValue = "3", description = "quiet + migrating phase pairs (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--warmup-migrating", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = {"the warm-up, which counts nowhere, is a quiet phase and a migrating one (default: ${DEFAULT-VALUE}); "
                    + "--no-warmup-migrating: a quiet phase only, so the first migrating round runs the copy path cold"})
    boolean warmupMigrating;

    @Option(names = "--cold-share", defaultValue = "0.5",
            description = {"the slots moved: the colder this share of them, coldest first, as the planner gives cold shards "
                    + "first (default: ${DEFAULT-VALUE}); 1 = every slot in turn, the hottest included"})
    double coldShare;

    @Option(names = "--control", defaultValue = "false",
            description = {"a control run: the \"migrating\" phases move nothing, so the ratio shows how far two quiet "
                    + "phases of this machine differ by themselves (the measurement's own spread)"})
    boolean control;

    @Option(names = "--heat-skew", defaultValue = "0.8", description = "Zipf exponent of the keys' slots (default: ${DEFAULT-VALUE})")
    double heatSkew;

    @Option(names = "--max-bytes-per-sec", description = "the limiter's budget at low load (default: the migrator's)")
    Long maxBytesPerSec;

    @Option(names = "--latency-pacing", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = {"copies follow the stores' write latency, as skewguard agent's copy-latency-pacing does "
                    + "(default: ${DEFAULT-VALUE}); --no-latency-pacing: copies run at the limiter's rate only"})
    boolean latencyPacing;

    @Option(names = "--latency-tolerance", defaultValue = "0.05",
            description = "copy-latency-tolerance of that pacing (default: ${DEFAULT-VALUE})")
    double latencyTolerance;

    @Option(names = "--min-pace", defaultValue = "0.02",
            description = "copy-min-pace of that pacing: the slowest a copy may get, as a fraction of its rate (default: ${DEFAULT-VALUE})")
    double minPace;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(10);

    @Override
    public Integer call() throws Exception {
        if (nodes < 2 || keys < 1 || valueBytes < 0 || writesPerSecond < 1 || phaseSeconds < 1 || rounds < 1
                || (maxBytesPerSec != null && maxBytesPerSec < 1)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "need --nodes ≥ 2, --keys, --writes-per-second, "
                    + "--phase-seconds, --rounds and --max-bytes-per-sec ≥ 1, --value-bytes ≥ 0");
        }
        if (!(coldShare > 0 && coldShare <= 1)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--cold-share must be in (0, 1], was " + coldShare);
        }
        SlotTable.requireSlotCount(slots);
        Map<String, String> migrator = new HashMap<>(Map.of("bootstrap.servers", "127.0.0.1:9092"));
        if (maxBytesPerSec != null) {
            migrator.put(MigratorSettings.MAX_BYTES_PER_SEC, Long.toString(maxBytesPerSec));
        }
        MigratorSettings settings = MigratorSettings.of(migrator);
        MachineLoad load = MachineLoad.now();
        Path dir = Files.createTempDirectory("skewguard-store-bench");
        // an interrupted run (Ctrl-C, SIGTERM) removes its stores too: they are 100 MB and more
        Thread removeOnExit = new Thread(() -> deleteQuietly(dir), "bench-store-cleanup");
        Runtime.getRuntime().addShutdownHook(removeOnExit);
        System.out.printf("stores in %s (removed at the end, or when the run is interrupted)%n", dir);
        try (Cluster cluster = Cluster.open(dir, nodes, slots)) {
            System.out.printf("filling %d stores with %,d keys of %d B%n", nodes, keys, valueBytes);
            cluster.fill(keys, valueBytes);
            // after the fill, so that the fill's writes are not in the first quiet interval
            LatencyGovernor governor = latencyPacing
                    ? new LatencyGovernor(new CopyPacer(latencyTolerance, minPace), Duration.ofSeconds(1),
                            System::nanoTime)
                    : null;
            cluster.stores.forEach(store -> store.governedBy(governor));
            Result result = run(cluster, settings, governor);
            System.out.println();
            if (control) {
                System.out.println("CONTROL RUN: nothing moved in the phases called migrating; the ratio below is quiet ÷ quiet");
            }
            System.out.print(result.markdown(writesPerSecond, phaseSeconds, rounds));
            System.out.println();
            System.out.println(load.untilNow());
        } finally {
            deleteTree(dir);
            try {
                Runtime.getRuntime().removeShutdownHook(removeOnExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs anyway and finds nothing left
            }
        }
        return 0;
    }

    private Result run(Cluster cluster, MigratorSettings settings, LatencyGovernor governor) throws Exception {
        Histogram quiet = new Histogram(HIGHEST_MICROS, 3);
        Histogram migrating = new Histogram(HIGHEST_MICROS, 3);
        Histogram switches = new Histogram(HIGHEST_MICROS, 3);
        Histogram movedSlots = new Histogram(HIGHEST_MICROS, 3);
        Histogram quietMovable = new Histogram(HIGHEST_MICROS, 3);
        Histogram othersOnTargets = new Histogram(HIGHEST_MICROS, 3);
        Histogram othersOnSources = new Histogram(HIGHEST_MICROS, 3);
        List<Histogram> quietRounds = new ArrayList<>();
        List<Histogram> migratingRounds = new ArrayList<>();
        ZipfKeys heat = new ZipfKeys(slots, keys, heatSkew, 7);
        int[] order = movedInOrder(heat);
        Writer writer = new Writer(cluster, drawKeys(heat), writesPerSecond, valueBytes, quiet, migrating, movedSlots,
                quietMovable, othersOnTargets, othersOnSources, order);
        double movedShare = 0;
        for (int slot : order) {
            movedShare += heat.share(slot);
        }
        if (control) {
            System.out.println("control run (--control): the \"migrating\" phases move nothing");
        } else {
            System.out.printf("moving the colder %d of %d slots, coldest first: %.1f %% of the writes%n", order.length, slots, 100 * movedShare);
        }
        Driver driver = new Driver(cluster, settings.rateLimiter(), settings.maxParallel(), writer, switches, order);
        Thread writerThread = new Thread(writer, "bench-writer");
        Thread driverThread = new Thread(driver, "bench-migrations");
        writerThread.start();
        driverThread.start();
        Histogram warmQuiet = new Histogram(HIGHEST_MICROS, 3);
        Histogram warmMigrating = new Histogram(HIGHEST_MICROS, 3);
        try {
            // the warm-up warms the JIT and RocksDB's caches on both paths; it counts nowhere
            writer.phase(warmQuiet, null);
            System.out.println("warm-up: quiet");
            Thread.sleep(TimeUnit.SECONDS.toMillis(phaseSeconds));
            if (warmupMigrating) {
                Histogram warmSwitches = new Histogram(HIGHEST_MICROS, 3);
                driver.recordSwitchesIn(warmSwitches);
                writer.phase(warmMigrating, null);
                driver.migrate(!control);
                System.out.println(control ? "warm-up: migrating (control: nothing moves)" : "warm-up: migrating");
                Thread.sleep(TimeUnit.SECONDS.toMillis(phaseSeconds));
                writer.phase(null, null);
                driver.migrate(false);
                driver.awaitIdle();
                driver.recordSwitchesIn(switches);
                driver.forgetCounts();
            }
            for (int round = 1; round <= rounds; round++) {
                Histogram quietRound = new Histogram(HIGHEST_MICROS, 3);
                Histogram migratingRound = new Histogram(HIGHEST_MICROS, 3);
                quietRounds.add(quietRound);
                migratingRounds.add(migratingRound);
                writer.phase(quiet, quietRound);
                System.out.printf("round %d: quiet%n", round);
                Thread.sleep(TimeUnit.SECONDS.toMillis(phaseSeconds));
                writer.phase(migrating, migratingRound);
                driver.migrate(!control);
                System.out.printf(control ? "round %d: migrating (control: nothing moves)%n" : "round %d: migrating%n", round);
                Thread.sleep(TimeUnit.SECONDS.toMillis(phaseSeconds));
                // the batch under way finishes uncounted, so that no migration reaches into a quiet phase
                writer.phase(null, null);
                driver.migrate(false);
                driver.awaitIdle();
            }
        } finally {
            writer.stop();
            driver.stop();
            writerThread.join();
            driverThread.join();
        }
        if (writer.failure != null) {
            throw new IllegalStateException("the writer failed", writer.failure);
        }
        if (driver.failure != null) {
            throw new IllegalStateException("the migration driver failed", driver.failure);
        }
        return new Result(quiet, migrating, movedSlots, quietMovable, othersOnTargets, othersOnSources, quietRounds, migratingRounds, warmQuiet,
                warmupMigrating ? warmMigrating : null, switches, driver.moved, driver.bytesCopied, driver.lastBudget, writer.behind,
                governor == null ? null : governor.intervals(), governor == null ? null : governor.state());
    }

    /**
     * The slots the driver moves, in its order: the colder {@code --cold-share} of them by the
     * writer's Zipf shares, coldest first (ties by slot), at least as many as a batch can take.
     */
    private int[] movedInOrder(ZipfKeys heat) {
        int count = Math.min(slots, Math.max(2 * nodes, (int) Math.round(coldShare * slots)));
        return IntStream.range(0, slots).boxed()
                .sorted(Comparator.comparingDouble((Integer slot) -> heat.share(slot)).thenComparingInt(slot -> slot))
                .limit(count).mapToInt(Integer::intValue).toArray();
    }

    /**
     * The writer's keys, drawn before the run: drawing names a key with {@code String.format} the
     * first time, which would otherwise sit in the write path being measured.
     */
    private String[] drawKeys(ZipfKeys zipf) {
        // ten seconds of writes, cycled: enough for the Zipf shape, and drawing (naming) keys is slow
        String[] drawn = new String[Integer.highestOneBit(Math.max(1024, Math.min(1 << 18, writesPerSecond * 10)))];
        for (int i = 0; i < drawn.length; i++) {
            drawn[i] = zipf.next();
        }
        return drawn;
    }

    /** The figures of one run. */
    private record Result(Histogram quiet, Histogram migrating, Histogram movedSlots, Histogram quietMovable,
                          Histogram othersOnTargets, Histogram othersOnSources, List<Histogram> quietRounds,
                          List<Histogram> migratingRounds, Histogram warmQuiet, Histogram warmMigrating, Histogram switches, int moved, long bytesCopied,
                          long budget, long behind, LatencyGovernor.Intervals paceIntervals, CopyPacer.Pace pace) {
        String markdown(int rate, int phaseSeconds, int rounds) {
            StringBuilder out = new StringBuilder();
            out.append(String.format("%d writes/s, %d × (%d s quiet + %d s migrating); %d slots moved in %d batches, "
                            + "%,d bytes copied; limiter budget at the end %,d B/s; most writes the writer fell behind its schedule: %d%n",
                    rate, rounds, phaseSeconds, phaseSeconds, moved, switches.getTotalCount(), bytesCopied, budget, behind));
            out.append(pace == null ? String.format("latency pacing: off%n%n")
                    : String.format("latency pacing: %d of %d one-second intervals slowed the copies; at the end pace %.3f, "
                            + "quiet baseline p99 %.0f µs%n%n", paceIntervals.slowed(), paceIntervals.closed(), pace.pace(), pace.baselineMicros()));
            if (behind > rate / 10) {
                out.append(String.format("NOTE: the writer fell more than 0.1 s behind its rate: the machine did not keep up; "
                        + "the latencies measure that backlog. Lower --writes-per-second.%n%n"));
            }
            out.append("| write latency (µs, from due time) | writes | p50 | p99 | p99.9 | max |\n|---|---:|---:|---:|---:|---:|\n");
            out.append(row("quiet (baseline)", quiet));
            if (quietMovable.getTotalCount() > 0) {
                out.append(row("quiet: writes of the slots the run moves (the colder share)", quietMovable));
            }
            out.append(row("migrating", migrating));
            Histogram others = migrating.copy();
            others.subtract(movedSlots);
            out.append(row("migrating: writes of a slot being moved (dual-written)", movedSlots));
            out.append(row("migrating: writes of every other slot", others));
            if (others.getTotalCount() > 0) {
                Histogram elsewhere = others.copy();
                elsewhere.subtract(othersOnTargets);
                elsewhere.subtract(othersOnSources);
                out.append(row("… of them, into a node receiving a copy", othersOnTargets));
                out.append(row("… into a node giving one", othersOnSources));
                out.append(row("… into a node in no move", elsewhere));
            }
            out.append(String.format("%np99 per round (µs): quiet %s; migrating %s%n", p99s(quietRounds), p99s(migratingRounds)));
            out.append(warmMigrating == null
                    ? String.format("warm-up (not counted): quiet p99 %d µs; no migrating phase (--no-warmup-migrating)%n",
                            warmQuiet.getValueAtPercentile(99))
                    : String.format("warm-up (not counted): quiet p99 %d µs, migrating p99 %d µs%n",
                            warmQuiet.getValueAtPercentile(99), warmMigrating.getValueAtPercentile(99)));
            double ratio = (double) migrating.getValueAtPercentile(99) / quiet.getValueAtPercentile(99);
            out.append(String.format("%nwrite latency p99, migrating ÷ quiet: %.3f (%+.1f %%; paper: at most +5 %%)%n",
                    ratio, (ratio - 1) * 100));
            out.append(String.format("switch time, first PREPARE → last COMMIT of a batch (ms): p50 %.2f, p99 %.2f, max %.2f, "
                            + "%d batches (paper: the metadata lock held under 100 ms)%n",
                    switches.getValueAtPercentile(50) / 1000.0, switches.getValueAtPercentile(99) / 1000.0,
                    switches.getMaxValue() / 1000.0, switches.getTotalCount()));
            return out.toString();
        }

        private static String p99s(List<Histogram> rounds) {
            return String.join(" / ", rounds.stream().map(h -> Long.toString(h.getValueAtPercentile(99))).toList());
        }

        private static String row(String name, Histogram h) {
            return String.format("| %s | %,d | %d | %d | %d | %d |%n", name, h.getTotalCount(), h.getValueAtPercentile(50),
                    h.getValueAtPercentile(99), h.getValueAtPercentile(99.9), h.getMaxValue());
        }
    }

    /** The stores and which node owns each slot (the writers' slot table). */
    private static final class Cluster implements AutoCloseable {
        final List<RocksDbNodeStore> stores = new ArrayList<>();
        final Map<String, RocksDbNodeStore> byId = new HashMap<>();
        final AtomicIntegerArray owner;
        /** 1 while a slot is being moved: from its copy's start to its cleanup. */
        final AtomicIntegerArray moving;
        /** Per node, while a batch runs: {@link #RECEIVING} a copy, {@link #GIVING} one, or 0. */
        final AtomicIntegerArray role;
        static final int RECEIVING = 1;
        static final int GIVING = 2;
        final int slots;

        private Cluster(int slots, int nodes) {
            this.slots = slots;
            this.role = new AtomicIntegerArray(nodes);
            this.owner = new AtomicIntegerArray(slots);
            this.moving = new AtomicIntegerArray(slots);
        }

        static Cluster open(Path dir, int nodes, int slots) {
            Cluster c = new Cluster(slots, nodes);
            try {
                for (int n = 0; n < nodes; n++) {
                    String id = String.format("node-%02d", n);
                    RocksDbNodeStore store = RocksDbNodeStore.open(dir.resolve(id), id, slots, System::currentTimeMillis, c.byId::get);
                    c.stores.add(store);
                    c.byId.put(id, store);
                }
            } catch (RuntimeException e) {
                c.close();
                throw e;
            }
            for (int s = 0; s < slots; s++) {
                c.owner.set(s, s % nodes);
            }
            return c;
        }

        int slotOf(String key) {
            return SlotTable.slotOf(HashRing.hashKey(key), slots);
        }

        void fill(int keys, int valueBytes) {
            byte[] value = new byte[valueBytes];
            ZipfKeys uniform = new ZipfKeys(slots, keys, 0, 3);
            // uniform draws reach most of the key space; the writer's own writes reach the rest
            for (int i = 0; i < keys; i++) {
                String key = uniform.next();
                stores.get(owner.get(slotOf(key))).put(key, 1, value);
            }
        }

        @Override
        public void close() {
            stores.forEach(RocksDbNodeStore::close);
        }
    }

    /** One thread writing at a fixed rate; each latency goes into the histogram of the phase it was due in. */
    private static final class Writer implements Runnable {
        private final Cluster cluster;
        private final String[] keys;
        private final int rate;
        private final byte[] value;
        private final Histogram quiet;
        private final Histogram migrating;
        private final Histogram movedSlots;
        private final Histogram quietMovable;
        private final Histogram othersOnTargets;
        private final Histogram othersOnSources;
        private final boolean[] movable;
        private volatile Histogram phase;
        private volatile Histogram round;
        private volatile boolean running = true;
        private volatile long written;
        volatile long behind;
        volatile Throwable failure;

        Writer(Cluster cluster, String[] keys, int rate, int valueBytes, Histogram quiet, Histogram migrating, Histogram movedSlots,
               Histogram quietMovable, Histogram othersOnTargets, Histogram othersOnSources, int[] moved) {
            this.cluster = cluster;
            this.keys = keys;
            this.rate = rate;
            this.value = new byte[valueBytes];
            this.quiet = quiet;
            this.migrating = migrating;
            this.movedSlots = movedSlots;
            this.quietMovable = quietMovable;
            this.othersOnTargets = othersOnTargets;
            this.othersOnSources = othersOnSources;
            this.movable = new boolean[cluster.slots];
            for (int slot : moved) {
                movable[slot] = true;
            }
        }

        /** From now on, writes due count in {@code h} and {@code roundOfIt} (null: nowhere). */
        void phase(Histogram h, Histogram roundOfIt) {
            round = roundOfIt;
            phase = h;
        }

        void stop() {
            running = false;
        }

        /** Bytes written so far: what the limiter sees as the write rate. */
        long bytesWritten() {
            return written * (value.length + 16L);
        }

        @Override
        public void run() {
            long start = System.nanoTime();
            long version = 2;
            try {
                for (long n = 0; running; n++) {
                    long due = start + n * 1_000_000_000L / rate;
                    long wait;
                    while ((wait = due - System.nanoTime()) > 0) {
                        if (wait > 200_000) {
                            Thread.sleep(0, 100_000);
                        } else {
                            Thread.onSpinWait();
                        }
                    }
                    Histogram h = phase;
                    Histogram r = round;
                    String key = keys[(int) (n & (keys.length - 1))];
                    int slot = cluster.slotOf(key);
                    boolean moved = cluster.moving.get(slot) == 1;
                    int role = cluster.role.get(cluster.owner.get(slot));
                    write(key, slot, version++);
                    long micros = Math.min((System.nanoTime() - due) / 1000, HIGHEST_MICROS);
                    if (h != null) {
                        h.recordValue(micros);
                        if (r != null) {
                            r.recordValue(micros);
                        }
                        if (h == migrating) {
                            if (moved) {
                                movedSlots.recordValue(micros);
                            } else if (role == Cluster.RECEIVING) {
                                othersOnTargets.recordValue(micros);
                            } else if (role == Cluster.GIVING) {
                                othersOnSources.recordValue(micros);
                            }
                        } else if (h == quiet && movable[slot]) {
                            quietMovable.recordValue(micros);
                        }
                    }
                    written++;
                    behind = Math.max(behind, (System.nanoTime() - due) / (1_000_000_000L / rate));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                failure = e;
            }
        }

        private void write(String key, int slot, long version) {
            while (true) {
                try {
                    cluster.stores.get(cluster.owner.get(slot)).put(key, version, value);
                    return;
                } catch (StaleRouteException moved) {
                    // the owner flipped between reading it and the write: read it again
                }
            }
        }
    }

    /** Runs migration batches back to back while migrating is on, as the migrator's repair does. */
    private static final class Driver implements Runnable {
        private final Cluster cluster;
        private final AdaptiveRateLimiter limiter;
        private final int maxParallel;
        private final Writer writer;
        private volatile Histogram switches;
        private volatile boolean migrating;
        private volatile boolean running = true;
        private volatile boolean inBatch;
        private AdaptiveRateLimiter.WriteLoad load = AdaptiveRateLimiter.WriteLoad.NONE;
        private long lastBytes;
        private long lastObserved = System.nanoTime();
        private final int[] order;
        private int nextSlot;
        private int batchNumber;
        volatile int moved;
        volatile long bytesCopied;
        volatile long lastBudget;
        volatile Throwable failure;

        Driver(Cluster cluster, AdaptiveRateLimiter limiter, int maxParallel, Writer writer, Histogram switches, int[] order) {
            this.order = order;
            this.cluster = cluster;
            this.limiter = limiter;
            this.maxParallel = maxParallel;
            this.writer = writer;
            this.switches = switches;
        }

        void migrate(boolean on) {
            migrating = on;
        }

        /** Switch times go to {@code h} from the next batch on (the warm-up's to a histogram of their own). */
        void recordSwitchesIn(Histogram h) {
            switches = h;
        }

        /** Forgets the slots moved and bytes copied so far; only while no batch runs. */
        void forgetCounts() {
            moved = 0;
            bytesCopied = 0;
        }

        /** Waits until no batch runs (migrating is off and the batch under way has finished). */
        void awaitIdle() throws InterruptedException {
            while (inBatch && failure == null) {
                Thread.sleep(5);
            }
        }

        void stop() {
            running = false;
        }

        private record Move(String id, int slot, RocksDbNodeStore source, RocksDbNodeStore target, int sourceIndex, int targetIndex) {}

        @Override
        public void run() {
            try {
                while (running) {
                    observeLoad();
                    if (!migrating) {
                        Thread.sleep(20);
                        continue;
                    }
                    inBatch = true;
                    try {
                        batch();
                    } finally {
                        inBatch = false;
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                failure = e;
            }
        }

        /** The writer's byte rate into the limiter, once a second, as the detector's reports feed the migrator. */
        private void observeLoad() {
            long now = System.nanoTime();
            if (now - lastObserved < 1_000_000_000L) {
                return;
            }
            long bytes = writer.bytesWritten();
            double rate = (bytes - lastBytes) / ((now - lastObserved) / 1e9);
            load = limiter.observe(load, rate, System.currentTimeMillis());
            lastBudget = limiter.budget(load);
            lastBytes = bytes;
            lastObserved = now;
        }

        /** One batch: up to max-parallel moves on disjoint node pairs, copy, switch, cleanup. */
        private void batch() throws InterruptedException {
            List<Move> moves = new ArrayList<>();
            boolean[] busy = new boolean[cluster.stores.size()];
            for (int tries = 0; tries < order.length && moves.size() < maxParallel; tries++) {
                int slot = order[nextSlot];
                nextSlot = (nextSlot + 1) % order.length;
                int from = cluster.owner.get(slot);
                int to = (from + 1 + Math.floorMod(slot * 31 + batchNumber, cluster.stores.size() - 1)) % cluster.stores.size();
                if (busy[from] || busy[to]) {
                    continue;
                }
                busy[from] = true;
                busy[to] = true;
                moves.add(new Move("bench-" + batchNumber + "-" + slot, slot, cluster.stores.get(from), cluster.stores.get(to), from, to));
            }
            batchNumber++;
            long share = Math.max(1, limiter.budget(load) / moves.size());
            for (Move m : moves) {
                cluster.role.set(m.sourceIndex(), Cluster.GIVING);
                cluster.role.set(m.targetIndex(), Cluster.RECEIVING);
                cluster.moving.set(m.slot(), 1);
                m.target().startCopy(m.id(), m.slot(), m.source().node(), share);
            }
            long lastRate = System.nanoTime();
            List<Move> copying = new ArrayList<>(moves);
            while (!copying.isEmpty()) {
                for (var it = copying.iterator(); it.hasNext(); ) {
                    Move m = it.next();
                    CopyProgress p = m.target().copyProgress(m.id());
                    if (p.status() == CopyProgress.Status.DONE) {
                        bytesCopied += p.bytesCopied();
                        it.remove();
                    } else if (p.status() != CopyProgress.Status.RUNNING) {
                        throw new IllegalStateException("copy " + m.id() + " is " + p.status() + ": " + p.message());
                    }
                }
                if (copying.isEmpty()) {
                    break;
                }
                Thread.sleep(20);
                observeLoad();
                if (System.nanoTime() - lastRate >= 1_000_000_000L) {
                    // the budget follows the load, as the migrator re-sends COPY with the new rate
                    long newShare = Math.max(1, limiter.budget(load) / moves.size());
                    for (Move m : copying) {
                        m.target().startCopy(m.id(), m.slot(), m.source().node(), newShare);
                    }
                    lastRate = System.nanoTime();
                }
            }
            long start = System.nanoTime();
            for (Move m : moves) {
                m.source().prepareSource(m.id(), m.slot(), m.target().node());
            }
            for (Move m : moves) {
                m.target().commitTarget(m.id(), m.slot());
                m.source().commitSource(m.id(), m.slot(), m.target().node());
            }
            long micros = (System.nanoTime() - start) / 1000;
            switches.recordValue(Math.min(micros, HIGHEST_MICROS));
            for (Move m : moves) {
                cluster.owner.set(m.slot(), m.targetIndex());
            }
            for (Move m : moves) {
                m.source().cleanup(m.id(), m.slot());
                cluster.moving.set(m.slot(), 0);
                cluster.role.set(m.sourceIndex(), 0);
                cluster.role.set(m.targetIndex(), 0);
            }
            moved += moves.size();
        }
    }

    /**
     * At exit: the stores may still be open and written to, so a file can appear while the tree is
     * deleted; a few passes, and what is left is left (the JVM is going).
     */
    private static void deleteQuietly(Path dir) {
        for (int pass = 0; pass < 5 && Files.exists(dir); pass++) {
            try {
                deleteTree(dir);
            } catch (UncheckedIOException stillChanging) {
                // next pass
            }
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}
