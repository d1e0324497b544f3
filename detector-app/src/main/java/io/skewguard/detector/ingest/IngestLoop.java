package io.skewguard.detector.ingest;

import io.skewguard.detector.DetectorSettings;
import io.skewguard.detector.policy.InputCheck;
import io.skewguard.runtime.state.StateLimits;
import io.skewguard.detector.stream.PartialHeat;
import io.skewguard.detector.stream.StateCodec;
import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.Topics;
import io.skewguard.schemas.WriteEvent;
import io.skewguard.schemas.serde.RegistryUnavailableException;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import io.skewguard.runtime.metrics.DeadLetterCounter;
import io.skewguard.runtime.metrics.InputLag;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stage one of the running detector on the plain clients, exactly-once: a {@link KafkaConsumer}
 * in group {@code <application-id>-ingest} ({@code read_committed}, no auto commit) on
 * node-writes and node-capacity feeds one {@link IngestBuffer} per input partition number; a transactional
 * {@link KafkaProducer} hands what it yields on.
 *
 * <p>The unit of work is one transaction: flush every cluster buffer → send the partials (to
 * {@code <application-id>-partials}, keyed by cluster, read by stage two) and the dead letters →
 * {@code sendOffsetsToTransaction(offsets consumed, groupMetadata)} → commit. So heat reaches
 * stage two exactly when the offsets of the records it came from are committed. It runs
 * <ul>
 *   <li>every {@code flush-interval} of wall-clock time when anything was read;
 *   <li>sooner, once {@code commit-interval} has passed, when the buffer has output of its own
 *       (a partial handed on because a newer tick bucket opened, or a dead letter);
 *   <li>when partitions are revoked (before they are given up) and on {@link #stop()}.
 * </ul>
 *
 * <p>Records are taken in timestamp order across the assigned partitions (as Kafka Streams does
 * within a task), and each input partition number has its own buffer and per-cluster stream
 * times, so a partition read ahead of the others — catching up after downtime, a small topic such
 * as node-capacity fetched whole — makes no event late.
 *
 * <p>On an error the transaction is aborted, the buffer (stream times included) dropped, and the
 * consumer and producer are closed and created anew, so reading resumes from the committed offsets
 * and the new producer's {@code initTransactions()} fences the old epoch: nothing is lost and
 * nothing counted twice. As the Kafka producer documentation advises, {@link ProducerFencedException}
 * (another producer with this {@code transactional.id}) and authorisation / version errors are not
 * retried: the loop stops and reports the failure. Partitions <em>lost</em> (taken away without
 * revocation) are handled like an error: their records are read again by the new owner.
 */
public final class IngestLoop {

    private static final Logger LOG = LoggerFactory.getLogger(IngestLoop.class);
    private static final Duration RETRY_BACKOFF = Duration.ofSeconds(1);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);
    /** Longest wait for a partition with records on the broker before the others go on without it. */
    private static final Duration MAX_IDLE = Duration.ofMillis(500);
    private static final int PAUSE_AT = 4_000;
    private static final int RESUME_AT = 1_000;

    private final DetectorSettings settings;
    private final String name;
    private final String transactionalId;
    private final String partialsTopic;
    private final String dlqTopic;
    private final List<String> inputs;
    private final long flushNanos;
    private final long commitNanos;
    private final Duration pollTimeout;
    private final IngestMetrics metrics;
    private final Consumer<Throwable> onFailure;
    private final SchemaRegistrySerde<WriteEvent> writeSerde;
    private final SchemaRegistrySerde<CapacityEvent> capacitySerde;
    private final Serializer<PartialHeat> partialSerializer = StateCodec.partialSerde().serializer();
    private final InputCheck check;
    private final long tickMs;
    private final StateLimits limits;
    private final IngestBuffer.Sink sink;
    private final Thread thread;
    private final CountDownLatch done = new CountDownLatch(1);

    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile boolean stopping;
    private volatile boolean halting;
    private volatile boolean joined;
    private volatile Throwable failure;

    // loop thread only
    /**
     * One buffer per input partition number (node-writes-p with node-capacity-p, grouped as a Kafka
     * Streams task would): each keeps its own per-cluster stream time, so a partition read ahead of
     * the others (catching up, uneven partitions) does not make their events late. Indexed by the
     * partition number (null: none yet), so the look-up per record needs no map.
     */
    private IngestBuffer[] buffers = new IngestBuffer[0];
    /** Records fetched but not taken yet, per assigned partition (their offsets are not committed). */
    private final Map<TopicPartition, Lane> queues = new LinkedHashMap<>();
    /** {@link #queues}' values in its order, for the scan per record; null after any change of partitions (rebuilt at the next scan). */
    private Lane[] lanes;
    private long idleSince;
    private KafkaProducer<byte[], byte[]> producer;
    private final List<ProducerRecord<byte[], byte[]>> pending = new ArrayList<>();
    private final Map<TopicPartition, Long> positions = new HashMap<>();
    private boolean lost;
    private long lastCommit = System.nanoTime();
    /** While the registry cannot answer: nothing is taken before this System.nanoTime(). */
    private long registryRetryAt = System.nanoTime();
    private long registryWaitMs;
    private static final long FIRST_REGISTRY_WAIT_MS = 500;
    private static final long MAX_REGISTRY_WAIT_MS = 30_000;

    /**
     * @param instanceId this process's part of the {@code transactional.id}
     * @param index the loop's number within the process
     * @param onFailure told (from the loop's thread) when the loop stops on an error it cannot retry
     */
    public IngestLoop(DetectorSettings settings, String partialsTopic, String instanceId, int index,
            Consumer<Throwable> onFailure) {
        this.settings = settings;
        this.transactionalId = settings.applicationId() + "-ingest-" + instanceId + "-" + index;
        this.name = transactionalId; // unique per instance: client ids, thread and metric names
        this.partialsTopic = partialsTopic;
        Topics topics = settings.topics();
        this.dlqTopic = topics.dlq();
        this.inputs = List.of(topics.nodeWrites(), topics.nodeCapacity());
        this.flushNanos = settings.flushInterval().toNanos();
        this.commitNanos = settings.commitInterval().toNanos();
        this.pollTimeout = Duration.ofMillis(Math.max(1, Math.min(100, settings.flushInterval().toMillis())));
        this.metrics = new IngestMetrics(name, true);
        this.onFailure = onFailure;
        this.writeSerde = SchemaRegistrySerde.of(WriteEvent.class, settings.serdeConfig(), false);
        this.capacitySerde = SchemaRegistrySerde.of(CapacityEvent.class, settings.serdeConfig(), false);
        this.check = settings.inputCheck();
        this.tickMs = settings.tick().toMillis();
        this.limits = settings.limits();
        this.sink = new IngestBuffer.Sink() {
            @Override
            public void partial(PartialHeat p) {
                pending.add(new ProducerRecord<>(partialsTopic, null, Math.max(0, p.maxEventTime()),
                        p.cluster().getBytes(StandardCharsets.UTF_8), partialSerializer.serialize(partialsTopic, p)));
            }

            @Override
            public void deadLetter(IngestBuffer.DeadLetterOut d) {
                metrics.deadLetter();
                DeadLetterCounter.count(d.reason());
                pending.add(new ProducerRecord<>(dlqTopic, null, d.timestamp() >= 0 ? d.timestamp() : null,
                        d.key(), d.value(), d.headers()));
            }
        };
        this.thread = new Thread(this::run, name);
    }

    public String name() {
        return name;
    }

    public String transactionalId() {
        return transactionalId;
    }

    public IngestMetrics metrics() {
        return metrics;
    }

    public void start() {
        thread.start();
    }

    /** The metrics of the loop's consumer now (none while it has none), for {@link InputLag}. */
    public Map<MetricName, ? extends Metric> consumerMetrics() {
        KafkaConsumer<byte[], byte[]> c = consumer;
        return c == null ? Map.of() : c.metrics();
    }

    /** Whether the consumer has received its first assignment. */
    public boolean joined() {
        return joined;
    }

    /** Whether the loop is still running. */
    public boolean isAlive() {
        return thread.isAlive();
    }

    /** The error that stopped the loop, or null. */
    public Throwable failure() {
        return failure;
    }

    /**
     * Orderly stop: hands on what is buffered and commits it with the offsets read, then closes the
     * clients (the consumer leaves the group). Waits at most {@code timeout}; idempotent.
     */
    public boolean stop(Duration timeout) throws InterruptedException {
        stopping = true;
        wakeUp();
        return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Stops as a crash would: no flush and no commit, the clients abandoned with a zero close
     * timeout (the consumer stays in its group until its session times out). What was read since
     * the last commit is read again by whoever gets the partitions next. For tests of that path.
     */
    public boolean halt(Duration timeout) throws InterruptedException {
        halting = true;
        wakeUp();
        return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void wakeUp() {
        KafkaConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    private void run() {
        try {
            while (!stopping && !halting) {
                try {
                    if (consumer == null) {
                        open();
                    }
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout);
                    if (halting) {
                        break;
                    }
                    if (lost) {
                        throw new KafkaException("partitions lost without revocation; reading again from the committed offsets");
                    }
                    enqueue(records);
                    if (System.nanoTime() - registryRetryAt >= 0) {
                        metrics.ingested(processQueued());
                    }
                    if (commitDue()) {
                        commit();
                    }
                } catch (WakeupException e) {
                    // stop() or halt(): the loop condition decides
                } catch (KafkaException e) {
                    if (fatal(e)) {
                        throw e;
                    }
                    if (halting) {
                        break;
                    }
                    LOG.warn("{}: {}; aborting, dropping the buffer and reading again from the committed offsets",
                            name, e.toString());
                    recover();
                    if (!stopping) {
                        Thread.sleep(RETRY_BACKOFF.toMillis());
                    }
                }
            }
            if (halting) {
                abandon();
            } else {
                finish();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            abandon();
        } catch (Throwable t) {
            LOG.error("{}: stopped by an error that is not retried (e.g. another producer with transactional.id {})",
                    name, transactionalId, t);
            failure = t;
            abandon();
            onFailure.accept(t);
        } finally {
            writeSerde.close();
            capacitySerde.close();
            metrics.close();
            done.countDown();
        }
    }

    /**
     * Errors the Kafka producer documentation says not to retry with the same producer: another
     * producer took over this transactional.id, or the cluster refuses us. (Also when they come
     * wrapped, e.g. from the rebalance listener.)
     */
    private static boolean fatal(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ProducerFencedException || t instanceof FencedInstanceIdException
                    || t instanceof AuthenticationException || t instanceof AuthorizationException
                    || t instanceof UnsupportedVersionException || t instanceof ConfigException) {
                return true;
            }
        }
        return false;
    }

    private void open() {
        producer = new KafkaProducer<>(settings.ingestProducerProperties(transactionalId),
                new ByteArraySerializer(), new ByteArraySerializer());
        producer.initTransactions(); // fences an older epoch of this id and aborts its open transaction
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(settings.ingestConsumerProperties(name),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        consumer = c;
        if (stopping || halting) {
            c.wakeup(); // a stop() that came before the consumer existed
        }
        lost = false;
        lastCommit = System.nanoTime();
        c.subscribe(inputs, new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                // still the owner: hand on and commit what was read before giving them up
                if (!halting && !partitions.isEmpty() && dirty()) {
                    commit();
                }
                for (TopicPartition tp : partitions) {
                    if (tp.partition() < buffers.length) {
                        buffers[tp.partition()] = null; // empty now; its stream times go with the partition
                    }
                    queues.remove(tp); // not taken, not committed: read again by the next owner
                }
                lanes = null;
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                for (TopicPartition tp : partitions) {
                    queues.putIfAbsent(tp, new Lane(tp));
                }
                lanes = null;
                joined = true;
                LOG.info("{}: assigned {}", name, partitions);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                // no longer the owner: nothing may be committed for them; start again from the commits
                if (!partitions.isEmpty() && dirty()) {
                    lost = true;
                }
                partitions.forEach(queues::remove);
                lanes = null;
            }
        });
    }

    private void enqueue(ConsumerRecords<byte[], byte[]> records) {
        for (TopicPartition tp : records.partitions()) {
            Lane lane = queues.get(tp);
            if (lane == null) {
                continue; // not ours any more
            }
            ArrayDeque<ConsumerRecord<byte[], byte[]>> q = lane.records;
            q.addAll(records.records(tp));
            if (q.size() >= PAUSE_AT) {
                consumer.pause(List.of(tp));
            }
        }
    }

    /**
     * Takes the queued records in timestamp order across the assigned partitions, as Kafka Streams
     * does within a task: always the partition whose next record is the oldest. An empty partition
     * that still has records on the broker (lag unknown or above 0) holds processing back until they
     * are fetched, at most {@link #MAX_IDLE}; then the others go on without it.
     *
     * <p>One scan of the queues picks the partition and also finds the oldest head of the others: the
     * chosen partition's records are then taken while each is older than that head, which is the
     * partition a scan per record would pick (nothing is polled in between, so no other queue changes),
     * without scanning again. A tie with another head, or the queue running dry, scans again. The
     * scan runs over an array of the partitions ({@link Lane}); an empty queue's lag is asked once per call (it changes only
     * when the consumer polls), and the offsets taken are noted once per partition at the end.
     *
     * @return records taken
     */
    private int processQueued() {
        if (lanes == null) {
            lanes = queues.values().toArray(new Lane[0]);
        }
        for (Lane lane : lanes) {
            lane.startCall();
        }
        int count = 0;
        try {
            while (true) {
                Lane next = null;
                int nextIndex = -1;
                long oldest = Long.MAX_VALUE;
                long second = Long.MAX_VALUE; // the oldest head of the partitions not picked
                int secondIndex = -1; // the first of them (in lane order) with that head
                boolean waiting = false;
                for (int i = 0; i < lanes.length; i++) {
                    Lane lane = lanes[i];
                    if (lane.empty) {
                        waiting = waiting || lane.lagging(consumer);
                    } else if (lane.head < oldest) {
                        second = oldest;
                        secondIndex = nextIndex;
                        oldest = lane.head;
                        next = lane;
                        nextIndex = i;
                    } else if (lane.head < second) {
                        second = lane.head;
                        secondIndex = i;
                    }
                }
                if (next == null) {
                    idleSince = 0;
                    break;
                }
                if (waiting) {
                    long now = System.nanoTime();
                    if (idleSince == 0) {
                        idleSince = now;
                    }
                    if (now - idleSince < MAX_IDLE.toNanos()) {
                        break;
                    }
                } else {
                    idleSince = 0;
                }
                ArrayDeque<ConsumerRecord<byte[], byte[]>> q = next.records;
                IngestBuffer buffer = buffer(next.partition.partition());
                boolean registryDown = false;
                ConsumerRecord<byte[], byte[]> r = q.peekFirst();
                do {
                    try {
                        buffer.accept(r.topic(), r.partition(), r.offset(), r.key(), r.value(), r.timestamp(), r.headers());
                    } catch (RegistryUnavailableException e) {
                        waitForRegistry();
                        registryDown = true; // the record stays first in its queue, its offset uncommitted: taken again after the wait
                        break;
                    }
                    q.pollFirst();
                    registryWaitMs = 0;
                    next.taken = r.offset() + 1;
                    count++;
                    if (q.size() == RESUME_AT && consumer.paused().contains(next.partition)) {
                        consumer.resume(List.of(next.partition));
                    }
                    r = q.peekFirst();
                } while (r != null && pickedAgain(r.timestamp(), nextIndex, second, secondIndex));
                next.readHead(); // its head now (the scan reads no deque)
                if (registryDown) {
                    break;
                }
            }
        } finally {
            for (Lane lane : lanes) {
                if (lane.taken >= 0) {
                    positions.put(lane.partition, lane.taken); // once per partition and call, not per record
                }
            }
        }
        return count;
    }

    /**
     * Whether the scan of {@link #processQueued} would pick lane {@code lane} again with a head of
     * {@code timestamp}, when the oldest head of the other lanes is {@code second} and {@code
     * secondLane} is the first lane (in scan order) with that head: the head is older, or as old and
     * this lane comes first (ties go to the earlier lane). So a run of one partition's records is taken
     * in the order a scan per record would take them. Records of one millisecond lie in many
     * partitions; without the tie rule a run would end after each of them.
     */
    static boolean pickedAgain(long timestamp, int lane, long second, int secondLane) {
        return timestamp < second || (timestamp == second && lane < secondLane);
    }

    /**
     * One assigned partition: its records fetched but not taken yet, and what one {@link #processQueued}
     * call keeps of it (its head's timestamp, its lag, the offset after the last record it took).
     */
    private static final class Lane {
        final TopicPartition partition;
        final ArrayDeque<ConsumerRecord<byte[], byte[]>> records = new ArrayDeque<>();
        boolean empty;
        long head;
        /** 0 not asked in this call, 1 records on the broker not fetched yet (or unknown), 2 none. */
        byte lag;
        long taken;

        Lane(TopicPartition partition) {
            this.partition = partition;
        }

        void startCall() {
            lag = 0; // a lag changes only when the consumer polls, so it is asked once per call
            taken = -1;
            readHead();
        }

        void readHead() {
            ConsumerRecord<byte[], byte[]> first = records.peekFirst();
            empty = first == null;
            head = first == null ? 0 : first.timestamp();
        }

        boolean lagging(KafkaConsumer<byte[], byte[]> consumer) {
            if (lag == 0) {
                OptionalLong l = consumer.currentLag(partition);
                lag = l.isEmpty() || l.getAsLong() > 0 ? (byte) 1 : (byte) 2;
            }
            return lag == 1;
        }
    }

    /**
     * The registry could not give a record's schema: nothing is taken from the queues until the wait
     * is over (polling goes on, so the consumer stays in its group, and stop() wakes it; full queues
     * pause their partitions). The registry client logs the outage once, and its end.
     */
    private void waitForRegistry() {
        registryWaitMs = registryWaitMs == 0 ? FIRST_REGISTRY_WAIT_MS : Math.min(MAX_REGISTRY_WAIT_MS, registryWaitMs * 2);
        registryRetryAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(registryWaitMs);
        idleSince = 0;
    }

    private IngestBuffer buffer(int partition) {
        IngestBuffer b = partition < buffers.length ? buffers[partition] : null;
        if (b == null) {
            b = new IngestBuffer(inputs.get(0), inputs.get(1), writeSerde.deserializer(), capacitySerde.deserializer(),
                    check, tickMs, sink, Clock.systemUTC(), limits);
            if (partition >= buffers.length) {
                buffers = Arrays.copyOf(buffers, partition + 1);
            }
            buffers[partition] = b;
        }
        return b;
    }

    private boolean dirty() {
        if (!positions.isEmpty() || !pending.isEmpty()) {
            return true;
        }
        for (IngestBuffer b : buffers) {
            if (b != null && b.clustersHeld() > 0) {
                return true;
            }
        }
        return false;
    }

    private boolean commitDue() {
        if (positions.isEmpty() && pending.isEmpty()) {
            return false;
        }
        long since = System.nanoTime() - lastCommit;
        return since >= flushNanos || (!pending.isEmpty() && since >= commitNanos);
    }

    /** One transaction: everything buffered, the dead letters, and the offsets they came from. */
    private void commit() {
        for (IngestBuffer b : buffers) {
            if (b != null) {
                b.flushAll();
            }
        }
        if (!pending.isEmpty() || !positions.isEmpty()) {
            producer.beginTransaction();
            for (ProducerRecord<byte[], byte[]> r : pending) {
                producer.send(r); // a failed send makes commitTransaction throw
            }
            if (!positions.isEmpty()) {
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                positions.forEach((tp, next) -> offsets.put(tp, new OffsetAndMetadata(next)));
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            }
            producer.commitTransaction();
            metrics.committed();
            pending.clear();
            positions.clear();
        }
        lastCommit = System.nanoTime();
    }

    /** After an error: abort, forget what was read since the last commit, start the clients afresh. */
    private void recover() {
        metrics.aborted();
        if (producer != null) {
            try {
                producer.abortTransaction();
            } catch (KafkaException | IllegalStateException e) {
                // no transaction open, or the producer is unusable: closing it is enough, the next
                // initTransactions() of this transactional.id aborts whatever is open
                LOG.debug("{}: abort: {}", name, e.toString());
            }
        }
        dropState();
        closeClients(Duration.ZERO, CLOSE_TIMEOUT);
    }

    private void dropState() {
        buffers = new IngestBuffer[0];
        queues.clear(); // a new consumer is assigned afresh
        lanes = null;
        idleSince = 0;
        pending.clear();
        positions.clear();
        lost = false;
    }

    private void finish() {
        if (consumer != null) {
            try {
                if (!lost && dirty()) {
                    commit();
                }
                LOG.info("{}: stopped after its last commit", name);
            } catch (KafkaException e) {
                LOG.warn("{}: last commit failed ({}); what was read since the previous one is read again "
                        + "by the next owner of the partitions", name, e.toString());
                try {
                    producer.abortTransaction();
                } catch (KafkaException | IllegalStateException ignored) {
                    // closing aborts too
                }
            }
        }
        dropState();
        closeClients(CLOSE_TIMEOUT, CLOSE_TIMEOUT);
    }

    private void abandon() {
        dropState();
        KafkaConsumer<byte[], byte[]> c = consumer;
        consumer = null;
        if (c != null) {
            try {
                c.close(CloseOptions.timeout(Duration.ZERO)
                        .withGroupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP));
            } catch (RuntimeException e) {
                LOG.debug("{}: consumer close: {}", name, e.toString());
            }
        }
        if (producer != null) {
            try {
                producer.close(Duration.ZERO);
            } catch (RuntimeException e) {
                LOG.debug("{}: producer close: {}", name, e.toString());
            }
            producer = null;
        }
    }

    private void closeClients(Duration producerTimeout, Duration consumerTimeout) {
        KafkaConsumer<byte[], byte[]> c = consumer;
        consumer = null;
        if (c != null) {
            try {
                c.close(CloseOptions.timeout(consumerTimeout));
            } catch (RuntimeException e) {
                LOG.debug("{}: consumer close: {}", name, e.toString());
            }
        }
        if (producer != null) {
            try {
                producer.close(producerTimeout);
            } catch (RuntimeException e) {
                LOG.debug("{}: producer close: {}", name, e.toString());
            }
            producer = null;
        }
    }
}
