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
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
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
 *   <li>at once when a backlog of {@link #BACKLOG} or more records has just been worked off (every
 *       partition caught up, every record polled taken; at most once per {@code flush-interval}:
 *       {@link #caughtUpAfterBacklog});
 *   <li>when partitions are revoked (before they are given up) and on {@link #stop()};
 *   <li>with other loops in the process, as their {@link LoopPace} asks (below).
 * </ul>
 *
 * <p>Records are taken in timestamp order across the assigned partitions (as Kafka Streams does
 * within a task), and each input partition number has its own buffer and per-cluster stream
 * times, so a partition read ahead of the others — catching up after downtime, a small topic such
 * as node-capacity fetched whole — makes no event late. With other loops in the process, a loop
 * also takes no record more than the {@link LoopPace}'s lead (half the grace period) past the other
 * loops' floors, and publishes its own floor after each take and commit, so that stage two's stream
 * time never runs ahead of heat another loop still holds.
 *
 * <p><b>Two threads, or one</b> ({@code ingest-take-thread}, on by default). With the setting off the
 * loop's own thread does everything: after each poll it takes what the poll brought, then polls again.
 * With it on, the loop's own thread owns the clients: it polls, pauses and resumes
 * partitions, commits and handles the rebalances. A second thread of the loop's, the taker, takes the
 * fetched records (decodes, checks and sums them into the buffers) while the loop's thread polls the
 * next ones, so a loop uses two cores. Each poll's records go to the taker with what it needs of the
 * consumer, each partition's lag as of that poll ({@link Fetched}). The queues, the buffers and
 * what they hand on are guarded by one lock: the taker holds it while it takes, and the loop's
 * thread takes it to commit (it moves what is buffered into the transaction under the lock and
 * talks to the broker without it), in every rebalance callback (where it first hands the taker's
 * queues every poll the taker has not seen yet, so none outlives its partition) and to recover or
 * stop. The records are taken in the order, and committed with the offsets, one thread would take
 * and commit them. A partition is paused while {@link #PAUSE_AT} or more of its records wait to be
 * taken, until {@link #RESUME_AT} are left; the taker wakes the loop's thread's poll to resume it
 * while those are taken ({@link #pauseOrResume}).
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
    /** Longest wait for an empty partition whose lag the consumer does not know after its first records, before the others go on without it. */
    private static final Duration MAX_IDLE = Duration.ofMillis(500);
    /** The poll timeout while the other loops hold this one back ({@link LoopPace}): it takes again after each poll. */
    private static final Duration PACE_POLL = Duration.ofMillis(5);
    private static final int PAUSE_AT = 10_000;
    private static final int RESUME_AT = 5_000;
    /** Records behind (on the broker, or fetched and not taken) at which the loop counts as working off a backlog ({@link #caughtUpAfterBacklog}). */
    static final long BACKLOG = 10_000;

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
    private final LoopPace.Member pace;
    private final Thread thread;
    private final CountDownLatch done = new CountDownLatch(1);
    /** The taker: takes the fetched records (see the class comment); started only with {@code ingest-take-thread}. */
    private final Thread takerThread;
    private final boolean takeThread;
    /** Polls the taker has not seen yet, oldest first; put by the loop's thread only. */
    private final LinkedBlockingQueue<Fetched> fetched = new LinkedBlockingQueue<>();
    /** Guards what the taker works on (see the class comment); fair, so a commit waits for one take at most. */
    private final ReentrantLock lock = new ReentrantLock(true);
    private volatile boolean takerStopping;
    /** An error of the taker, thrown on the loop's thread after its next poll. */
    private volatile RuntimeException takerFailure;
    /** Set by the taker after each take: 1 offsets taken, 2 partials or dead letters to hand on, since the last commit. */
    private volatile int output;

    private volatile KafkaConsumer<byte[], byte[]> consumer;
    private volatile boolean stopping;
    private volatile boolean halting;
    private volatile boolean joined;
    private volatile Throwable failure;

    // the loop's thread's only
    /** Per assigned partition: its records polled and not taken yet (the taker counts down what it takes). */
    private final Map<TopicPartition, AtomicInteger> untaken = new HashMap<>();
    /** Partitions paused because {@link #PAUSE_AT} of their records wait; the taker reads it to wake the consumer when one drained. */
    private final Set<TopicPartition> backlogged = ConcurrentHashMap.newKeySet();
    /** Partitions the consumer has paused: the backlogged ones, or all of them (see {@link #pauseOrResume}). */
    private final Set<TopicPartition> paused = new HashSet<>();
    /** The partitions with no records left on the broker after the last poll (lag known and 0), as {@link #handOn} read them. */
    private Set<TopicPartition> caughtUp = Set.of();
    /** Set by the taker when it woke the consumer to resume a partition; cleared by the loop's thread. */
    private final AtomicBoolean resumeWanted = new AtomicBoolean();
    /** Whether the loop was {@link #BACKLOG} or more records behind after a poll since its last commit. */
    private boolean behind;
    /** When (System.nanoTime()) the loop last committed at the end of a backlog: at most once per {@code flush-interval}. */
    private long backlogCommitAt;

    // guarded by lock
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
    private volatile boolean lost;
    /** Oldest record time taken since the buffers were last moved into a transaction ({@link LoopPace#NONE}: none). */
    private long takenMin = LoopPace.NONE;
    /**
     * Oldest record time of the transaction being sent, until it is committed ({@link LoopPace#NONE}:
     * none). Set under the lock; cleared by the loop's thread after the commit without it, so that a
     * commit never waits for a take: the next take publishes the floor it raises.
     */
    private volatile long sendingMin = LoopPace.NONE;
    /** Whether this loop has an assignment its floor can be computed from (not before the first, nor after a recovery). */
    private boolean paceKnown;
    /** Set by a take that stopped at {@link LoopPace.Member#limit}: the loop then commits and polls again soon. */
    private volatile boolean paceHeld;
    /** Newest record time taken since the buffers were last moved into a transaction. */
    private long takenMax = LoopPace.UNKNOWN;
    /**
     * Set by a take after which this loop commits so that its floor, which may hold the others back,
     * follows it: its records taken and not committed span half the lead, or it is held back itself
     * while its oldest of them is no newer than the others' floors.
     */
    private volatile boolean paceCommit;
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
        this(settings, partialsTopic, instanceId, index, LoopPace.alone(), onFailure);
    }

    /**
     * @param pace shared by the loops of this process: keeps this one within its lead of the others
     */
    public IngestLoop(DetectorSettings settings, String partialsTopic, String instanceId, int index,
            LoopPace pace, Consumer<Throwable> onFailure) {
        this.settings = settings;
        this.pace = pace.join();
        this.transactionalId = settings.applicationId() + "-ingest-" + instanceId + "-" + index;
        this.name = transactionalId; // unique per instance: client ids, thread and metric names
        this.partialsTopic = partialsTopic;
        Topics topics = settings.topics();
        this.dlqTopic = topics.dlq();
        this.inputs = List.of(topics.nodeWrites(), topics.nodeCapacity());
        this.flushNanos = settings.flushInterval().toNanos();
        this.commitNanos = settings.commitInterval().toNanos();
        this.backlogCommitAt = System.nanoTime() - flushNanos;
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
        this.takerThread = new Thread(this::take, name + "-take");
        this.takerThread.setDaemon(true);
        this.takeThread = settings.ingestTakeThread();
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
        if (takeThread) {
            takerThread.start();
        }
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
                    pauseOrResume();
                    // the taker takes meanwhile; held back by the other loops, look again soon
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(paceHeld ? PACE_POLL : pollTimeout);
                    if (halting) {
                        break;
                    }
                    RuntimeException takerError = takerFailure;
                    if (takerError != null) {
                        takerFailure = null;
                        throw takerError;
                    }
                    if (lost) {
                        throw new KafkaException("partitions lost without revocation; reading again from the committed offsets");
                    }
                    handOn(records);
                    if (commitDue() || paceCommit && output != 0) {
                        commit(); // raises this loop's floor, which may be what holds the others back
                    } else if (caughtUpAfterBacklog()) {
                        commit();
                        backlogCommitAt = System.nanoTime();
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
            stopTaker();
            pace.leave();
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
                lock.lock();
                try {
                    enqueueFetched();
                    // still the owner: hand on and commit what was read before giving them up
                    if (!halting && !partitions.isEmpty() && dirty()) {
                        commit();
                    }
                    giveUp(partitions);
                    for (TopicPartition tp : partitions) {
                        if (tp.partition() < buffers.length) {
                            buffers[tp.partition()] = null; // empty now; its stream times go with the partition
                        }
                    }
                    forget(partitions); // not taken, not committed: read again by the next owner
                } finally {
                    lock.unlock();
                }
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                lock.lock();
                try {
                    enqueueFetched();
                    for (TopicPartition tp : partitions) {
                        AtomicInteger count = untaken.computeIfAbsent(tp, t -> new AtomicInteger());
                        queues.putIfAbsent(tp, new Lane(tp, count));
                    }
                    lanes = null;
                    paceKnown = true;
                    pace.publish(floor()); // its new partitions' next records unknown until fetched
                    partitions.forEach(pace::assigned);
                } finally {
                    lock.unlock();
                }
                joined = true;
                LOG.info("{}: assigned {}", name, partitions);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                lock.lock();
                try {
                    enqueueFetched();
                    // no longer the owner: nothing may be committed for them; start again from the commits
                    if (!partitions.isEmpty() && dirty()) {
                        lost = true;
                    }
                    giveUp(partitions);
                    forget(partitions);
                } finally {
                    lock.unlock();
                }
            }
        });
    }

    /** Under the lock, in a rebalance callback: the partitions' queued records and counts dropped. */
    private void forget(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
            queues.remove(tp);
            untaken.remove(tp);
            backlogged.remove(tp);
            paused.remove(tp);
        }
        lanes = null;
        pace.publish(floor());
    }

    /**
     * Under the lock: the partitions' floors left with the other loops until one of them reads the
     * partitions ({@link LoopPace}): their next owner starts at the committed offsets, whose records
     * are no older than the partition's next record, nor than what was taken and not committed.
     */
    private void giveUp(Collection<TopicPartition> partitions) {
        long uncommitted = Math.min(takenMin, sendingMin);
        for (TopicPartition tp : partitions) {
            Lane lane = queues.get(tp);
            pace.gaveUp(tp, Math.min(uncommitted, lane == null ? LoopPace.UNKNOWN : lane.floor()));
        }
    }

    /**
     * Under the lock: this loop's floor for {@link LoopPace}: the oldest record time taken and not
     * committed, and of each partition the next record's time (fetched: its head; not fetched yet: the
     * last record time taken, or unknown before the first; nothing left on the broker: none).
     */
    private long floor() {
        if (!paceKnown) {
            return LoopPace.UNKNOWN;
        }
        long floor = Math.min(takenMin, sendingMin);
        for (Lane lane : queues.values()) {
            floor = Math.min(floor, lane.floor());
        }
        return floor;
    }

    /**
     * One poll as the taker gets it: its records, and the partitions that had no records on the
     * broker left to fetch after it (lag known and 0).
     */
    private record Fetched(ConsumerRecords<byte[], byte[]> records, Set<TopicPartition> caughtUp,
            Set<TopicPartition> lagUnknown) {}

    /**
     * Loop thread: hands one poll's records to the taker with every partition's lag after it, and
     * counts them as waiting to be taken. Every poll goes to the taker, one without records too: its
     * lags, the idle bound and the registry's wait are looked at again after each.
     */
    private void handOn(ConsumerRecords<byte[], byte[]> records) {
        for (TopicPartition tp : records.partitions()) {
            AtomicInteger count = untaken.get(tp);
            if (count != null) {
                count.addAndGet(records.records(tp).size());
            }
        }
        Set<TopicPartition> caughtUp = new HashSet<>();
        Set<TopicPartition> lagUnknown = new HashSet<>();
        long recordsBehind = 0; // on the broker, or polled and not taken
        for (Map.Entry<TopicPartition, AtomicInteger> e : untaken.entrySet()) {
            OptionalLong l = consumer.currentLag(e.getKey());
            if (l.isEmpty()) {
                lagUnknown.add(e.getKey());
            } else if (l.getAsLong() == 0) {
                caughtUp.add(e.getKey());
            }
            recordsBehind += l.orElse(0) + e.getValue().get();
        }
        this.caughtUp = caughtUp;
        behind = behind || recordsBehind >= BACKLOG;
        fetched.add(new Fetched(records, caughtUp, lagUnknown));
        if (takeThread) {
            LockSupport.unpark(takerThread);
        } else {
            takeHere();
        }
    }

    /**
     * Without a taker: the loop's thread takes what its polls brought, as the taker would (an error is
     * thrown here, where the taker's would be after the next poll). Paused partitions are resumed by
     * {@link #pauseOrResume} before the next poll, so no poll needs waking.
     */
    private void takeHere() {
        lock.lock();
        try {
            takeFetched();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Under the lock, on the thread that takes: every poll not seen yet into the queues, then what they
     * allow taken (unless the registry's wait is on).
     */
    private void takeFetched() {
        enqueueFetched();
        if (System.nanoTime() - registryRetryAt >= 0) {
            metrics.ingested(processQueued());
            output = (positions.isEmpty() ? 0 : 1) | (pending.isEmpty() ? 0 : 2);
            wakeToResume();
        }
    }

    /**
     * Loop thread, before each poll: pauses a partition with {@link #PAUSE_AT} or more records waiting
     * to be taken, until it is down to {@link #RESUME_AT}. When no partition that is not paused can have
     * records on the broker (each one's lag was known and 0 after the last poll), every partition is paused: the consumer
     * would otherwise send a fetch for those that the broker holds for up to {@code fetch.max.wait.ms}
     * before it answers, and no resumed partition could be fetched meanwhile. The taker wakes a poll
     * when a paused partition has drained ({@link #wakeToResume}).
     */
    private void pauseOrResume() {
        resumeWanted.set(false);
        boolean fetchable = false;
        for (Map.Entry<TopicPartition, AtomicInteger> e : untaken.entrySet()) {
            int n = e.getValue().get();
            TopicPartition tp = e.getKey();
            if (n >= PAUSE_AT) {
                if (backlogged.add(tp)) {
                    metrics.paused();
                }
            } else if (n <= RESUME_AT) {
                backlogged.remove(tp);
            }
            fetchable = fetchable || !backlogged.contains(tp) && !caughtUp.contains(tp);
        }
        boolean holdAll = !fetchable && !backlogged.isEmpty();
        for (TopicPartition tp : untaken.keySet()) {
            boolean hold = holdAll || backlogged.contains(tp);
            if (hold && paused.add(tp)) {
                consumer.pause(List.of(tp));
            } else if (!hold && paused.remove(tp)) {
                consumer.resume(List.of(tp));
            }
        }
    }

    /**
     * Taker: wakes the consumer's poll if a partition paused for its backlog can be resumed (once,
     * until the loop's thread has looked at the counts again).
     */
    private void wakeToResume() {
        if (!takeThread || backlogged.isEmpty() || resumeWanted.get()) { // without a taker the loop's thread is not in a poll
            return;
        }
        for (Lane lane : queues.values()) {
            if (lane.untaken.get() <= RESUME_AT && backlogged.contains(lane.partition) && resumeWanted.compareAndSet(false, true)) {
                wakeUp();
                return;
            }
        }
    }

    /** Under the lock: the polls the taker has not seen yet into the queues, with their lags. */
    private void enqueueFetched() {
        Fetched f;
        while ((f = fetched.poll()) != null) {
            ConsumerRecords<byte[], byte[]> records = f.records();
            for (TopicPartition tp : records.partitions()) {
                Lane lane = queues.get(tp);
                if (lane != null) { // else not ours any more
                    lane.records.addAll(records.records(tp));
                }
            }
            for (Lane lane : queues.values()) {
                lane.lagging = !f.caughtUp().contains(lane.partition);
                lane.lagUnknown = f.lagUnknown().contains(lane.partition);
            }
        }
    }

    /**
     * The taker's thread: waits for a poll, then, holding the lock, moves every poll not seen yet into
     * the queues and takes what they allow (unless the registry's wait is on). A poll leaves {@link
     * #fetched} only under the lock, so a rebalance callback finds every poll there or in the queues.
     * An error is kept for the loop's thread, which throws it after its next poll.
     */
    private void take() {
        while (!takerStopping) {
            if (fetched.isEmpty()) {
                LockSupport.parkNanos(this, pollTimeout.toNanos()); // unparked by handOn
                continue;
            }
            lock.lock();
            try {
                takeFetched();
            } catch (RuntimeException e) {
                takerFailure = e;
            } finally {
                lock.unlock();
            }
        }
    }

    /** Stops the taker's thread and waits for it (it ends within a take and a poll timeout). */
    private void stopTaker() {
        takerStopping = true;
        LockSupport.unpark(takerThread);
        try {
            takerThread.join(CLOSE_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Takes the queued records in timestamp order across the assigned partitions, as Kafka Streams
     * does within a task: always the partition whose next record is the oldest. An empty partition
     * that still has records on the broker (its lag known and above 0), or that has given none since
     * it was assigned, holds processing back until they are fetched: the others going on without it
     * would make its records late (a slow first fetch after a restart on a backlog did). One whose lag
     * is unknown after it has given records holds it back at most {@link #MAX_IDLE}.
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
        for (IngestBuffer b : buffers) {
            if (b != null) {
                b.readClockAgain(); // records taken one after the other share a read of the clock, not records after a wait
            }
        }
        long limit = pace.limit(); // the other loops only raise it meanwhile: taking up to it stays safe
        boolean held = false;
        int count = 0;
        try {
            while (true) {
                Lane next = null;
                int nextIndex = -1;
                long oldest = Long.MAX_VALUE;
                long second = Long.MAX_VALUE; // the oldest head of the partitions not picked
                int secondIndex = -1; // the first of them (in lane order) with that head
                boolean waiting = false; // an empty partition has records on the broker: the others wait for them
                boolean bounded = true; // at most MAX_IDLE: only while each such partition's lag is unknown after its first records
                for (int i = 0; i < lanes.length; i++) {
                    Lane lane = lanes[i];
                    if (lane.empty) {
                        if (lane.lagging) {
                            waiting = true;
                            bounded = bounded && lane.lagUnknown && lane.lastTaken != LoopPace.UNKNOWN;
                        }
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
                if (oldest > limit) {
                    held = true; // the other loops' floor: taking this would run ahead of heat they still hand on
                    break;
                }
                if (waiting && !bounded) {
                    idleSince = 0;
                    break; // its records are on the broker, or it has given none yet: they come with a poll
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
                    long time = r.timestamp();
                    next.lastTaken = time;
                    if (time < takenMin) {
                        takenMin = time;
                    }
                    if (time > takenMax) {
                        takenMax = time;
                    }
                    count++;
                    if (q.size() == RESUME_AT && backlogged.contains(next.partition)) {
                        next.countTaken();
                        wakeToResume(); // so its next records are fetched while these are taken
                    }
                    r = q.peekFirst();
                } while (r != null && r.timestamp() <= limit && pickedAgain(r.timestamp(), nextIndex, second, secondIndex));
                next.readHead(); // its head now (the scan reads no deque)
                if (registryDown) {
                    break;
                }
            }
        } finally {
            for (Lane lane : lanes) {
                if (lane.taken >= 0) {
                    positions.put(lane.partition, lane.taken); // once per partition and call, not per record
                    lane.countTaken();
                }
            }
            paceHeld = held;
            if (held) {
                metrics.paceHeld();
            }
            // commit when the records taken and not committed span half the lead, or when held back by
            // the others while they may be held back by this loop's oldest record not committed
            paceCommit = takenMin != LoopPace.NONE
                    && (takenMax - takenMin >= pace.commitSpanMs()
                            || held && limit != LoopPace.UNKNOWN && takenMin <= limit - pace.leadMs());
            pace.publish(floor());
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
     * One assigned partition: its records fetched but not taken yet; whether it has records on the
     * broker not fetched yet (or not known), as of the last poll moved into the queues; what one
     * {@link #processQueued} call keeps of it (its head's timestamp, its size at the start, the offset
     * after the last record it took); and the count of its records polled and not taken that the
     * loop's thread pauses it by.
     */
    private static final class Lane {
        final TopicPartition partition;
        final ArrayDeque<ConsumerRecord<byte[], byte[]>> records = new ArrayDeque<>();
        final AtomicInteger untaken;
        boolean lagging = true;
        /** Whether the consumer did not know the partition's lag after the last poll (before its first fetch). */
        boolean lagUnknown = true;
        boolean empty;
        long head;
        int sizeAtStart;
        long taken;
        /** The time of the last record taken ({@link LoopPace#UNKNOWN} before the first). */
        long lastTaken = LoopPace.UNKNOWN;

        Lane(TopicPartition partition, AtomicInteger untaken) {
            this.partition = partition;
            this.untaken = untaken;
        }

        /** Tells the loop's thread (pausing by {@link #untaken}) what was taken from the queue since the last count. */
        void countTaken() {
            untaken.addAndGet(records.size() - sizeAtStart);
            sizeAtStart = records.size();
        }

        void startCall() {
            taken = -1;
            sizeAtStart = records.size();
            readHead();
        }

        void readHead() {
            ConsumerRecord<byte[], byte[]> first = records.peekFirst();
            empty = first == null;
            head = first == null ? 0 : first.timestamp();
        }

        /** No record of this partition still to take is older than this (in order; {@link LoopPace}). */
        long floor() {
            ConsumerRecord<byte[], byte[]> first = records.peekFirst();
            if (first != null) {
                return first.timestamp();
            }
            return lagging ? lastTaken : LoopPace.NONE;
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

    /** Under the lock. */
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

    /** Loop thread, without the lock: by what the taker last said it holds. */
    private boolean commitDue() {
        int out = output;
        if (out == 0) {
            return false;
        }
        long since = System.nanoTime() - lastCommit;
        return since >= flushNanos || ((out & 2) != 0 && since >= commitNanos);
    }

    /**
     * Loop thread, without the lock: whether a backlog has just been worked off, so the loop commits at
     * once instead of up to {@code flush-interval} later. It has: since the last commit the loop was
     * {@link #BACKLOG} or more records behind after a poll; now every assigned partition's lag is known
     * and 0, every record polled has been taken, the taker holds something to commit, and the loop
     * has not committed this way within the last {@code flush-interval}. So after a restart or an
     * outage the heat of the backlog's last records reaches stage two, and its offsets are committed,
     * as soon as they are taken; a steady trickle of input, never that far behind, is still committed
     * every {@code flush-interval}; and input that keeps falling behind and catching up adds at most
     * one transaction per {@code flush-interval}.
     */
    private boolean caughtUpAfterBacklog() {
        if (!behind || output == 0 || System.nanoTime() - backlogCommitAt < flushNanos) {
            return false;
        }
        for (Map.Entry<TopicPartition, AtomicInteger> e : untaken.entrySet()) {
            if (e.getValue().get() != 0 || !caughtUp.contains(e.getKey())) {
                return false;
            }
        }
        return true;
    }

    /**
     * One transaction: everything buffered, the dead letters, and the offsets they came from. Loop
     * thread: they are moved out of the buffers under the lock, and sent without it, while the taker
     * takes on (what it takes goes into the next transaction). If the transaction fails, the loop
     * recovers, which reads everything after the last committed offsets again.
     */
    private void commit() {
        List<ProducerRecord<byte[], byte[]>> sends;
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        lock.lock();
        try {
            for (IngestBuffer b : buffers) {
                if (b != null) {
                    b.flushAll();
                }
            }
            sends = new ArrayList<>(pending);
            positions.forEach((tp, next) -> offsets.put(tp, new OffsetAndMetadata(next)));
            pending.clear();
            positions.clear();
            output = 0;
            sendingMin = Math.min(sendingMin, takenMin); // holds the other loops until it is committed
            takenMin = LoopPace.NONE;
            takenMax = LoopPace.UNKNOWN;
            paceCommit = false;
        } finally {
            lock.unlock();
        }
        if (!sends.isEmpty() || !offsets.isEmpty()) {
            producer.beginTransaction();
            for (ProducerRecord<byte[], byte[]> r : sends) {
                producer.send(r); // a failed send makes commitTransaction throw
            }
            if (!offsets.isEmpty()) {
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
            }
            producer.commitTransaction();
            metrics.committed();
        }
        lastCommit = System.nanoTime();
        behind = false;
        sendingMin = LoopPace.NONE; // published with the floor after the next take, which follows the next poll
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

    /** Loop thread: everything read since the last commit forgotten (the taker's part under the lock). */
    private void dropState() {
        lock.lock();
        try {
            giveUp(queues.keySet()); // read again from the commits, by this loop or another
            takenMin = LoopPace.NONE;
            takenMax = LoopPace.UNKNOWN;
            sendingMin = LoopPace.NONE;
            paceKnown = false;
            paceHeld = false;
            paceCommit = false;
            pace.publish(LoopPace.UNKNOWN);
            fetched.clear();
            buffers = new IngestBuffer[0];
            queues.clear(); // a new consumer is assigned afresh
            lanes = null;
            idleSince = 0;
            pending.clear();
            positions.clear();
            output = 0;
        } finally {
            lock.unlock();
        }
        untaken.clear();
        backlogged.clear();
        paused.clear();
        caughtUp = Set.of();
        behind = false;
        lost = false;
    }

    /**
     * Orderly stop: the taker is stopped, takes what the queues allow one last time on this thread
     * (as the last poll's records were taken on one thread), and all of it is committed.
     */
    private void finish() {
        stopTaker();
        if (consumer != null) {
            try {
                boolean dirty;
                lock.lock();
                try {
                    enqueueFetched();
                    if (!lost && System.nanoTime() - registryRetryAt >= 0) {
                        metrics.ingested(processQueued());
                    }
                    dirty = dirty();
                } finally {
                    lock.unlock();
                }
                if (!lost && dirty) {
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
        stopTaker();
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
