package io.skewguard.agent;

import io.skewguard.agent.command.AgentInput;
import io.skewguard.agent.command.AgentState;
import io.skewguard.agent.command.CommandApplier;
import io.skewguard.agent.command.CommandCheck;
import io.skewguard.agent.state.StateFile;
import io.skewguard.agent.state.StateFileException;
import io.skewguard.agent.store.NodeStore;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import io.skewguard.runtime.metrics.InputLag;
import io.skewguard.runtime.metrics.ProcessMetrics;
import io.skewguard.runtime.streams.PoisonPills;
import io.skewguard.schemas.DeadLetter;
import io.skewguard.schemas.MigrationCommand;
import io.skewguard.schemas.MigrationStatus;
import io.skewguard.schemas.WeightCommand;
import io.skewguard.schemas.serde.RegistryUnavailableException;
import io.skewguard.schemas.serde.SchemaRegistrySerde;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node agent's Kafka loop (docs/design.md §9): reads the weight and migration commands for
 * its node, applies them through the {@link NodeStore}, and answers migration steps on the status
 * topic, keyed by migration id.
 *
 * <p><b>Which records.</b> The command topics are keyed by node, and every agent reads all of them in
 * its own consumer group ({@code skewguard-agent-<node>}); records keyed with another node are
 * skipped without decoding. A record with no key is decoded and kept if its value names this node.
 * A record keyed with this node that cannot be decoded, names another node or cluster in its value,
 * or fails {@link CommandCheck} goes to the dead-letter topic with {@link DeadLetter} headers; the
 * agent carries on. So does a command whose application throws (reason {@code poison: ...}): it
 * would throw again after every restart. A failure of the surroundings (the state file, the disk,
 * the Kafka clients, a registry outage) is not the command's: it stops the agent before it commits
 * past the command.
 *
 * <p><b>Order of effects, per command</b>: decide ({@link CommandApplier}, pure), carry out the
 * store steps, save the state file if the state changed, send the answers; after each poll's
 * records: flush the producer, then commit the consumer offsets. A crash anywhere in between
 * redelivers the command, which the idempotence rules turn into the same state and the same
 * answer (the store steps being idempotent too). A send, flush or offset commit that the broker does
 * not take in time (an outage, however long) is waited out the same way: nothing of the poll is
 * committed, its records are read again once the broker answers. Any other failed send stops the
 * agent without committing.
 *
 * <p><b>Authentication</b> (docs/security.md): with a key for its node ({@link AgentSettings#keys()}),
 * the agent dead-letters, with reason {@code unauthenticated: ...}, every migration command for its
 * node without the migrator's valid {@code skew.sig} signature, before decoding it, and signs its
 * answers. Without a key it logs a warning at start that node messages are not authenticated.
 *
 * <p><b>Copies</b> run in the store; every {@code progressInterval} the agent asks the store how
 * each running copy stands and answers COPY PROGRESS, DONE or FAILED.
 *
 * <p>Lifecycle: the constructor loads the state file (a corrupt one fails here, see
 * {@link StateFile}); {@link #start()} resumes interrupted copies and runs the loop on its own
 * thread; {@link #close()} stops it.
 */
public final class CommandAgent implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(CommandAgent.class);

    private final AgentSettings settings;
    private final LongSupplier clockMillis;
    private final StateFile stateFile;
    private final AgentCore core;
    private final CommandCheck check;
    private final SchemaRegistrySerde<WeightCommand> weightSerde;
    private final SchemaRegistrySerde<MigrationCommand> migrationSerde;
    private final SchemaRegistrySerde<MigrationStatus> statusSerde;
    private final AtomicLong deadLetters = new AtomicLong();
    private final AtomicLong unauthenticated = new AtomicLong();
    private final AtomicReference<Exception> sendFailure = new AtomicReference<>();
    private final Thread thread;
    private final AgentSeries series;
    private InputLag inputLag;
    private List<KafkaClientMetrics> clientMetrics = List.of();
    private volatile boolean running;
    private volatile Throwable stoppedBy;
    private KafkaConsumer<byte[], byte[]> consumer;
    private KafkaProducer<byte[], byte[]> producer;
    private long lastProgressAt = Long.MIN_VALUE;
    private Duration registryWait = Duration.ZERO;
    private Duration brokerWait = Duration.ZERO;

    private static final Duration FIRST_REGISTRY_WAIT = Duration.ofMillis(500);
    private static final Duration MAX_REGISTRY_WAIT = Duration.ofSeconds(30);

    /**
     * An agent for {@code settings.node()} over {@code store}, with the state saved in
     * {@code settings.stateFile()}.
     *
     * @throws io.skewguard.agent.state.StateFileException if the state file is corrupt or another node's
     */
    public CommandAgent(AgentSettings settings, NodeStore store, LongSupplier clockMillis) {
        if (!store.node().equals(settings.node())) {
            throw new IllegalArgumentException("store of node " + store.node() + " given to the agent of " + settings.node());
        }
        this.settings = settings;
        this.clockMillis = clockMillis;
        this.stateFile = new StateFile(settings.stateFile());
        this.check = new CommandCheck(settings.cluster(), settings.node(), settings.slotCount());
        this.series = new AgentSeries(settings.cluster(), settings.node());
        AgentState loaded = stateFile.load(settings.node());
        this.core = new AgentCore(check, store, loaded, stateFile::save, settings.epochs(), settings.keepFinished());
        this.weightSerde = SchemaRegistrySerde.of(WeightCommand.class, settings.kafka(), false);
        this.migrationSerde = SchemaRegistrySerde.of(MigrationCommand.class, settings.kafka(), false);
        this.statusSerde = SchemaRegistrySerde.of(MigrationStatus.class, settings.kafka(), false);
        this.thread = new Thread(this::run, "skewguard-agent-" + settings.node());
        this.thread.setDaemon(true);
        LOG.info("agent of {} loaded {}: weight epoch {}, {} migrations", settings.node(), stateFile.path(),
                loaded.weightEpoch(), loaded.migrations().size());
        if (!settings.keys().configured()) {
            LOG.warn("agent of {}: no node key configured: migration commands are not authenticated and answers are not "
                    + "signed; anyone who can write the command topic can move this node's shards (docs/security.md)",
                    settings.node());
        }
    }

    /** Resumes interrupted copies and starts the loop on its own thread. */
    public synchronized CommandAgent start() {
        if (running) {
            throw new IllegalStateException("already started");
        }
        core.resume();
        consumer = new KafkaConsumer<>(consumerConfig(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
        producer = new KafkaProducer<>(producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
        consumer.subscribe(List.of(settings.topics().weightCommands(), settings.topics().migrationCommands()));
        KafkaConsumer<byte[], byte[]> reading = consumer;
        inputLag = InputLag.of("agent-" + settings.node(), reading::metrics);
        clientMetrics = List.of(new KafkaClientMetrics(consumer), new KafkaClientMetrics(producer));
        clientMetrics.forEach(m -> m.bindTo(ProcessMetrics.registry()));
        running = true;
        thread.start();
        return this;
    }

    /** What this agent has applied so far. */
    public AgentState state() {
        return core.state();
    }

    /** Records sent to the dead-letter topic since start. */
    public long deadLetters() {
        return deadLetters.get();
    }

    /** Commands refused by a safety rule since start: switches and cleanups of unknown migrations, epoch jumps. */
    public long refusals() {
        return core.refusals();
    }

    /** Migration commands dead-lettered since start because their signature was missing or wrong (also in {@link #deadLetters()}). */
    public long unauthenticated() {
        return unauthenticated.get();
    }

    /** Why the loop stopped on its own (a failed send, a broken state file), if it did. */
    public Optional<Throwable> stoppedBy() {
        return Optional.ofNullable(stoppedBy);
    }

    /** Stops the loop, waits for it, and closes the clients. */
    @Override
    public void close() {
        synchronized (this) {
            if (inputLag != null) {
                inputLag.close(); // the series go with the clients they read
                inputLag = null;
            }
            clientMetrics.forEach(KafkaClientMetrics::close);
            clientMetrics = List.of();
            if (!running && !thread.isAlive()) {
                closeSerdes();
                return;
            }
            running = false;
        }
        if (consumer != null) {
            consumer.wakeup();
        }
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeSerdes();
    }

    private void closeSerdes() {
        weightSerde.close();
        migrationSerde.close();
        statusSerde.close();
    }

    // ------------------------------------------------------------------------------------ the loop

    private void run() {
        try {
            while (running) {
                var records = consumer.poll(settings.pollTimeout());
                try {
                    if (handleAndCommit(records) && !records.isEmpty()) {
                        brokerWait = Duration.ZERO;
                    }
                } catch (RuntimeException e) {
                    if (!brokerOutage(e)) {
                        throw e;
                    }
                    // nothing of this poll is committed: read it again once the broker answers, as after a restart
                    sendFailure.set(null);
                    redeliver(records, e);
                }
            }
        } catch (WakeupException e) {
            if (running) {
                stoppedBy = e;
                LOG.error("agent of {} woken up unexpectedly", settings.node(), e);
            }
        } catch (RuntimeException e) {
            stoppedBy = e;
            LOG.error("agent of {} stopped: {}", settings.node(), e.getMessage(), e);
        } finally {
            running = false;
            closeQuietly(consumer);
            closeQuietly(producer);
        }
    }

    /**
     * Handles one poll's records, reports the copies, waits for every answer to be acknowledged and
     * commits the offsets. False if a delivery failed because the broker did not answer in time (the
     * poll's records are then read again); a failure that is not a broker outage stops the agent.
     */
    private boolean handleAndCommit(ConsumerRecords<byte[], byte[]> records) {
        Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
        RegistryUnavailableException outage = null;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            try {
                handle(record);
            } catch (RegistryUnavailableException e) {
                outage = e;
                break;
            }
            done.put(new TopicPartition(record.topic(), record.partition()), new OffsetAndMetadata(record.offset() + 1));
        }
        if (outage != null) {
            rewind(records, done);
        } else if (!records.isEmpty()) {
            registryWait = Duration.ZERO;
        }
        try {
            reportCopies();
        } catch (RegistryUnavailableException e) {
            outage = e; // the answers' schema id is not known yet: report on a later round
        }
        producer.flush();
        Exception failed = sendFailure.getAndSet(null);
        if (failed != null) {
            if (brokerOutage(failed)) {
                redeliver(records, failed);
                return false;
            }
            throw new IllegalStateException("sending an answer or dead letter failed; offsets not committed", failed);
        }
        if (!done.isEmpty()) {
            consumer.commitSync(done);
        }
        if (outage != null) {
            waitForRegistry();
        }
        return true;
    }

    /**
     * Whether {@code e} says the broker did not answer in time or the group moved on meanwhile (a
     * send, flush or commit that timed out, a commit refused after a rebalance), rather than that
     * something is wrong with a command or this process: an outage to wait out.
     */
    static boolean brokerOutage(Throwable e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if ((t instanceof RetriableException && !(t instanceof RegistryUnavailableException))
                    || t instanceof CommitFailedException) {
                return true;
            }
        }
        return false;
    }

    /**
     * The broker did not take an answer or an offset commit in time: every partition of the poll goes
     * back to its first record (nothing of the poll is committed), and the loop waits (0.5 s doubling
     * to 30 s, consumption paused, still polling so that it stays in its group). The records are then
     * applied again, which the idempotence rules make harmless: the same state, the same answers.
     */
    private void redeliver(ConsumerRecords<byte[], byte[]> records, Throwable why) {
        var assigned = consumer.assignment();
        for (TopicPartition tp : records.partitions()) {
            if (assigned.contains(tp)) {
                consumer.seek(tp, records.records(tp).get(0).offset());
            }
        }
        brokerWait = brokerWait.isZero() ? FIRST_REGISTRY_WAIT : min(brokerWait.multipliedBy(2), MAX_REGISTRY_WAIT);
        LOG.warn("agent of {}: the broker did not take an answer or offset commit in time ({}); the {} commands of this poll "
                + "are read again in {} ms", settings.node(), why.toString(), records.count(), brokerWait.toMillis());
        pausedFor(brokerWait);
    }

    /**
     * The registry could not say what a record's schema is: every partition of the poll goes back to
     * its first record not handled, so that nothing past it is committed and it is read again.
     */
    private void rewind(ConsumerRecords<byte[], byte[]> records, Map<TopicPartition, OffsetAndMetadata> done) {
        for (TopicPartition tp : records.partitions()) {
            OffsetAndMetadata handled = done.get(tp);
            long next = handled != null ? handled.offset() : records.records(tp).get(0).offset();
            if (next <= records.records(tp).get(records.records(tp).size() - 1).offset()) {
                consumer.seek(tp, next);
            }
        }
    }

    /**
     * Waits before reading the record again, with consumption paused, so that the consumer stays in
     * its group; {@link #close()} ends the wait at once (wakeup). The registry client logs the outage
     * once and its end once; the wait doubles up to {@link #MAX_REGISTRY_WAIT}, and starts over
     * after a poll that needed no wait.
     */
    private void waitForRegistry() {
        registryWait = registryWait.isZero() ? FIRST_REGISTRY_WAIT : min(registryWait.multipliedBy(2), MAX_REGISTRY_WAIT);
        pausedFor(registryWait);
    }

    /** Polls with consumption paused for {@code wait}, so that the consumer stays in its group; a stop ends it at once. */
    private void pausedFor(Duration wait) {
        long until = System.nanoTime() + wait.toNanos();
        pollPaused(consumer, () -> running && System.nanoTime() < until,
                () -> Duration.ofNanos(Math.max(1, Math.min(until - System.nanoTime(), settings.pollTimeout().toNanos()))));
    }

    /**
     * Polls {@code consumer} with every assigned partition paused while {@code waiting} holds, then
     * resumes them. A rebalance during the wait (a broker back from an outage, a member joining)
     * assigns partitions afresh, and those are not paused: the records a poll then returns are not
     * handled here, so each such partition goes back to its first returned record, to be read again
     * after the wait, and the new assignment is paused too. Without that, commands were skipped: read
     * here, never applied, and their offsets committed with the next records'.
     */
    static void pollPaused(Consumer<byte[], byte[]> consumer, BooleanSupplier waiting, Supplier<Duration> timeout) {
        consumer.pause(consumer.assignment());
        try {
            while (waiting.getAsBoolean()) {
                ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout.get());
                for (TopicPartition tp : records.partitions()) {
                    consumer.seek(tp, records.records(tp).get(0).offset());
                }
                consumer.pause(consumer.assignment());
            }
        } finally {
            consumer.resume(consumer.assignment());
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    private void handle(ConsumerRecord<byte[], byte[]> record) {
        String key = record.key() == null ? null : new String(record.key(), StandardCharsets.UTF_8);
        if (key != null && !key.equals(settings.node())) {
            return; // another node's command
        }
        boolean weight = record.topic().equals(settings.topics().weightCommands());
        if (!weight && !authentic(record)) {
            return;
        }
        AgentInput input;
        Optional<String> problem;
        String valueNode;
        try {
            if (weight) {
                WeightCommand c = weightSerde.deserializer().deserialize(record.topic(), record.headers(), record.value());
                if (c == null) {
                    deadLetter(record, "invalid: a command topic record without value");
                    return;
                }
                valueNode = c.getNode();
                problem = check.problem(c);
                input = new AgentInput.Weight(c);
            } else {
                MigrationCommand c = migrationSerde.deserializer().deserialize(record.topic(), record.headers(), record.value());
                if (c == null) {
                    deadLetter(record, "invalid: a command topic record without value");
                    return;
                }
                valueNode = c.getNode();
                problem = check.problem(c);
                input = new AgentInput.Step(c);
            }
        } catch (RegistryUnavailableException e) {
            throw e; // not the record's fault: read it again once the registry answers
        } catch (RuntimeException e) {
            deadLetter(record, DeadLetter.undecodable(e));
            return;
        }
        if (key == null && !settings.node().equals(valueNode)) {
            return; // unkeyed, and another node's
        }
        if (problem.isEmpty()) {
            problem = core.epochProblem(input);
        }
        if (problem.isPresent()) {
            deadLetter(record, problem.get());
            return;
        }
        try {
            process(input);
        } catch (RuntimeException e) {
            if (!poison(e)) {
                throw e;
            }
            // it would throw the same way after every restart: set it aside with its reason, go on
            deadLetter(record, "poison: " + e.getClass().getSimpleName() + ": " + DeadLetter.quote(e.getMessage()));
        }
    }

    /**
     * Whether applying a command failed because of the command (a poison pill, dead-lettered) rather
     * than of this process's surroundings, which must stop the agent before it commits past the
     * command: a registry outage, the state file, the disk, the Kafka clients.
     */
    private static boolean poison(RuntimeException e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof StateFileException || t instanceof java.io.UncheckedIOException
                    || (t instanceof KafkaException && !(t instanceof SerializationException))) {
                return false;
            }
        }
        return !PoisonPills.registryOutage(e);
    }

    /** With a key, whether a migration command carries the migrator's signature for this node; dead-letters it if not. */
    private boolean authentic(ConsumerRecord<byte[], byte[]> record) {
        if (!settings.keys().configured()) {
            return true;
        }
        Optional<String> problem = settings.keys().problem(settings.node(), record.headers(), record.topic(), record.key(),
                record.value());
        if (problem.isPresent()) {
            unauthenticated.incrementAndGet();
            deadLetter(record, problem.get());
            return false;
        }
        return true;
    }

    /** Decide, carry out, save, answer ({@link AgentCore}): see the class comment for why in this order. */
    private void process(AgentInput input) {
        long refusedBefore = core.refusals();
        List<MigrationStatus> answers = core.apply(input, clockMillis.getAsLong());
        series.decided(input, core.refusals() > refusedBefore);
        for (MigrationStatus answer : answers) {
            send(answer);
        }
    }

    private void reportCopies() {
        long now = clockMillis.getAsLong();
        if (lastProgressAt != Long.MIN_VALUE && now - lastProgressAt < settings.progressInterval().toMillis()) {
            return;
        }
        lastProgressAt = now;
        for (MigrationStatus answer : core.reportCopies(now)) {
            send(answer);
        }
    }

    private void send(MigrationStatus answer) {
        String topic = settings.topics().migrationStatus();
        byte[] value = statusSerde.serializer().serialize(topic, answer);
        byte[] key = answer.getMigrationId().getBytes(StandardCharsets.UTF_8);
        RecordHeaders headers = new RecordHeaders();
        settings.keys().signInto(settings.node(), headers, topic, key, value);
        producer.send(new ProducerRecord<>(topic, null, key, value, headers), this::onSent);
        LOG.debug("{}: {} {} of {} -> {}", settings.node(), answer.getPhase(), answer.getOutcome(), answer.getMigrationId(), answer.getMessage());
    }

    private void deadLetter(ConsumerRecord<byte[], byte[]> record, String reason) {
        deadLetters.incrementAndGet();
        series.setAside(reason);
        LOG.warn("{}: dead-lettering {}-{}@{}: {}", settings.node(), record.topic(), record.partition(), record.offset(), reason);
        producer.send(new ProducerRecord<>(settings.topics().dlq(), null, record.key(), record.value(),
                DeadLetter.headers(record.topic(), record.partition(), record.offset(), reason)), this::onSent);
    }

    private void onSent(Object metadata, Exception e) {
        if (e != null) {
            sendFailure.compareAndSet(null, e);
        }
    }

    private Map<String, Object> consumerConfig() {
        Map<String, Object> config = new HashMap<>(settings.kafka());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, settings.groupId());
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, settings.groupId());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        return config;
    }

    private Map<String, Object> producerConfig() {
        Map<String, Object> config = new HashMap<>(settings.kafka());
        config.put(ProducerConfig.CLIENT_ID_CONFIG, settings.groupId() + "-answers");
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        return config;
    }

    private static void closeQuietly(AutoCloseable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (Exception e) {
            LOG.warn("closing {} failed: {}", closeable.getClass().getSimpleName(), e.toString());
        }
    }
}
