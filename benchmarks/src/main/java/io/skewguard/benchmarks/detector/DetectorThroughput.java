package io.skewguard.benchmarks.detector;

import io.skewguard.detector.DetectorApp;
import io.skewguard.detector.DetectorSettings;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import io.skewguard.embedded.EmbeddedKafka;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import io.skewguard.benchmarks.MachineLoad;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * End-to-end detector throughput through a real (in-JVM) broker, next to a plain consumer that
 * only reads and decodes the same topic: the ratio says what the detector's processing costs
 * beyond reading. Per cluster shape (nodes × slots) it pre-produces the same events (one cluster,
 * two minutes of event time so that full windows pass and reports are computed), then
 *
 * <ol>
 *   <li>times a plain consumer (assign, no group, 2000 records per poll) reading and decoding them
 *       with the Confluent-wire serde;
 *   <li>times the detector (defaults: exactly-once, flush and commit 1 s, window 60 s, tick 10 s)
 *       from running (Kafka Streams RUNNING, every ingest loop assigned) until its ingest loops
 *       have taken every input record ({@code records-ingested-total}), and until every input
 *       offset is also committed, i.e. its heat handed on to stage two in a committed transaction.
 *       The loops fetch from their assignment on, so what they took while stage two was still
 *       starting is neither timed nor counted. Every input event is valid and on time, so a
 *       dead letter stops the benchmark with an error instead of a figure;
 *   <li>measures the heap the detector held after the whole input (two minutes of event time,
 *       more than a full window): live heap (after full GC) while it runs minus live heap once it
 *       is closed;
 * </ol>
 *
 * The two run in interleaved rounds (three by default); the table gives medians and the range of
 * the per-round ratio. Before them, per shape, warm-up rounds (two by default) run the same way
 * and count nowhere: each round starts a new detector, and the first rounds run while the JIT
 * compiler still compiles the detector's paths (its threads took 57–78 % of a core in the first
 * detector round of a run, 4–21 % from the third on), which a detector that runs for days pays
 * once. Their ratios are printed and given in their own column.
 *
 * Run: {@code ./skewguard bench detector} (docs/detector-benchmark.md); slots are 4096.
 */
@Command(name = "detector", mixinStandardHelpOptions = true,
        description = {"Detector throughput against a plain consumer (read + decode) on an in-JVM broker (~2 min).",
            "Interleaved rounds of each on the same topic; medians and the per-round ratios."})
public final class DetectorThroughput implements Callable<Integer> {

    private static final long SPAN_MS = 120_000;
    // event (and record) times near now: topics keep records for 7 days by their timestamps, so
    // events from 2023 would be deleted by the broker's retention check under the app's feet; and
    // all in the past: the detector counts an event ahead of its clock at the clock's time (stream
    // time never passes the clock), so events of the next two minutes would wait for the clock
    private static final long T0 = (System.currentTimeMillis() - SPAN_MS - 300_000) / 60_000 * 60_000;
    private static final int SLOTS = 4096;

    @Option(names = "--events", defaultValue = "10000000", description = "write events per cluster shape (default: ${DEFAULT-VALUE})")
    int events;

    @Option(names = "--partitions", defaultValue = "4", description = "partitions of the input topics (default: ${DEFAULT-VALUE})")
    int partitions;

    @Option(names = "--nodes", defaultValue = "48,512", split = ",",
            description = "cluster shapes: node counts, each × 4096 slots (default: ${DEFAULT-VALUE})")
    List<Integer> shapes;

    @Option(names = "--ingest-threads", defaultValue = "1", description = "the detector's ingest loops (default: ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--rounds", defaultValue = "3", description = "interleaved rounds, consumer then detector (default: ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--warmup-rounds", defaultValue = "2",
            description = {"rounds per shape before the counted ones, run the same way and counted nowhere: the first rounds"
                    + " run while the JIT compiler still compiles the detector (default: ${DEFAULT-VALUE})"})
    int warmupRounds;

    /** The settings each round's detector gets from the benchmark (its broker, registry, names and state). */
    private static final List<String> OWN_SETTINGS = List.of(DetectorSettings.BOOTSTRAP_SERVERS, DetectorSettings.SCHEMA_REGISTRY_URL,
            DetectorSettings.APPLICATION_ID, DetectorSettings.TOPIC_PREFIX, DetectorSettings.INGEST_THREADS, DetectorSettings.STATE_DIR);

