package io.skewguard.testkit;

import io.skewguard.embedded.EmbeddedKafka;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.utils.Utils;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Lifecycle of a real broker: each test starts and closes its own. */
class EmbeddedKafkaIT {

    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaIT.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @Test
    void carriesTenThousandRecordsAndLeavesNoDataOrThreadsAfterClose() throws Exception {
        Set<Thread> threadsBefore = nonDaemonThreads();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        System.gc();
        long heapBefore = memory.getHeapMemoryUsage().getUsed();
        long startNanos = System.nanoTime();

        EmbeddedKafka kafka = EmbeddedKafka.builder().build().start();
        Path dataDir;
        try {
            long startMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            System.gc();
            long heapAfter = memory.getHeapMemoryUsage().getUsed();
            LOG.info("measured: broker start -> ready {} ms, heap retained by the idle broker {} MB"
                    + " (less if an earlier broker in this JVM already loaded the classes)",
                    startMillis, (heapAfter - heapBefore) / (1024 * 1024));

            dataDir = kafka.dataDir();
            assertThat(dataDir).isDirectory();
            assertThat(kafka.bootstrapServers()).startsWith("127.0.0.1:");

            kafka.createTopics(3, "ten-thousand");
            sendNumbered(kafka, "ten-thousand", 10_000);

            List<ConsumerRecord<String, String>> records = kafka.consumeUntil("ten-thousand",
                    new StringDeserializer(), new StringDeserializer(), 10_000, TIMEOUT);

            assertThat(records).hasSize(10_000);
            assertThat(records).extracting(ConsumerRecord::partition).containsOnly(0, 1, 2);
            Map<String, String> byKey = records.stream()
                    .collect(Collectors.toMap(ConsumerRecord::key, ConsumerRecord::value));
            assertThat(byKey).hasSize(10_000).containsEntry("k-9999", "v-9999").containsEntry("k-0", "v-0");

            Map<TopicPartition, Long> ends = kafka.endOffsets("ten-thousand");
            assertThat(ends).hasSize(3);
            assertThat(ends.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(10_000);
            assertThat(kafka.committedOffsets("never-committed")).isEmpty();
            TopicPartition first = new TopicPartition("ten-thousand", 0);
            Map<String, Object> config = new java.util.HashMap<>(kafka.clientProperties());
            config.put(ConsumerConfig.GROUP_ID_CONFIG, "committed-seven");
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
                consumer.commitSync(Map.of(first, new OffsetAndMetadata(7)));
            }
            assertThat(kafka.committedOffsets("committed-seven")).containsExactly(Map.entry(first, 7L));
        } finally {
            kafka.close();
        }

        assertThat(dataDir).doesNotExist();
        assertThat(awaitNoNewNonDaemonThreads(threadsBefore)).isEmpty();
    }

