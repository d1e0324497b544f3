package io.skewguard.runtime.streams;

import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Where the exception handlers write a dead letter. {@link #write} returns only once the record is
 * durably written and throws otherwise: a handler lets Kafka Streams go past a record only after
 * that, so a dead letter is never lost (it may be written twice, when the transaction that went past
 * it aborts and the record is processed again).
 */
@FunctionalInterface
public interface DeadLetterSink {

    /**
     * Writes {@code letter} (its topic already the dead-letter topic).
     *
     * @throws RuntimeException if it could not be written
     */
    void write(ProducerRecord<byte[], byte[]> letter);
}