    @Option(names = "--detector-setting", paramLabel = "KEY=VALUE",
            description = {"a setting of the detector, as in its configuration file (docs/configuration.md), beside the"
                    + " benchmark's own (broker, registry, application id, topic prefix, ingest threads, state dir); repeatable."
                    + " The plain consumer keeps the client's defaults"})
    Map<String, String> detectorSettings = new HashMap<>();

    @Override
    public Integer call() throws Exception {
        if (events < 1 || partitions < 1 || threads < 1 || rounds < 1 || shapes.stream().anyMatch(n -> n < 1)) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "--events, --partitions, --nodes, --ingest-threads and --rounds must all be at least 1");
        }
        if (warmupRounds < 0) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this), "--warmup-rounds must be 0 or more");
        }
        for (String key : detectorSettings.keySet()) {
            if (OWN_SETTINGS.contains(key)) {
                throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                        "--detector-setting " + key + ": the benchmark sets " + String.join(", ", OWN_SETTINGS) + " itself");
            }
        }
        try {
            DetectorSettings.of(detectorSettings); // a setting the detector cannot use fails now, not after producing the input
        } catch (RuntimeException e) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "--detector-setting: " + e.getMessage());
        }
        MachineLoad load = MachineLoad.now();
        List<String> rows = new ArrayList<>();
        // the broker's own default initial rebalance delay (the embedded broker's is 0, for quick tests):
        // with more than one ingest loop, every loop joins the group before the first assignment, as on
        // a real broker, instead of the first taking all input while the others are still joining
        EmbeddedKafka.Builder broker = EmbeddedKafka.builder();
        if (threads > 1) {
            broker.brokerProperty("group.initial.rebalance.delay.ms", "3000");
        }
        // a broker of its own per shape: a shape's rounds do not run beside the topics, groups and
        // transactions the shapes before it left (its input topic, and each round's partials and
        // stage-two topics)
        for (int nodes : shapes) {
            try (EmbeddedKafka kafka = broker.build().start()) {
                rows.add(run(kafka, events, partitions, nodes, Integer.toString(threads)));
            }
        }
        System.out.println();
        System.out.println("| nodes × slots | events | ingest threads | plain consumer (read + decode) events/s, median | detector events/s (all input taken), median | ratio detector / consumer (medians; per-round range) | detector events/s (all input committed), median | ratio, committed / consumer | detector heap after a full window | warm-up rounds' ratios (not counted) |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        rows.forEach(System.out::println);
        System.out.println();
        System.out.println(load.untilNow());
        return 0;
    }

    private String run(EmbeddedKafka kafka, int events, int partitions, int nodes, String threads) throws Exception {
        Topics topics = new Topics("bench" + nodes + ".");
        kafka.createTopics(partitions, topics.nodeWrites(), topics.nodeCapacity());
        kafka.createTopics(1, topics.reports(), topics.alerts(), topics.dlq());
        Map<String, Object> serdeConfig = Map.of("schema.registry.url", "mock://detector-bench");
        SchemaRegistrySerde<WriteEvent> writeSerde = SchemaRegistrySerde.of(WriteEvent.class, serdeConfig, false);
        SchemaRegistrySerde<CapacityEvent> capacitySerde = SchemaRegistrySerde.of(CapacityEvent.class, serdeConfig, false);

        long produced = produce(kafka, topics, writeSerde, capacitySerde, events, nodes);
        System.out.printf("%d nodes: produced %d write events%n", nodes, produced);

        Map<TopicPartition, Long> ends = kafka.endOffsets(topics.nodeWrites(), topics.nodeCapacity());
        long total = ends.values().stream().mapToLong(Long::longValue).sum();
        // interleaved rounds, median of each: the machine is noisy (the same run varies by 2x)
        List<Double> plains = new ArrayList<>();
        List<Double> detectors = new ArrayList<>();
        List<Double> committedRates = new ArrayList<>();
        List<Double> ratios = new ArrayList<>();
        List<Long> heaps = new ArrayList<>();
        List<String> warmups = new ArrayList<>();
        for (int round = 1; round <= warmupRounds + rounds; round++) {
            boolean warmup = round <= warmupRounds;
            String name = warmup ? "warm-up round " + round : "round " + (round - warmupRounds);
            double c = plainConsumer(kafka, topics, writeSerde, events);
            System.out.printf("%d nodes, %s: plain consumer %.0f events/s%n", nodes, name, c);
            Measured d = detector(kafka, topics, serdeConfig, nodes + "-" + round, round, threads, total, ends);
            System.out.printf("%d nodes, %s: detector %.0f events/s (committed: %.0f), heap held %.1f MB; ratio %.2f%s%n",
                    nodes, name, d.rate(), d.committedRate(), d.heap() / 1e6, d.rate() / c, warmup ? ", not counted" : "");
            if (warmup) {
                warmups.add(String.format("%.2f", d.rate() / c));
                continue;
            }
            plains.add(c);
            detectors.add(d.rate());
            committedRates.add(d.committedRate());
            ratios.add(d.rate() / c);
            heaps.add(d.heap());
        }
        double plain = median(plains);
        double detector = median(detectors);
        double committed = median(committedRates);
        return String.format("| %d × %d | %,d | %s | %,.0f | %,.0f | %.2f (rounds %.2f–%.2f) | %,.0f | %.2f | %.0f–%.0f MB | %s |",
                nodes, SLOTS, events, threads, plain, detector, detector / plain,
                ratios.stream().mapToDouble(Double::doubleValue).min().orElse(0),
                ratios.stream().mapToDouble(Double::doubleValue).max().orElse(0),
                committed, committed / plain,
                heaps.stream().mapToLong(Long::longValue).min().orElse(0) / 1e6,
                heaps.stream().mapToLong(Long::longValue).max().orElse(0) / 1e6,
                warmups.isEmpty() ? "none" : String.join(", ", warmups));
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private record Measured(double rate, double committedRate, long heap) {}

    private Measured detector(EmbeddedKafka kafka, Topics topics, Map<String, Object> serdeConfig, String id,
            int round, String threads, long total, Map<TopicPartition, Long> ends) throws Exception {
        Path state = Files.createTempDirectory("detector-bench");
        Map<String, String> given = new HashMap<>(detectorSettings);
        given.putAll(Map.of(
                DetectorSettings.BOOTSTRAP_SERVERS, kafka.bootstrapServers(),
                DetectorSettings.SCHEMA_REGISTRY_URL, "mock://detector-bench",
                DetectorSettings.APPLICATION_ID, "detector-bench-" + id,
                DetectorSettings.TOPIC_PREFIX, topics.prefix(),
                DetectorSettings.INGEST_THREADS, threads,
                DetectorSettings.STATE_DIR, state.toString()));
        DetectorSettings settings = DetectorSettings.of(given);
        double rate;
        double committedRate;
        long heapRunning;
        try (DetectorApp.Running app = DetectorApp.start(settings)) {
            // steady state: the timer starts once Kafka Streams (stage two) is RUNNING and every ingest loop
            // has its partitions. The loops fetch from their assignment on, so what they took before
            // (while stage two was starting: 0.6-2 M records on a 2-core machine) is not counted
            if (!app.awaitRunning(Duration.ofSeconds(60))) {
                throw new IllegalStateException("detector did not start");
            }
            long start = System.nanoTime();
            long before = (long) app.ingestMetric("records-ingested-total");
            if (before > total / 2) {
                throw new IllegalStateException("the detector took " + before + " of " + total
                        + " records before it was running: use more --events to time it");
            }
            // the ingest loops' own count of input records taken (decoded, checked, buffered)
            while (app.ingestMetric("records-ingested-total") < total) {
                Thread.sleep(5);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            // every input offset committed: all heat handed on to stage two in committed transactions
            while (!caughtUp(kafka, settings.ingestGroupId(), ends)) {
                Thread.sleep(5);
            }
            double committed = (System.nanoTime() - start) / 1e9;
            rate = (total - before) / seconds;
            committedRate = (total - before) / committed;
            long deadLetters = (long) app.ingestMetric("dead-letter-total");
            System.out.printf("detector %s processed %d records in %.2f s (all committed after %.2f s; %d taken before the timer started; %d dead-lettered; %d transactions, %d partition pauses, %d takes held back by the other loops)%n",
                    id, total - before, seconds, committed, before, deadLetters,
                    (long) app.ingestMetric("transactions-committed-total"), (long) app.ingestMetric("partition-pauses-total"),
                    (long) app.ingestMetric("pace-holds-total"));
            if (deadLetters > 0) {
                // every input event is valid and on time: a dead letter means the detector refused
                // input it should count, and its rate would not be that of the whole input
                throw new IllegalStateException("the detector dead-lettered " + deadLetters
                        + " of the benchmark's valid input records");
            }
            // ticks T0+10 s .. T0+80 s: stream time ends just before T0+120 s, minus the 30 s grace
            // (each round's detector adds its own to the same reports topic)
            int expected = round * (int) ((SPAN_MS - 1 - 30_000) / 10_000);
            int reports = kafka.consumeUntil(topics.reports(), new StringDeserializer(),
                    SchemaRegistrySerde.of(SkewReport.class, serdeConfig, false).deserializer(),
                    r -> r.size() >= expected, Duration.ofSeconds(60)).size();
            System.out.printf("detector %s: %d reports%n", id, reports);
            heapRunning = usedHeapAfterGc();
        }
        // what the running detector held: live heap while running minus live heap once it is closed
        return new Measured(rate, committedRate, heapRunning - usedHeapAfterGc());
    }

    /** One cluster, {@code events} writes over two minutes of event time; node 0 takes 5× its share. */
    private static long produce(EmbeddedKafka kafka, Topics topics, SchemaRegistrySerde<WriteEvent> writeSerde,
            SchemaRegistrySerde<CapacityEvent> capacitySerde, int events, int nodes) throws Exception {
        Map<String, Object> overrides = new HashMap<>();
        overrides.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        overrides.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        overrides.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        String[] names = new String[nodes];
        byte[][] keys = new byte[nodes][];
        for (int n = 0; n < nodes; n++) {
            names[n] = String.format("node-%03d", n);
            keys[n] = names[n].getBytes(StandardCharsets.UTF_8);
        }
        SplittableRandom random = new SplittableRandom(42);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer(new ByteArraySerializer(), new ByteArraySerializer(), overrides)) {
            long nextCapacity = T0;
            for (int i = 0; i < events; i++) {
                long time = T0 + (long) i * SPAN_MS / events;
                if (time >= nextCapacity) {
                    for (int n = 0; n < nodes; n++) {
                        CapacityEvent c = new CapacityEvent("bench", names[n], 400L + n, 1000L, "r" + (n % 3), List.of(),
                                Instant.ofEpochMilli(time));
                        producer.send(new ProducerRecord<>(topics.nodeCapacity(), null, time, keys[n],
                                capacitySerde.serializer().serialize(topics.nodeCapacity(), c)));
                    }
                    nextCapacity += 10_000;
                }
                int n = random.nextInt(nodes + 4);
                n = n >= nodes ? 0 : n; // node 0 is hot
                int slot = random.nextInt(SLOTS);
                WriteEvent w = new WriteEvent("bench", names[n], slot, 1024L + random.nextInt(8192), 1L, Instant.ofEpochMilli(time));
                producer.send(new ProducerRecord<>(topics.nodeWrites(), null, time, keys[n],
                        writeSerde.serializer().serialize(topics.nodeWrites(), w)));
            }
            producer.flush();
        }
        return events;
    }

    private static double plainConsumer(EmbeddedKafka kafka, Topics topics, SchemaRegistrySerde<WriteEvent> serde,
            int events) {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = consumer.partitionsFor(topics.nodeWrites()).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).collect(Collectors.toList());
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            long read = 0;
            long checksum = 0;
            long start = System.nanoTime();
            while (read < events) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    WriteEvent e = serde.deserializer().deserialize(r.topic(), r.headers(), r.value());
                    checksum += e.getBytes();
                    read++;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            if (checksum == 42) {
                System.out.println("(checksum keeps the decode alive)");
            }
            return read / seconds;
        }
    }

    private static boolean caughtUp(EmbeddedKafka kafka, String group, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, Long> committed = kafka.committedOffsets(group);
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            if (e.getValue() > 0 && committed.getOrDefault(e.getKey(), 0L) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