    @Test
    void restartKeepsPortsAndRecords() {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().build().start()) {
            String bootstrap = kafka.bootstrapServers();
            kafka.createTopics(2, "survives-restart");
            sendNumbered(kafka, "survives-restart", 500);

            kafka.restart();

            assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);
            assertThat(kafka.consumeUntil("survives-restart", new StringDeserializer(), new StringDeserializer(),
                    500, TIMEOUT)).hasSize(500);
            // and the restarted broker still accepts writes, through the same shared admin
            sendNumbered(kafka, "survives-restart", 10);
            assertThat(kafka.consumeUntil("survives-restart", new StringDeserializer(), new StringDeserializer(),
                    510, TIMEOUT)).hasSize(510);
        }
    }

    @Test
    void aStoppedBrokerRefusesConnectionsUntilResumedOnTheSamePortWithItsRecords() {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().build().start()) {
            String bootstrap = kafka.bootstrapServers();
            int port = Integer.parseInt(bootstrap.substring(bootstrap.lastIndexOf(':') + 1));
            kafka.createTopics(1, "survives-outage");
            sendNumbered(kafka, "survives-outage", 100);

            kafka.stop();
            assertThat(kafka.isRunning()).isFalse();
            assertThatThrownBy(() -> new java.net.Socket("127.0.0.1", port).close())
                    .as("a connection to the stopped broker").isInstanceOf(java.net.ConnectException.class);
            assertThatThrownBy(kafka::stop).isInstanceOf(IllegalStateException.class).hasMessageContaining("not running");

            kafka.resume();
            assertThat(kafka.isRunning()).isTrue();
            assertThat(kafka.bootstrapServers()).isEqualTo(bootstrap);
            sendNumbered(kafka, "survives-outage", 10);
            assertThat(kafka.consumeUntil("survives-outage", new StringDeserializer(), new StringDeserializer(),
                    110, TIMEOUT)).hasSize(110);
            assertThatThrownBy(kafka::resume).isInstanceOf(IllegalStateException.class).hasMessageContaining("not stopped");
        }
    }

    @Test
    void keepDataLeavesTheDataDirectoryAfterClose() throws Exception {
        Path dataDir;
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().keepData(true).build().start()) {
            dataDir = kafka.dataDir();
            kafka.createTopics(1, "kept");
            sendNumbered(kafka, "kept", 3);
        }
        try {
            assertThat(dataDir.resolve("logs").resolve("kept-0")).isDirectory();
            assertThat(dataDir.resolve("logs").resolve("meta.properties")).isRegularFile();
        } finally {
            Utils.delete(dataDir.toFile());
        }
    }

    @Test
    void fixedPortIsUsed() throws Exception {
        int port;
        try (var socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            port = socket.getLocalPort();
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().port(port).build().start()) {
            assertThat(kafka.bootstrapServers()).isEqualTo("127.0.0.1:" + port);
            // without SASL a client needs the address and nothing else
            assertThat(kafka.clientProperties()).containsExactly(Map.entry("bootstrap.servers", "127.0.0.1:" + port));
            assertThatThrownBy(() -> kafka.clientProperties("alice")).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("SASL is off");
            assertThat(kafka.adminClient().describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .singleElement().satisfies(node -> assertThat(node.port()).isEqualTo(port));
        }
    }

    @Test
    void brokerStartLogsOnlyAFewLinesWithTheShippedConfig() {
        LoggerContext context = (LoggerContext) LogManager.getContext(false);
        assertThat(context.getConfiguration().getConfigurationSource().getLocation()).endsWith("log4j2-test.xml");
        LineCounter lines = new LineCounter();
        lines.start();
        LoggerConfig root = context.getConfiguration().getRootLogger();
        root.addAppender(lines, null, null);
        context.updateLoggers();
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().build().start()) {
            kafka.createTopics(1, "quiet");
            sendNumbered(kafka, "quiet", 100);
        } finally {
            root.removeAppender(lines.getName());
            context.updateLoggers();
        }
        // at INFO a start alone logs well over a thousand lines; at WARN a handful
        assertThat(lines.count()).isPositive().isLessThan(50);
    }

    /** Counts the events that reach the root logger's appenders, i.e. the lines that would be printed. */
    private static final class LineCounter extends AbstractAppender {
        private final AtomicInteger count = new AtomicInteger();

        LineCounter() {
            super("line-counter", null, null, true, Property.EMPTY_ARRAY);
        }

        @Override
        public void append(LogEvent event) {
            count.incrementAndGet();
        }

        int count() {
            return count.get();
        }
    }

    static void sendNumbered(EmbeddedKafka kafka, String topic, int count) {
        try (KafkaProducer<String, String> producer = kafka.producer(new StringSerializer(), new StringSerializer())) {
            IntStream.range(0, count).forEach(i -> producer.send(new ProducerRecord<>(topic, "k-" + i, "v-" + i)));
            producer.flush();
        }
    }

    private static Set<Thread> nonDaemonThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> !t.isDaemon() && t.isAlive())
                .collect(Collectors.toSet());
    }

    /** Threads stop shortly after their executor is shut down: wait for them, but not forever. */
    private static List<String> awaitNoNewNonDaemonThreads(Set<Thread> before) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<String> leaked;
        do {
            leaked = nonDaemonThreads().stream().filter(t -> !before.contains(t)).map(Thread::getName).sorted().toList();
            if (leaked.isEmpty()) {
                return leaked;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        return leaked;
    }

}
