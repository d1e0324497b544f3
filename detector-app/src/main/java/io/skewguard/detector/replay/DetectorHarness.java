package io.skewguard.detector.replay;

import io.skewguard.detector.DetectorSettings;
import io.skewguard.detector.DetectorTopology;
import io.skewguard.detector.ingest.IngestBuffer;
import io.skewguard.detector.ingest.IngestMetrics;
import io.skewguard.detector.stream.PartialHeat;
import io.skewguard.detector.stream.StateCodec;
import io.skewguard.runtime.streams.DeadLetters;
import io.skewguard.runtime.streams.PoisonPills;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.SkewAlert;
import io.skewguard.schemas.SkewReport;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.MockSchemaRegistry;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The detector's very logic driven without a broker: stage one is the app's own
 * {@link IngestBuffer} (what {@link io.skewguard.detector.ingest.IngestLoop} runs), whose partials
 * are piped into stage two, the app's own topology ({@link DetectorTopology#build}), in Kafka
 * Streams' {@link TopologyTestDriver}. Feed events, read the reports, alerts and dead letters they
 * caused. For replaying JSON-lines files ({@code detector replay}) and for users'
 * own JUnit scenarios:
 *
 * <pre>{@code
 * try (DetectorHarness h = new DetectorHarness(DetectorSettings.defaultSettings())) {
 *     h.capacity("c1", "n1", 500, 1000, null, t0);
 *     h.write("c1", "n1", 12, 4096, 1, t0);
 *     h.advanceTo("c1", t0 + 60_000);
 *     assertThat(h.reports()).isNotEmpty();
 * }
 * }</pre>
 *
 * Every harness uses its own in-process schema registry scope. Inputs are sent as the Confluent
 * wire format a producer would write, keyed by node, as if read from partition 0 of their topic
 * (offsets counting from 0). After every input the harness flushes the ingest buffer, so stage one
 * hands each event on at once: results depend on the events alone, never on timing. Only the
 * transport differs from the app: no Kafka transaction, no partials topic on a broker.
 *
 * <p>"This process's clock", which bounds event times from above (docs/detector.md, "Event time"),
 * is the harness's {@link Clock}: the system clock unless one is given (a simulation passes its
 * simulated clock). Stage one reads it per event, and the test driver's wall clock, stage two's
 * clock, is moved along with it. Events no later than the clock, as in any recorded file, give the
 * same results whatever it says.
 */
public final class DetectorHarness implements AutoCloseable {

    /** A dead-lettered record: original key and value, and where it came from and why. */
    public record DeadLetterRecord(byte[] key, byte[] value, DeadLetter letter) {}

    /** A report or an alert, in the order the detector produced them. */
    public sealed interface Output permits ReportOutput, AlertOutput {}

    public record ReportOutput(SkewReport report) implements Output {}

    public record AlertOutput(SkewAlert alert) implements Output {}

    /** A zero-byte write from this node only moves a cluster's stream time; it counts nowhere. */
    public static final String CLOCK_NODE = "harness-clock";

    private final DetectorSettings settings;
    /** The settings' topics, made once: their names are compared and hashed for every record. */
    private final Topics topics;
    /** The two input topics' names, made once: each record's topic is compared with them and hashed. */
    private final String writesTopic;
    private final String capacityTopic;
    private final String registryScope;
    private final Path stateDir;
    private final TopologyTestDriver driver;
    private final SchemaRegistrySerde<WriteEvent> writeSerde;
    private final SchemaRegistrySerde<CapacityEvent> capacitySerde;
    private final SchemaRegistrySerde<SkewReport> reportSerde;
    private final SchemaRegistrySerde<SkewAlert> alertSerde;
    private final IngestBuffer ingest;
    private final Clock clock;
    private long driverClock;
    private final IngestMetrics ingestMetrics;
    private final TestInputTopic<String, PartialHeat> partials;
    private final TestOutputTopic<String, SkewReport> reports;
    private final TestOutputTopic<String, SkewAlert> alerts;
    private long writesOffset;
    private long capacitiesOffset;
    private final List<SkewReport> reportLog = new ArrayList<>();
    private final List<SkewAlert> alertLog = new ArrayList<>();
    private final List<DeadLetterRecord> deadLetterLog = new ArrayList<>();
    private final List<Output> pending = new ArrayList<>();
    private final Map<String, TestOutputTopic<byte[], byte[]>> internal = new java.util.HashMap<>();
    private boolean keepHistory = true;

    /** A harness running the detector of {@code settings} (its registry URL is replaced) on the system clock. */
    public DetectorHarness(DetectorSettings settings) {
        this(settings, Clock.systemUTC());
    }

