package io.skewguard.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.ForwardingAdmin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Apache Kafka 4.1 broker in KRaft mode (one process acting as broker and
 * controller), running inside this JVM, listening on 127.0.0.1 only.
 *
 * <p>Why {@link KafkaRaftServer} rather than Kafka's own {@code KafkaClusterTestKit}: this is the
 * class {@code kafka.Kafka} itself runs, so the broker is production-shaped (stable metadata
 * version, no unstable APIs, ports and data directory of our choosing), which is what the embedded
 * demo needs at runtime; the test kit formats with an unstable metadata version, ships an INFO
 * {@code log4j2.yaml} to stdout and drags in JUnit at runtime scope. Why not Docker or a child
 * process: integration tests and the demo must run on a plain JDK, and a child JVM takes twice as
 * long to start.
 *
 * <p>Lifecycle: {@link #start()} formats a fresh temporary data directory with
 * {@link Formatter} (what {@code kafka-storage.sh format} does), starts the server and returns once
 * an {@link Admin} sees the broker. {@link #restart()} stops and starts the same broker on the same
 * ports and data; {@link #stop()} and {@link #resume()} do the same with an outage of the caller's
 * choosing in between. {@link #close()} stops it, waits for its threads, and deletes the data directory
 * unless {@link Builder#keepData(boolean) keepData} is set. Not reusable after close.
 *
 * <p>The broker settings suit one node: every internal topic (consumer offsets, transaction state,
 * share-group state) has replication factor 1 and min ISR 1, so that transactions and therefore
 * exactly-once Kafka Streams work; the internal topics have 5 partitions instead of 50 because
 * creating 50 partitions on the first consumer group or transaction costs seconds on a small
 * machine; the log cleaner's dedupe buffer is 2 MB instead of 128 MB of heap; the first group
 * rebalance is not delayed. Any of them can be overridden with {@link Builder#brokerProperty}.
 *
 * <p>SASL mode: declaring users with {@link Builder#saslUser(String, String)} puts the client
 * listener on SASL_PLAINTEXT (still 127.0.0.1 only) with the mechanisms SCRAM-SHA-256 and PLAIN,
 * so clients without credentials or with a wrong password are refused. By itself it is
 * authentication only: every authenticated user may do everything. {@link Builder#authorizer()} adds
 * Kafka's standard authorizer, denying whatever no ACL allows (authorization mode). The SCRAM credentials are
 * written into the metadata at format time and so survive {@link #restart()}.
 * {@link #clientProperties(String)} gives exactly the client settings for one user (SCRAM-SHA-256),
 * {@link #writeClientProperties(Path, String)} writes them to a file for an application under test.
 * The test kit's own helpers ({@link #adminClient}, {@link #createTopics}, {@link #producer},
 * {@link #consumeUntil}, ...) keep working: they authenticate as an internal admin user with a
 * random password, whose settings {@link #clientProperties()} returns; the broker reaches its own
 * listener (e.g. for transaction markers) as that user with PLAIN, and that user is the only super
 * user in authorization mode. The controller listener stays PLAINTEXT on its own loopback port,
 * since only this process connects to it, except in authorization mode, where it takes PLAIN from
 * the admin only.
 *
 * <p>The helpers ({@link #createTopics}, {@link #producer}, {@link #consumeUntil}) are generic over
 * Kafka's {@link Serializer} and {@link Deserializer}, so they work with String serdes as well as
 * with our Avro serde.
 *
 * <p>Cost on a 2-core machine: the first broker of a JVM is ready 3–5 s after {@link #start()}
 * (class loading dominates), later ones in 0.2–0.7 s; an idle broker holds about 30–40 MB of heap.
 *
 * <p>Caveat: this is a real broker, so its fatal-error handlers may halt the JVM (as
 * {@code kafka.Kafka} would), e.g. on a corrupt metadata log; that is not intercepted here because
 * {@code Exit.setHaltProcedure} is JVM-global.
 *
 * <p>Thread-safe: lifecycle methods are synchronized; the helpers may be called from any thread
 * while the broker runs.
 */
public final class EmbeddedKafka implements AutoCloseable {

    /** The broker's own user in SASL mode (the kit's helpers log in as it); not a name to declare. */
    public static final String INTERNAL_ADMIN_USER = SaslUsers.ADMIN;

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);

    private static final String HOST = "127.0.0.1";
    private static final int NODE_ID = 1;
    private static final String CONTROLLER_LISTENER = "CONTROLLER";
    /** How often a start is retried when a port chosen as free was taken before the broker bound it. */
    private static final int BIND_ATTEMPTS = 5;
    private static final Duration TOPIC_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(200);

    private enum State { NEW, RUNNING, STOPPED, CLOSED }

    private final int requestedPort;
    private final boolean keepData;
    private final Duration startTimeout;
    private final Map<String, String> extraBrokerProperties;
    /** The accepted users when the client listener is SASL_PLAINTEXT; null when it is PLAINTEXT. */
    private final SaslUsers saslUsers;
    /** Whether the standard authorizer decides every request by ACLs (SASL mode only). */
    private final boolean authorizer;

    private State state = State.NEW;
    private Path dataDir;
    private int brokerPort;
    private int controllerPort;
    private KafkaRaftServer server;
    private volatile ProtectedAdmin admin;
    private volatile String bootstrapServers;

    private EmbeddedKafka(Builder builder) {
        this.requestedPort = builder.port;
        this.keepData = builder.keepData;
        this.startTimeout = builder.startTimeout;
        this.extraBrokerProperties = Map.copyOf(builder.brokerProperties);
        this.saslUsers = builder.saslUsers.isEmpty() ? null : SaslUsers.of(builder.saslUsers);
        this.authorizer = builder.authorizer;
        if (authorizer && saslUsers == null) {
            // without authentication every client is User:ANONYMOUS, so ACLs could not tell the apps apart
            throw new IllegalArgumentException("the authorizer needs SASL: declare the principals with Builder.saslUser");
        }
    }

    /** A builder with the defaults: a free port, data removed on close, 60 s start timeout. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Formats a fresh data directory, starts the broker and returns once it serves requests.
     *
     * @return this, so that {@code try (var kafka = EmbeddedKafka.builder().build().start())} works
     * @throws IllegalStateException if the broker is not ready within the start timeout (the broker
     *                               is then stopped and its data removed) or was started before
     */
    public synchronized EmbeddedKafka start() {
        if (state != State.NEW) {
            throw new IllegalStateException("EmbeddedKafka can be started only once; it is " + state);
        }
        long startNanos = System.nanoTime();
        try {
            dataDir = Files.createTempDirectory("skewguard-kafka-");
            format(logDir(), saslUsers == null ? List.of() : saslUsers.scramFormatArguments());
            launch(true);
            awaitReady();
        } catch (IOException | RuntimeException e) {
            state = State.CLOSED;
            stopServer();
            deleteDataUnlessKept();
            if (e instanceof IOException io) {
                throw new UncheckedIOException("Could not prepare the Kafka data directory", io);
            }
            throw (RuntimeException) e;
        }
        state = State.RUNNING;
        LOG.info("Kafka broker ready on {} in {} ms (data in {})",
                bootstrapServers, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos), dataDir);
        return this;
    }

    /**
     * Stops the broker and starts it again on the same ports with the same data, as a broker
     * restart in production would; returns once it serves requests again. Clients keep working
     * after their reconnect, and {@link #adminClient()} stays valid.
     */
    public synchronized void restart() {
        requireRunning();
        long startNanos = System.nanoTime();
        stopServer();
        relaunch();
        LOG.info("Kafka broker restarted on {} in {} ms",
                bootstrapServers, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    }

    /**
     * Stops the broker as an outage would, keeping its ports and data for {@link #resume()}: its
     * clients see the connection refused until then. The kit's helpers fail meanwhile.
     */
    public synchronized void stop() {
        requireRunning();
        long startNanos = System.nanoTime();
        stopServer();
        state = State.STOPPED;
        LOG.info("Kafka broker on {} stopped in {} ms (data kept for resume)",
                bootstrapServers, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    }

    /**
     * Starts a {@link #stop() stopped} broker again on the same ports with the same data; returns
     * once it serves requests.
     */
    public synchronized void resume() {
        if (state != State.STOPPED) {
            throw new IllegalStateException("EmbeddedKafka is not stopped; it is " + state);
        }
        long startNanos = System.nanoTime();
        relaunch();
        state = State.RUNNING;
        LOG.info("Kafka broker resumed on {} in {} ms",
                bootstrapServers, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    }

    private void relaunch() {
        try {
            launch(false);
            awaitReady();
        } catch (RuntimeException e) {
            LOG.error("Kafka broker on {} failed to start again; closing it", bootstrapServers, e);
            close();
            throw e;
        }
    }

    /**
     * Stops the broker, waits for its shutdown, and removes the data directory unless
     * {@code keepData} was set. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        ProtectedAdmin a = admin;
        admin = null;
        if (a != null) {
            a.closeForReal();
        }
        stopServer();
        deleteDataUnlessKept();
    }

    /** {@code 127.0.0.1:port} of the broker listener; valid from {@link #start()} on. */
    public String bootstrapServers() {
        String servers = bootstrapServers;
        if (servers == null) {
            throw new IllegalStateException("EmbeddedKafka has not been started");
        }
        return servers;
    }

    /** Whether the client listener is SASL_PLAINTEXT, i.e. at least one {@link Builder#saslUser} was declared. */
    public boolean isSasl() {
        return saslUsers != null;
    }

    /** Whether the broker authorizes every request by ACLs ({@link Builder#authorizer()}). */
    public boolean isAuthorizing() {
        return authorizer;
    }

    /**
     * Exactly the settings a client needs to connect with the rights of this test kit's own helpers:
     * {@code bootstrap.servers}, and in SASL mode also {@code security.protocol},
     * {@code sasl.mechanism} and {@code sasl.jaas.config} of the internal admin user. For code under
     * test that builds its own clients from a configuration; valid from {@link #start()} on.
     *
     * @return an unmodifiable map, in a stable order
     */
    public Map<String, String> clientProperties() {
        String servers = bootstrapServers();
        return saslUsers == null
                ? Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, servers)
                : saslUsers.clientProperties(servers, SaslUsers.ADMIN);
    }

    /**
     * Exactly the settings a client needs to connect as {@code user} (declared with
     * {@link Builder#saslUser}): {@code bootstrap.servers}, {@code security.protocol=SASL_PLAINTEXT},
     * {@code sasl.mechanism=SCRAM-SHA-256} and {@code sasl.jaas.config} with the user's name and
     * password. Valid from {@link #start()} on.
     *
     * @return an unmodifiable map, in a stable order
     * @throws IllegalStateException    if SASL is off
     * @throws IllegalArgumentException if {@code user} was not declared
     */
    public Map<String, String> clientProperties(String user) {
        if (saslUsers == null) {
            throw new IllegalStateException("SASL is off (no Builder.saslUser declared), so there is no user '" + user
                    + "'; use clientProperties() for the plaintext listener");
        }
        String servers = bootstrapServers();
        if (SaslUsers.ADMIN.equals(user)) {
            throw new IllegalArgumentException("'" + user + "' is the test kit's internal user; use clientProperties()");
        }
        return saslUsers.clientProperties(servers, user);
    }

    /**
     * Writes {@link #clientProperties()} to {@code file} in {@code .properties} format (replacing
     * it), for an application under test that takes only a properties file.
     *
     * @return {@code file}
     */
    public Path writeClientProperties(Path file) {
        return writeProperties(file, clientProperties(), "connects with the test kit's own rights");
    }

    /**
     * Writes {@link #clientProperties(String) clientProperties(user)} to {@code file} in
     * {@code .properties} format (replacing it), for an application under test that takes only a
     * properties file.
     *
     * @return {@code file}
     */
    public Path writeClientProperties(Path file, String user) {
        return writeProperties(file, clientProperties(user), "connects as SASL user " + user);
    }

    private Path writeProperties(Path file, Map<String, String> settings, String comment) {
        Properties properties = new Properties();
        properties.putAll(settings);
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            // store() escapes what load() would misread ('=' and ':' in the JAAS value)
            properties.store(out, "Kafka client settings for the EmbeddedKafka on " + bootstrapServers() + "; " + comment);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write Kafka client settings to " + file, e);
        }
        return file;
    }

    /** The broker's data directory (metadata log and topic logs); valid from {@link #start()} on. */
    public synchronized Path dataDir() {
        if (dataDir == null) {
            throw new IllegalStateException("EmbeddedKafka has not been started");
        }
        return dataDir;
    }

    /** Whether the broker has been started and not closed. */
    public synchronized boolean isRunning() {
        return state == State.RUNNING;
    }

    /**
     * An {@link Admin} owned by this broker and shared by its callers. Closing it does nothing, so
     * try-with-resources on it is harmless; it is closed with the broker.
     */
    public Admin adminClient() {
        ProtectedAdmin a = admin;
        if (a == null) {
            synchronized (this) {
                if (state == State.CLOSED) {
                    throw new IllegalStateException("EmbeddedKafka is closed");
                }
                if (admin == null) {
                    admin = new ProtectedAdmin(clientConfig("skewguard-embedded-admin"));
                }
                a = admin;
            }
        }
        return a;
    }

    /**
     * How many members the consumer group {@code group} has now: 0 when it is empty, dead or unknown.
     * For a test that an application under test joined its group, or left it when it stopped.
     */
    public int groupMembers(String group) {
        ConsumerGroupDescription d = await(adminClient().describeConsumerGroups(List.of(group)).all(),
                "describe consumer group " + group, Map.<String, ConsumerGroupDescription>of()).get(group);
        return d == null || d.groupState() == GroupState.DEAD ? 0 : d.members().size();
    }

    /**
     * The end offset (the next offset to be written) of every partition of {@code topics}. For a test
     * or benchmark that waits until a consumer group has committed everything written.
     */
    public Map<TopicPartition, Long> endOffsets(String... topics) {
        String what = "list the end offsets of " + List.of(topics);
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        for (TopicDescription d : await(adminClient().describeTopics(List.of(topics)).allTopicNames(), what, null).values()) {
            for (TopicPartitionInfo p : d.partitions()) {
                specs.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest());
            }
        }
        Map<TopicPartition, Long> ends = new HashMap<>();
        await(adminClient().listOffsets(specs).all(), what, null).forEach((tp, info) -> ends.put(tp, info.offset()));
        return ends;
    }

    /** The offsets consumer group {@code group} has committed, by partition: none for a group that committed nothing. */
    public Map<TopicPartition, Long> committedOffsets(String group) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        await(adminClient().listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata(),
                "list the offsets of consumer group " + group, Map.<TopicPartition, OffsetAndMetadata>of()).forEach((tp, o) -> {
                    if (o != null) {
                        offsets.put(tp, o.offset());
                    }
                });
        return offsets;
    }

    /**
     * The value of an admin call's {@code future}, waited for up to {@link #TOPIC_TIMEOUT}; {@code
     * ifGroupUnknown} if it failed because a consumer group it names does not exist. Any other failure,
     * the timeout or an interrupt is an {@link IllegalStateException} saying it could not {@code what}.
     */
    private <T> T await(KafkaFuture<T> future, String what, T ifGroupUnknown) {
        try {
            return future.get(TOPIC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return ifGroupUnknown;
            }
            throw new IllegalStateException("could not " + what + " on " + bootstrapServers(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while trying to " + what, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("could not " + what + ": no answer within " + TOPIC_TIMEOUT, e);
        }
    }

    /**
     * Creates topics with {@code partitions} partitions each and waits until every partition has a
     * leader; fails with {@link IllegalStateException} if one exists already.
     */
    public void createTopics(int partitions, String... names) {
        createTopics(partitions, Map.of(), names);
    }

    /** Creates topics with {@code cleanup.policy=compact}, as {@link #createTopics(int, String...)}. */
    public void createCompactedTopics(int partitions, String... names) {
        createTopics(partitions, Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT), names);
    }

    /**
     * Creates topics with {@code partitions} partitions each, replication factor 1 and the given
     * topic configs, and waits (up to 30 s) until every partition has a leader, so that a producer
     * started right after does not race the metadata propagation.
     */
    public void createTopics(int partitions, Map<String, String> topicConfigs, String... names) {
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be at least 1, was " + partitions);
        }
        List<NewTopic> topics = Arrays.stream(names)
                .map(name -> new NewTopic(name, partitions, (short) 1).configs(topicConfigs))
                .toList();
        Admin a = adminClient();
        long deadline = System.nanoTime() + TOPIC_TIMEOUT.toNanos();
        try {
            a.createTopics(topics).all().get(TOPIC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            List<String> nameList = List.of(names);
            while (!allPartitionsLed(a, nameList, partitions)) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("partitions of " + nameList + " still have no leader after " + TOPIC_TIMEOUT);
                }
                Thread.sleep(50);
            }
            // the broker's metadata names the leader a moment before the leader takes requests: a
            // produce in between fails with NOT_LEADER_OR_FOLLOWER, and an idempotent producer whose
            // later batches got in first then retries the first one as out of order until it expires
            while (!allLeadersAnswer(a, nameList, partitions)) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("the leaders of " + nameList + " still do not answer after " + TOPIC_TIMEOUT);
                }
                Thread.sleep(50);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics " + List.of(names), e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("could not create topics " + List.of(names) + " on " + bootstrapServers(), e);
        }
    }

    /**
     * The settings {@link #producer} uses: this broker, {@code acks=all}, idempotence, 5 ms linger,
     * and timeouts short enough that a dead broker fails a test within a minute. A fresh mutable map.
     */
    public Map<String, Object> producerConfig() {
        Map<String, Object> config = clientConfig("skewguard-embedded-producer");
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        config.put(ProducerConfig.BATCH_SIZE_CONFIG, 64 * 1024);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 15_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000);
        return config;
    }

    /** A new producer with {@link #producerConfig()}; the caller closes it (and with it the serializers). */
    public <K, V> KafkaProducer<K, V> producer(Serializer<K> keySerializer, Serializer<V> valueSerializer) {
        return producer(keySerializer, valueSerializer, Map.of());
    }

    /** A new producer with {@link #producerConfig()} plus {@code overrides}; the caller closes it. */
    public <K, V> KafkaProducer<K, V> producer(Serializer<K> keySerializer, Serializer<V> valueSerializer,
                                               Map<String, ?> overrides) {
        Map<String, Object> config = producerConfig();
        config.putAll(overrides);
        return new KafkaProducer<>(config, keySerializer, valueSerializer);
    }

    /**
     * A new transactional producer ({@code transactional.id} set, {@code initTransactions()} not
     * yet called); the caller closes it.
     */
    public <K, V> KafkaProducer<K, V> transactionalProducer(String transactionalId, Serializer<K> keySerializer,
                                                            Serializer<V> valueSerializer) {
        return producer(keySerializer, valueSerializer, Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId));
    }

    /**
     * Reads {@code topic} from the beginning of all its partitions (assigned, no consumer group,
     * {@code read_committed}) until at least {@code count} records have been read.
     *
     * @return every record read, in poll order (at least {@code count}; more if they arrived in the
     *         same poll)
     * @throws TimeoutException if fewer than {@code count} records arrive within {@code timeout}
     */
    public <K, V> List<ConsumerRecord<K, V>> consumeUntil(String topic, Deserializer<K> keyDeserializer,
                                                          Deserializer<V> valueDeserializer, int count,
                                                          Duration timeout) {
        return consumeUntil(topic, keyDeserializer, valueDeserializer, records -> records.size() >= count, timeout);
    }

    /**
     * Reads {@code topic} from the beginning of all its partitions (assigned, no consumer group,
     * {@code read_committed}, so aborted transactional records are skipped) until {@code done}
     * holds for the records read so far. {@code done} is tested once before the first poll and then
     * after every poll that returned records. The deserializers are not closed, so a shared serde
     * instance may be passed.
     *
     * @return every record read, in poll order
     * @throws TimeoutException if {@code done} does not hold within {@code timeout} (the message says
     *                          how many records were read)
     */
    public <K, V> List<ConsumerRecord<K, V>> consumeUntil(String topic, Deserializer<K> keyDeserializer,
                                                          Deserializer<V> valueDeserializer,
                                                          Predicate<? super List<ConsumerRecord<K, V>>> done,
                                                          Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Object> config = clientConfig("skewguard-embedded-consumer");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 2000);
        // reading must not create the topic as a side effect (the broker auto-creates by default)
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        List<ConsumerRecord<K, V>> records = new ArrayList<>();
        try (KafkaConsumer<K, V> consumer = new KafkaConsumer<>(config,
                new UnclosedDeserializer<>(keyDeserializer), new UnclosedDeserializer<>(valueDeserializer))) {
            List<TopicPartition> partitions = awaitPartitions(consumer, topic, deadline);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            if (done.test(records)) {
                return records;
            }
            long remaining;
            while ((remaining = deadline - System.nanoTime()) > 0) {
                var polled = consumer.poll(Duration.ofNanos(Math.min(remaining, POLL_INTERVAL.toNanos())));
                if (!polled.isEmpty()) {
                    polled.forEach(records::add);
                    if (done.test(records)) {
                        return records;
                    }
                }
            }
        }
        throw new TimeoutException("condition on topic " + topic + " not met within " + timeout
                + " after reading " + records.size() + " records"
                + (records.isEmpty() ? "" : "; last: " + records.get(records.size() - 1)));
    }

    private static List<TopicPartition> awaitPartitions(KafkaConsumer<?, ?> consumer, String topic, long deadline) {
        while (true) {
            long remaining = deadline - System.nanoTime();
            if (remaining <= 0) {
                throw new TimeoutException("topic " + topic + " does not exist");
            }
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofNanos(remaining));
            if (infos != null && !infos.isEmpty()) {
                return infos.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            }
            sleepQuietly(POLL_INTERVAL);
        }
    }

    /** Whether every partition's leader answers a request for its end offset (a request only a leader takes). */
    private static boolean allLeadersAnswer(Admin admin, Collection<String> names, int partitions) throws InterruptedException {
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        for (String name : names) {
            for (int p = 0; p < partitions; p++) {
                specs.put(new TopicPartition(name, p), OffsetSpec.latest());
            }
        }
        try {
            admin.listOffsets(specs).all().get(TOPIC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return false; // a leader not taking requests yet: ask again
        }
    }

    private static boolean allPartitionsLed(Admin admin, Collection<String> names, int partitions)
            throws InterruptedException {
        try {
            Map<String, TopicDescription> descriptions = admin.describeTopics(names).allTopicNames()
                    .get(TOPIC_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return descriptions.values().stream().allMatch(d -> d.partitions().size() == partitions
                    && d.partitions().stream().map(TopicPartitionInfo::leader).allMatch(l -> l != null && !l.isEmpty()));
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            // the broker's metadata cache may not know the new topic yet: ask again
            return false;
        }
    }

    // ---------------------------------------------------------------- lifecycle internals

    private Path logDir() {
        return dataDir.resolve("logs");
    }

    /** What {@code kafka-storage.sh format --cluster-id … --config …} does, for a static one-voter quorum. */
    private static void format(Path logDir, List<String> scramArguments) throws IOException {
        ByteArrayOutputStream formatterOutput = new ByteArrayOutputStream();
        try {
            new Formatter()
                    .setPrintStream(new PrintStream(formatterOutput, true, StandardCharsets.UTF_8))
                    .setNodeId(NODE_ID)
                    .setClusterId(Uuid.randomUuid().toString())
                    .setControllerListenerName(CONTROLLER_LISTENER)
                    .setMetadataLogDirectory(logDir.toString())
                    .addDirectory(logDir.toString())
                    .setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
                    .setUnstableFeatureVersionsEnabled(false)
                    .setHasDynamicQuorum(false)
                    .setScramArguments(scramArguments)
                    .run();
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("Could not format Kafka storage in " + logDir, e);
        }
        LOG.debug("Formatted Kafka storage: {}", formatterOutput.toString(StandardCharsets.UTF_8).trim());
    }

    /**
     * Starts the server. Ports chosen as free can be taken by someone else before the broker binds
     * them, and after a restart the old sockets may linger a moment, so a bind failure is retried;
     * on a first start with no fixed port, fresh ports are chosen for each attempt.
     */
    private void launch(boolean firstStart) {
        for (int attempt = 1; ; attempt++) {
            if (firstStart) {
                brokerPort = requestedPort == 0 ? freePort() : requestedPort;
                controllerPort = freePort();
                bootstrapServers = HOST + ":" + brokerPort;
            }
            KafkaRaftServer candidate = new KafkaRaftServer(new KafkaConfig(brokerProperties()), Time.SYSTEM);
            try {
                candidate.startup();
                server = candidate;
                return;
            } catch (RuntimeException e) {
                shutdownQuietly(candidate);
                if (!isBindFailure(e) || attempt >= BIND_ATTEMPTS) {
                    throw new IllegalStateException("Kafka broker failed to start on " + bootstrapServers
                            + " (controller port " + controllerPort + ")", e);
                }
                LOG.warn("Kafka broker could not bind its ports (attempt {} of {}): {}", attempt, BIND_ATTEMPTS, e.toString());
                sleepQuietly(Duration.ofMillis(200L * attempt));
            }
        }
    }

    private Properties brokerProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("process.roles", "broker,controller");
        p.put("node.id", Integer.toString(NODE_ID));
        p.put("controller.quorum.voters", NODE_ID + "@" + HOST + ":" + controllerPort);
        // the listener is named after its security protocol; the controller listener stays PLAINTEXT
        // in SASL mode too: only this process connects to it
        String brokerListener = saslUsers == null ? "PLAINTEXT" : "SASL_PLAINTEXT";
        p.put("listeners", brokerListener + "://" + HOST + ":" + brokerPort + ","
                + CONTROLLER_LISTENER + "://" + HOST + ":" + controllerPort);
        p.put("advertised.listeners", brokerListener + "://" + HOST + ":" + brokerPort);
        // with the authorizer the controller listener authenticates too: the broker's registration
        // and heartbeats need CLUSTER_ACTION, which a PLAINTEXT (User:ANONYMOUS) caller would not have
        // and must not be given, since anyone on the loopback could then speak to the controller
        String controllerProtocol = authorizer ? "SASL_PLAINTEXT" : "PLAINTEXT";
        p.put("listener.security.protocol.map", brokerListener + ":" + brokerListener + "," + CONTROLLER_LISTENER + ":" + controllerProtocol);
        p.put("controller.listener.names", CONTROLLER_LISTENER);
        p.put("inter.broker.listener.name", brokerListener);
        if (saslUsers != null) {
            p.putAll(saslUsers.brokerProperties(brokerListener));
        }
        if (authorizer) {
            p.putAll(saslUsers.controllerProperties(CONTROLLER_LISTENER));
            p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
            p.put("allow.everyone.if.no.acl.found", "false");
            // the broker itself and the kit's helpers (which create topics and ACLs) act as the admin
            p.put("super.users", "User:" + SaslUsers.ADMIN);
        }
        p.put("log.dirs", logDir().toString());
        p.put("metadata.log.dir", logDir().toString());
        // a broker that cannot come up fails start() instead of hanging it
        p.put("server.max.startup.time.ms", Long.toString(startTimeout.toMillis()));
        // one node: every internal topic with one replica, so groups and transactions work
        p.put("num.partitions", "1");
        p.put("default.replication.factor", "1");
        p.put("min.insync.replicas", "1");
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "5");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "5");
        p.put("share.coordinator.state.topic.replication.factor", "1");
        p.put("share.coordinator.state.topic.min.isr", "1");
        p.put("share.coordinator.state.topic.num.partitions", "5");
        p.put("group.initial.rebalance.delay.ms", "0");
        // the default 128 MB dedupe buffer would be a large share of a test JVM's heap
        p.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
        p.putAll(extraBrokerProperties);
        Properties props = new Properties();
        props.putAll(p);
        return props;
    }

    private void awaitReady() {
        Admin a = adminClient();
        long timeoutMs = startTimeout.toMillis();
        try {
            var nodes = a.describeCluster(new DescribeClusterOptions().timeoutMs((int) Math.min(timeoutMs, Integer.MAX_VALUE)))
                    .nodes().get(timeoutMs, TimeUnit.MILLISECONDS);
            if (nodes.isEmpty()) {
                throw new IllegalStateException("Kafka broker on " + bootstrapServers + " reports no nodes");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the Kafka broker on " + bootstrapServers, e);
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("Kafka broker on " + bootstrapServers + " was not ready within "
                    + startTimeout + " (data in " + dataDir + ")", e);
        }
    }

    private void stopServer() {
        KafkaRaftServer s = server;
        server = null;
        if (s != null) {
            s.shutdown();
            s.awaitShutdown();
        }
    }

    private static void shutdownQuietly(KafkaRaftServer s) {
        try {
            s.shutdown();
            s.awaitShutdown();
        } catch (RuntimeException e) {
            LOG.warn("Error while shutting down a Kafka broker that failed to start", e);
        }
    }

    private void deleteDataUnlessKept() {
        if (dataDir == null) {
            return;
        }
        if (keepData) {
            LOG.info("Kafka data kept in {}", dataDir);
            return;
        }
        try {
            Utils.delete(dataDir.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("Could not delete the Kafka data directory " + dataDir, e);
        }
    }

    private void requireRunning() {
        if (state != State.RUNNING) {
            throw new IllegalStateException("EmbeddedKafka is not running; it is " + state);
        }
    }

    private Map<String, Object> clientConfig(String clientIdPrefix) {
        Map<String, Object> config = new HashMap<>(clientProperties());
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, clientIdPrefix + "-" + Uuid.randomUuid());
        return config;
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free port on " + HOST, e);
        }
    }

    private static boolean isBindFailure(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BindException
                    || (t.getMessage() != null && t.getMessage().contains("failed to bind"))) {
                return true;
            }
        }
        return false;
    }

    private static void sleepQuietly(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** The shared admin: callers may close it (try-with-resources) without closing it for the others. */
    private static final class ProtectedAdmin extends ForwardingAdmin {
        ProtectedAdmin(Map<String, Object> config) {
            super(config);
        }

        @Override
        public void close(Duration timeout) {
            // owned by EmbeddedKafka; see closeForReal()
        }

        void closeForReal() {
            super.close(Duration.ofSeconds(10));
        }
    }

    /** Lets a caller's serde instance outlive the consumer that closes its deserializers. */
    private record UnclosedDeserializer<T>(Deserializer<T> delegate) implements Deserializer<T> {
        @Override
        public T deserialize(String topic, byte[] data) {
            return delegate.deserialize(topic, data);
        }

        @Override
        public T deserialize(String topic, Headers headers, byte[] data) {
            return delegate.deserialize(topic, headers, data);
        }

        @Override
        public T deserialize(String topic, Headers headers, java.nio.ByteBuffer data) {
            return delegate.deserialize(topic, headers, data);
        }

        @Override
        public void close() {
            // the caller owns the delegate
        }
    }

    /** Options of an {@link EmbeddedKafka}; {@link #build()} may be called more than once. */
    public static final class Builder {
        private int port;
        private boolean keepData;
        private Duration startTimeout = Duration.ofSeconds(60);
        private final Map<String, String> brokerProperties = new LinkedHashMap<>();
        private final Map<String, String> saslUsers = new LinkedHashMap<>();
        private boolean authorizer;

        private Builder() {
        }

        /**
         * Turns on Kafka's standard authorizer ({@code StandardAuthorizer}) with
         * {@code allow.everyone.if.no.acl.found=false}: a declared user may do only what an ACL
         * allows it, and nothing at all without one. The internal admin user (the broker itself and
         * this kit's helpers, {@link EmbeddedKafka#adminClient()} included, which creates the ACLs)
         * is the only super user. Needs at least one {@link #saslUser}; the controller listener then
         * authenticates with SASL too.
         */
        public Builder authorizer() {
            this.authorizer = true;
            return this;
        }

        /**
         * Declares a user the broker accepts and turns SASL on: the client listener becomes
         * SASL_PLAINTEXT with the mechanisms SCRAM-SHA-256 and PLAIN, and refuses unauthenticated
         * clients. Repeatable, one call per user; see {@link EmbeddedKafka#clientProperties(String)}.
         *
         * @param name     letters, digits, '_', '.' or '-', not starting with one of the last three
         * @param password non-empty printable ASCII without blanks, '"', '\' or ','
         * @throws IllegalArgumentException if the name or password has other characters, or the name
         *                                  is declared twice
         */
        public Builder saslUser(String name, String password) {
            SaslUsers.check(name, password, saslUsers);
            saslUsers.put(name, password);
            return this;
        }

        /** The broker listener's port on 127.0.0.1; 0 (the default) picks a free one. */
        public Builder port(int port) {
            if (port < 0 || port > 65_535) {
                throw new IllegalArgumentException("port must be in 0..65535, was " + port);
            }
            this.port = port;
            return this;
        }

        /** Keep the data directory after {@link EmbeddedKafka#close()} (its path is logged). */
        public Builder keepData(boolean keepData) {
            this.keepData = keepData;
            return this;
        }

        /** How long {@link EmbeddedKafka#start()} and {@link EmbeddedKafka#restart()} may take. */
        public Builder startTimeout(Duration startTimeout) {
            if (startTimeout.isNegative() || startTimeout.isZero()) {
                throw new IllegalArgumentException("startTimeout must be positive, was " + startTimeout);
            }
            this.startTimeout = startTimeout;
            return this;
        }

        /** An extra broker setting, applied last so it overrides ours (e.g. {@code auto.create.topics.enable}). */
        public Builder brokerProperty(String name, String value) {
            brokerProperties.put(name, value);
            return this;
        }

        /** Extra broker settings, as {@link #brokerProperty(String, String)}. */
        public Builder brokerProperties(Map<String, String> properties) {
            brokerProperties.putAll(properties);
            return this;
        }

        public EmbeddedKafka build() {
            return new EmbeddedKafka(this);
        }

        @Override
        public String toString() {
            return "EmbeddedKafka.Builder{port=" + port + ", keepData=" + keepData + ", startTimeout=" + startTimeout
                    + ", saslUsers=" + saslUsers.keySet() + ", authorizer=" + authorizer
                    + ", brokerProperties=" + brokerProperties.entrySet().stream()
                    .map(Map.Entry::toString).collect(Collectors.joining(", ", "{", "}")) + "}";
        }
    }
}
