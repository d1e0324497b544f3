package io.skewguard.runtime.streams;

import io.skewguard.schemas.DeadLetter;
import io.skewguard.runtime.metrics.DeadLetterCounter;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter topic of one Streams app as the exception handlers see it: writes a rejected
 * record with the {@link DeadLetter} headers, logs it, and counts it by the code its reason starts
 * with ({@code poison}, {@code undecodable}, {@code unproducible}, ...). Thread-safe: every stream
 * thread of the app shares one.
 */
public final class DeadLetters {

    private static final Logger LOG = LoggerFactory.getLogger(DeadLetters.class);

    private final String topic;
    private final DeadLetterSink sink;
    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    public DeadLetters(String topic, DeadLetterSink sink) {
        this.topic = Objects.requireNonNull(topic, "topic");
        this.sink = Objects.requireNonNull(sink, "sink");
    }

    /** The dead-letter topic. */
    public String topic() {
        return topic;
    }

    /**
     * Writes {@code key}/{@code value} to the dead-letter topic with the record's own headers and the
     * dead-letter headers for its source and {@code reason}, then counts and logs it.
     *
     * @param timestamp the record's timestamp, negative for none
     * @throws RuntimeException if it could not be written (nothing is counted then)
     */
    public void write(String sourceTopic, int sourcePartition, long sourceOffset, byte[] key, byte[] value,
            long timestamp, Headers sourceHeaders, String reason) {
        RecordHeaders headers = new RecordHeaders();
        if (sourceHeaders != null) {
            for (Header h : sourceHeaders) {
                headers.add(h);
            }
        }
        for (Header h : DeadLetter.headers(sourceTopic, sourcePartition, sourceOffset, reason)) {
            headers.add(h);
        }
        sink.write(new ProducerRecord<>(topic, null, timestamp >= 0 ? timestamp : null, key, value, headers));
        countReason(reason);
        LOG.warn("dead-lettered {}-{}@{} to {}: {}", sourceTopic, sourcePartition, sourceOffset, topic, reason);
    }

    /** Counts a failure that has no record to dead-letter (a punctuation), under {@code reason}'s code. */
    void countWithoutRecord(String reason) {
        countReason(reason);
    }

    private void countReason(String reason) {
        int colon = reason.indexOf(':');
        counts.computeIfAbsent(colon > 0 ? reason.substring(0, colon) : reason, c -> new AtomicLong()).incrementAndGet();
        DeadLetterCounter.count(reason);
    }

    /** Records dead-lettered (and failures counted) so far, in all. */
    public long total() {
        return counts.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** How many so far with reason code {@code code} (e.g. {@code poison}). */
    public long count(String code) {
        AtomicLong n = counts.get(code);
        return n == null ? 0 : n.get();
    }

    @Override
    public String toString() {
        Map<String, Long> byCode = new TreeMap<>();
        counts.forEach((k, v) -> byCode.put(k, v.get()));
        return "DeadLetters{" + topic + ", " + byCode + "}";
    }
}