    /** A harness running the detector of {@code settings} with {@code clock} as this process's clock. */
    public DetectorHarness(DetectorSettings settings, Clock clock) {
        this(settings, clock, true);
    }

    /**
     * As {@link #DetectorHarness(DetectorSettings, Clock)}, stage two's stores changelogged or not
     * ({@link DetectorTopology#build(DetectorSettings, boolean)}): a harness never restarts its
     * topology, so the changelogs only cost time; the simulator's fast mode runs without them.
     */
    public DetectorHarness(DetectorSettings settings, Clock clock, boolean changelogs) {
        this.clock = clock;
        this.driverClock = clock.millis();
        this.registryScope = "detector-harness-" + UUID.randomUUID();
        this.settings = settings.with(Map.of(DetectorSettings.SCHEMA_REGISTRY_URL, "mock://" + registryScope));
        this.topics = this.settings.topics();
        this.writesTopic = topics.nodeWrites();
        this.capacityTopic = topics.nodeCapacity();
        try {
            this.stateDir = Files.createTempDirectory("skewguard-detector-harness");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Properties props = this.settings.streamsProperties();
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        // stage two's poison pills join stage one's dead letters, as in the app's dead-letter topic
        PoisonPills.writingTo(props, new DeadLetters(topics.dlq(), letter -> deadLetterLog.add(
                new DeadLetterRecord(letter.key(), letter.value(), DeadLetter.fromHeaders(letter.headers())))));
        this.driver = new TopologyTestDriver(DetectorTopology.build(this.settings, changelogs), props, Instant.ofEpochMilli(driverClock));
        EmptyCheckpoints.skipDeletes(driver); // with changelogs the checkpoint is written as Kafka writes it
        Map<String, Object> serdeConfig = this.settings.serdeConfig();
        this.writeSerde = SchemaRegistrySerde.of(WriteEvent.class, serdeConfig, false);
        this.capacitySerde = SchemaRegistrySerde.of(CapacityEvent.class, serdeConfig, false);
        this.reportSerde = SchemaRegistrySerde.of(SkewReport.class, serdeConfig, false);
        this.alertSerde = SchemaRegistrySerde.of(SkewAlert.class, serdeConfig, false);
        this.partials = driver.createInputTopic(this.settings.partialsTopic(), new StringSerializer(),
                StateCodec.partialSerde().serializer());
        this.reports = driver.createOutputTopic(topics.reports(), new StringDeserializer(), reportSerde.deserializer());
        this.alerts = driver.createOutputTopic(topics.alerts(), new StringDeserializer(), alertSerde.deserializer());
        this.ingestMetrics = new IngestMetrics("harness", false);
        this.ingest = new IngestBuffer(writesTopic, capacityTopic, writeSerde.deserializer(),
                capacitySerde.deserializer(), this.settings.inputCheck(), this.settings.tick().toMillis(),
                new IngestBuffer.Sink() {
                    @Override
                    public void partial(PartialHeat p) {
                        followClock();
                        partials.pipeInput(new TestRecord<>(p.cluster(), p, Instant.ofEpochMilli(Math.max(0, p.maxEventTime()))));
                    }

                    @Override
                    public void deadLetter(IngestBuffer.DeadLetterOut d) {
                        ingestMetrics.deadLetter();
                        deadLetterLog.add(new DeadLetterRecord(d.key(), d.value(), DeadLetter.fromHeaders(d.headers())));
                    }
                }, clock, this.settings.limits());
    }

    /** Moves stage two's clock (the driver's wall clock) to the harness's clock; it never goes back. */
    private void followClock() {
        long now = clock.millis();
        if (now > driverClock) {
            driver.advanceWallClockTime(Duration.ofMillis(now - driverClock));
            driverClock = now;
        }
    }

    public DetectorSettings settings() {
        return settings;
    }

    /** Every topic stage two has written to so far: its outputs and, with changelogs, theirs. */
    public java.util.Set<String> producedTopicNames() {
        return driver.producedTopicNames();
    }

    /**
     * For long runs (a simulation's weeks of ticks): from now on {@link #reports()} and
     * {@link #alerts()} no longer keep every output; {@link #takeOutputs()} still hands each one on.
     */
    public DetectorHarness withoutHistory() {
        keepHistory = false;
        reportLog.clear();
        alertLog.clear();
        return this;
    }

    /** Sends a write event of {@code bytes} to {@code node}'s slot {@code slot} at event time {@code time}. */
    public DetectorHarness write(String cluster, String node, int slot, long bytes, long ops, long time) {
        return send(new WriteEvent(cluster, node, slot, bytes, ops, Instant.ofEpochMilli(time)));
    }

    /** Sends a capacity report without per-shard figures. */
    public DetectorHarness capacity(String cluster, String node, long used, long total, String rack, long time) {
        return send(new CapacityEvent(cluster, node, used, total, rack, List.of(), Instant.ofEpochMilli(time)));
    }

    /** Sends a capacity report with per-shard used bytes. */
    public DetectorHarness capacity(String cluster, String node, long used, long total, String rack,
            List<ShardUsage> shards, long time) {
        return send(new CapacityEvent(cluster, node, used, total, rack, shards, Instant.ofEpochMilli(time)));
    }

    /** Moves {@code cluster}'s stream time to {@code time} with a zero-byte write from {@link #CLOCK_NODE}. */
    public DetectorHarness advanceTo(String cluster, long time) {
        return write(cluster, CLOCK_NODE, 0, 0, 0, time);
    }

    public DetectorHarness send(WriteEvent e) {
        return sendRawWrite(key(e.getNode()), writeSerde.serializer().serialize(writesTopic, e),
                e.getEventTime().toEpochMilli());
    }

    public DetectorHarness send(CapacityEvent e) {
        return sendRawCapacity(key(e.getNode()),
                capacitySerde.serializer().serialize(capacityTopic, e), e.getEventTime().toEpochMilli());
    }

    /**
     * Sends every event, in order, then flushes stage one once — as the app's ingest loop does with
     * the records of one poll — instead of after each event: for simulations that feed thousands of
     * events per step. Stage one still flushes a cluster on its own when an event opens a newer tick,
     * exactly as in the app. Accepts {@link WriteEvent}s and {@link CapacityEvent}s.
     *
     * @throws IllegalArgumentException for any other kind of record (nothing is sent)
     */
    public DetectorHarness sendAll(List<? extends SpecificRecord> events) {
        for (SpecificRecord e : events) {
            if (!(e instanceof WriteEvent) && !(e instanceof CapacityEvent)) {
                throw new IllegalArgumentException("the detector reads WriteEvent and CapacityEvent, not "
                        + (e == null ? "null" : e.getClass().getSimpleName()));
            }
        }
        List<Encoded> encoded = new ArrayList<>(events.size());
        for (SpecificRecord e : events) {
            encoded.add(e instanceof WriteEvent w ? encoded(w) : encoded((CapacityEvent) e));
        }
        return sendEncoded(encoded);
    }

    /**
     * One node's record as this harness's producer writes it: the topic, the record key (the node id's
     * bytes), the wire-format value and the record timestamp (the event time, never negative). A
     * simulation that hands the same capacity report to the detector and to another app encodes it once.
     */
    public record Encoded(String topic, byte[] key, byte[] value, long timestamp) {}

    /** The headers of every encoded record: none, and none can be added (one instance, not one per record). */
    private static final RecordHeaders NO_HEADERS = readOnlyEmpty();

    private static RecordHeaders readOnlyEmpty() {
        RecordHeaders headers = new RecordHeaders();
        headers.setReadOnly();
        return headers;
    }

    /** {@code e} encoded for the writes topic. */
    public Encoded encoded(WriteEvent e) {
        return new Encoded(writesTopic, key(e.getNode()), writeSerde.serializer().serialize(writesTopic, e),
                Math.max(0, e.getEventTime().toEpochMilli()));
    }

    /** {@code e} encoded for the capacity topic. */
    public Encoded encoded(CapacityEvent e) {
        return new Encoded(capacityTopic, key(e.getNode()), capacitySerde.serializer().serialize(capacityTopic, e),
                Math.max(0, e.getEventTime().toEpochMilli()));
    }

    /**
     * As {@link #sendAll}, for records already encoded ({@link #encoded}): every one in order into stage
     * one, then one flush.
     *
     * @throws IllegalArgumentException for a record of a topic the detector does not read (nothing is sent)
     */
    public DetectorHarness sendEncoded(List<Encoded> records) {
        for (Encoded r : records) {
            if (!r.topic().equals(writesTopic) && !r.topic().equals(capacityTopic)) {
                throw new IllegalArgumentException("the detector reads " + writesTopic + " and " + capacityTopic + ", not " + r.topic());
            }
        }
        ingest.readClockAgain(); // the caller may have moved the clock since the last send
        for (Encoded r : records) {
            boolean write = r.topic().equals(writesTopic);
            ingest.accept(write ? writesTopic : capacityTopic, 0, write ? writesOffset++ : capacitiesOffset++, r.key(), r.value(),
                    r.timestamp(), NO_HEADERS);
        }
        return settle();
    }

    /** Sends bytes as they are to the writes topic (to exercise the dead-letter path). */
    public DetectorHarness sendRawWrite(byte[] key, byte[] value, long timestamp) {
        ingest.readClockAgain();
        ingest.accept(writesTopic, 0, writesOffset++, key, value, Math.max(0, timestamp),
                new RecordHeaders());
        return settle();
    }

    /** Sends bytes as they are to the capacity topic. */
    public DetectorHarness sendRawCapacity(byte[] key, byte[] value, long timestamp) {
        ingest.readClockAgain();
        ingest.accept(capacityTopic, 0, capacitiesOffset++, key, value, Math.max(0, timestamp),
                new RecordHeaders());
        return settle();
    }

    /** The wire bytes of a write event as this harness's producer would write them. */
    public byte[] encode(WriteEvent e) {
        return writeSerde.serializer().serialize(writesTopic, e);
    }

    /** Every report so far, in order. */
    /** Number of entries in stage two's state store {@code name}. */
    public int storeSize(String name) {
        int n = 0;
        try (var it = driver.getKeyValueStore(name).all()) {
            while (it.hasNext()) {
                it.next();
                n++;
            }
        }
        return n;
    }

    public List<SkewReport> reports() {
        drain();
        return List.copyOf(reportLog);
    }

    /** The reports of one cluster so far, in order. */
    public List<SkewReport> reports(String cluster) {
        return reports().stream().filter(r -> r.getCluster().equals(cluster)).toList();
    }

    /** Every alert transition so far, in order. */
    public List<SkewAlert> alerts() {
        drain();
        return List.copyOf(alertLog);
    }

    /** Every dead letter so far, in order. */
    public List<DeadLetterRecord> deadLetters() {
        drain();
        return List.copyOf(deadLetterLog);
    }

    /** Reports and alerts produced since the last call, alerts of a tick before its report. */
    public List<Output> takeOutputs() {
        drain();
        List<Output> out = List.copyOf(pending);
        pending.clear();
        return out;
    }

    /**
     * The sum of a detector metric over stage two's tasks and stage one, e.g.
     * {@code dead-letter-total} or {@code late-heat-dropped-total}.
     */
    public double metric(String name) {
        double sum = ingestMetrics.value(name);
        for (Map.Entry<MetricName, ? extends Metric> e : driver.metrics().entrySet()) {
            if (e.getKey().name().equals(name) && e.getKey().group().contains("skewguard-detector")) {
                sum += ((Number) e.getValue().metricValue()).doubleValue();
            }
        }
        return sum;
    }

    private DetectorHarness settle() {
        ingest.flushAll();
        drain();
        return this;
    }

    private void drain() {
        List<SkewReport> newReports = reports.readValuesToList();
        List<SkewAlert> newAlerts = alerts.readValuesToList();
        if (keepHistory) {
            reportLog.addAll(newReports);
            alertLog.addAll(newAlerts);
        }
        // the driver keeps every record produced to a topic nobody reads (the stores' changelogs):
        // read them away, or a long run holds its whole changelog in memory
        for (String topic : driver.producedTopicNames()) {
            if (!topic.equals(topics.reports()) && !topic.equals(topics.alerts())) {
                internal.computeIfAbsent(topic, t -> driver.createOutputTopic(t, new ByteArrayDeserializer(),
                        new ByteArrayDeserializer())).readRecordsToList();
            }
        }
        // the two topics are separate queues: put each tick's alerts before its report
        Stream.concat(newAlerts.stream().map(a -> (Output) new AlertOutput(a)),
                        newReports.stream().map(r -> (Output) new ReportOutput(r)))
                .sorted(Comparator.comparingLong(DetectorHarness::time).thenComparing(DetectorHarness::cluster)
                        .thenComparingInt(o -> o instanceof AlertOutput ? 0 : 1))
                .forEach(pending::add);
    }

    private static long time(Output o) {
        return o instanceof ReportOutput r
                ? r.report().getWindowEnd().toEpochMilli()
                : ((AlertOutput) o).alert().getEventTime().toEpochMilli();
    }

    private static String cluster(Output o) {
        return o instanceof ReportOutput r ? r.report().getCluster() : ((AlertOutput) o).alert().getCluster();
    }

    private static byte[] key(String node) {
        return node == null ? null : node.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        try {
            driver.close();
        } finally {
            writeSerde.close();
            capacitySerde.close();
            reportSerde.close();
            alertSerde.close();
            ingestMetrics.close();
            MockSchemaRegistry.drop(registryScope);
            deleteQuietly(stateDir);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp dir left behind is harmless
        }
    }
}
