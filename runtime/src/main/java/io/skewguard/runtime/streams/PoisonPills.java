package io.skewguard.runtime.streams;

import io.skewguard.runtime.settings.SettingsModel;
import io.skewguard.schemas.serde.RegistryUnavailableException;
import io.skewguard.schemas.serde.SchemaRegistryException;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.DeserializationExceptionHandler;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProcessingExceptionHandler;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.processor.api.Record;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every SkewGuard Streams app does with a record it cannot get through (docs/design.md §5):
 * it goes to the dead-letter topic with its reason, is counted and logged, and processing goes on.
 * Without this a record whose processing throws the same way every time kills the stream thread,
 * whose replacement reads it again and dies again, until the process gives up.
 *
 * <ul>
 *   <li>A processor throws ({@link Processing}): the input record as read from its source topic,
 *       reason {@code poison: <exception>: <message> (in <processor>)}. A punctuation that throws
 *       has no record: it is logged and counted ({@code punctuation}), and the next one runs.</li>
 *   <li>A source record cannot be deserialized ({@link Deserialization}): the record as it came,
 *       reason {@code undecodable: ...}.</li>
 *   <li>An output cannot be serialized ({@link Production}): the input record that produced it,
 *       reason {@code unserializable: ...}. An output the producer cannot send (e.g. larger than
 *       {@code max.request.size}): a dead letter with the output's key, no value (the value is what
 *       could not be written, and would not fit the dead-letter topic either), reason
 *       {@code unproducible: ...} naming the output topic and size; under exactly_once_v2 this
 *       cannot be gone past (see {@link Production}), which is why the apps bound their outputs'
 *       size with {@link OutputLimit}: an output over it is a serialization error.</li>
 * </ul>
 *
 * <p>Processing goes on only after the dead letter is acknowledged ({@link DeadLetterSink}). If it
 * cannot be written, or the app was started without a dead-letter topic, the handler answers FAIL:
 * the stream thread dies as before and the lifecycle decides, so a record is never skipped
 * silently. A schema-registry outage ({@link #registryOutage}) is never a poison pill: FAIL too, and
 * the record is read again once the thread is replaced.
 *
 * <p>Set up in two parts: each app's settings model fixes the three handler keys
 * ({@link #handledBy}), so a user cannot swap them; {@link io.skewguard.runtime.lifecycle.StreamsService}
 * opens the app's {@link DeadLetterProducer} on the topic named by {@value #DEAD_LETTER_TOPIC} and
 * hands it to the handlers as {@value #DEAD_LETTERS}. Tests on the TopologyTestDriver put a
 * {@link DeadLetters} of their own there.
 */
public final class PoisonPills {

    /** Streams property: the app's dead-letter topic. */
    public static final String DEAD_LETTER_TOPIC = "skewguard.dead-letter.topic";

    /** Streams property: the {@link DeadLetters} object the handlers write to (not a string). */
    public static final String DEAD_LETTERS = "skewguard.dead-letters";

    private static final Logger LOG = LoggerFactory.getLogger(PoisonPills.class);
    private static final int MAX_DETAIL = 1000;
    private static final String WHY = "a record that cannot be processed, decoded or written goes to the dead-letter "
            + "topic with its reason and processing goes on (docs/design.md §5)";

    private PoisonPills() {}

    /** {@code model} with the three exception-handler keys fixed to SkewGuard's. */
    public static SettingsModel.Builder handledBy(SettingsModel.Builder model) {
        return model
                .fixes(StreamsConfig.PROCESSING_EXCEPTION_HANDLER_CLASS_CONFIG, Processing.class.getName(), WHY)
                .fixes(StreamsConfig.DESERIALIZATION_EXCEPTION_HANDLER_CLASS_CONFIG, Deserialization.class.getName(), WHY)
                .fixes(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG, Production.class.getName(), WHY);
    }

    /** {@code streams} with {@code deadLetterTopic} as the app's dead-letter topic; returns {@code streams}. */
    public static Properties routedTo(Properties streams, String deadLetterTopic) {
        streams.put(DEAD_LETTER_TOPIC, deadLetterTopic);
        return streams;
    }

    /** {@code streams} with {@code deadLetters} for the handlers (tests on the TopologyTestDriver); returns {@code streams}. */
    public static Properties writingTo(Properties streams, DeadLetters deadLetters) {
        streams.put(DEAD_LETTER_TOPIC, deadLetters.topic());
        streams.put(DEAD_LETTERS, deadLetters);
        return streams;
    }

    /**
     * True when {@code e} or one of its causes is a schema-registry outage: an outage says nothing
     * about the record, so no dead-letter path may throw the record away for it; it fails (or
     * retries) instead. Recognised: the serde's outage type ({@link RegistryUnavailableException}),
     * and a {@link SchemaRegistryException} that no registry answered, or that the registry
     * answered with 5xx, 401 or 403.
     */
    public static boolean registryOutage(Throwable e) {
        if (RegistryUnavailableException.causeOf(e).isPresent()) {
            return true;
        }
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t instanceof SchemaRegistryException r) {
                int status = r.httpStatus();
                if (status == SchemaRegistryException.NO_ANSWER || status >= 500 || status == 401 || status == 403) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * True when a Kafka client or Kafka Streams itself failed rather than the app's code on this
     * record: e.g. a processor that forwards while the task's transactional producer is in an
     * error state. Such a failure says nothing about the record, so it is no poison pill. A
     * {@link SerializationException} (our serdes' bad-input type) is the record's fault.
     */
    static boolean clientFailure(Throwable e) {
        for (Throwable t = e; t != null && t.getCause() != t; t = t.getCause()) {
            if (t.getClass().getName().startsWith("org.apache.kafka.") && !(t instanceof SerializationException)
                    && !(t instanceof StreamsException) && !(t instanceof RecordTooLargeException)) {
                return true;
            }
        }
        return false;
    }

    /** {@code e} for people: its type and message, the first cause's when Kafka Streams wrapped it. */
    static String describe(Throwable e) {
        Throwable t = e instanceof StreamsException && e.getCause() != null ? e.getCause() : e;
        String message = t.getMessage() == null ? "" : t.getMessage();
        if (message.length() > MAX_DETAIL) {
            message = message.substring(0, MAX_DETAIL) + "…";
        }
        return t.getClass().getSimpleName() + ": " + message;
    }

    /** The configuration every handler reads: the dead letters, if the app has a topic for them. */
    private abstract static class Handler implements Configurable {

        DeadLetters deadLetters;

        @Override
        public void configure(Map<String, ?> configs) {
            if (configs.get(DEAD_LETTERS) instanceof DeadLetters d) {
                deadLetters = d;
            }
        }

        /** Writes one dead letter; false (after logging why) if the caller must FAIL instead. */
        boolean deadLetter(Exception e, String sourceTopic, int partition, long offset, byte[] key, byte[] value,
                long timestamp, org.apache.kafka.common.header.Headers headers, String reason) {
            if (registryOutage(e)) {
                LOG.warn("{}-{}@{}: the schema registry is unavailable; not a dead letter, failing so it is read again: {}",
                        sourceTopic, partition, offset, describe(e));
                return false;
            }

            if (deadLetters == null) {
                LOG.error("{}-{}@{}: no dead-letter topic to write to; failing: {}", sourceTopic, partition, offset, reason, e);
                return false;
            }
            try {
                deadLetters.write(sourceTopic, partition, offset, key, value, timestamp, headers, reason);
                return true;
            } catch (RuntimeException failed) {
                LOG.error("{}-{}@{}: could not write the dead letter ({}); failing: {}", sourceTopic, partition, offset,
                        failed, reason, e);
                return false;
            }
        }
    }

    /** {@code processing.exception.handler}: a processor or punctuation that throws. */
    public static final class Processing extends Handler implements ProcessingExceptionHandler {

        @Override
        public ProcessingHandlerResponse handle(ErrorHandlerContext context, Record<?, ?> record, Exception exception) {
            String reason = "poison: " + describe(exception) + " (in " + context.processorNodeId() + ")";
            if (record == null) {
                // a punctuation: no record to set aside; the next punctuation runs as planned
                if (registryOutage(exception) || deadLetters == null) {
                    LOG.error("punctuation of {} failed; failing", context.processorNodeId(), exception);
                    return ProcessingHandlerResponse.FAIL;
                }
                deadLetters.countWithoutRecord("punctuation: " + reason);
                LOG.error("punctuation of {} failed; counted, going on: {}", context.processorNodeId(), reason, exception);
                return ProcessingHandlerResponse.CONTINUE;
            }
            if (clientFailure(exception) && !registryOutage(exception)) {
                LOG.error("{}-{}@{}: a Kafka client failed in {}, not the record; failing: {}", context.topic(),
                        context.partition(), context.offset(), context.processorNodeId(), describe(exception));
                return ProcessingHandlerResponse.FAIL;
            }
            boolean written = deadLetter(exception, context.topic(), context.partition(), context.offset(),
                    context.sourceRawKey(), context.sourceRawValue(), context.timestamp(), context.headers(), reason);
            return written ? ProcessingHandlerResponse.CONTINUE : ProcessingHandlerResponse.FAIL;
        }
    }

    /** {@code deserialization.exception.handler}: a source record that cannot be decoded. */
    public static final class Deserialization extends Handler implements DeserializationExceptionHandler {

        @Override
        public DeserializationHandlerResponse handle(ErrorHandlerContext context, ConsumerRecord<byte[], byte[]> record,
                Exception exception) {
            boolean written = deadLetter(exception, record.topic(), record.partition(), record.offset(), record.key(),
                    record.value(), record.timestamp(), record.headers(), "undecodable: " + describe(exception));
            return written ? DeserializationHandlerResponse.CONTINUE : DeserializationHandlerResponse.FAIL;
        }
    }

    /**
     * {@code production.exception.handler}: an output that cannot be serialized or sent.
     *
     * <p>Under exactly_once_v2 a send error cannot be gone past: Kafka 4.1's transactional producer
     * is in an error state after it, whatever the handler answers, and the transaction aborts. The
     * handler then still writes the dead letter (so the failure is on record, with its reason) and
     * answers FAIL: the stream thread is replaced as the lifecycle allows. The way to keep an
     * oversized output from getting that far is {@link OutputLimit} on the app's output
     * serializers: it makes it a serialization error, which is dead-lettered and gone past.
     */
    public static final class Production extends Handler implements ProductionExceptionHandler {

        private boolean exactlyOnce;

        @Override
        public void configure(Map<String, ?> configs) {
            super.configure(configs);
            Object guarantee = configs.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG);
            exactlyOnce = guarantee != null && guarantee.toString().startsWith("exactly_once");
        }

        @Override
        public ProductionExceptionHandlerResponse handle(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record,
                Exception exception) {
            int size = record.value() == null ? 0 : record.value().length;
            String reason = "unproducible: " + describe(exception) + " (a " + size + "-byte record for " + record.topic() + ")";
            // the input being processed when the producer reported the error: for a send that fails
            // asynchronously, not necessarily the one that produced the output, hence only its position
            boolean known = context.topic() != null;
            boolean written = deadLetter(exception, known ? context.topic() : record.topic(),
                    known ? context.partition() : -1, known ? context.offset() : -1L, record.key(), null,
                    record.timestamp() == null ? -1 : record.timestamp(), record.headers(), reason);
            if (written && exactlyOnce) {
                LOG.error("the transaction with the output to {} cannot commit after a send error; failing (see {})",
                        record.topic(), OutputLimit.class.getSimpleName());
                return ProductionExceptionHandlerResponse.FAIL;
            }
            return written ? ProductionExceptionHandlerResponse.CONTINUE : ProductionExceptionHandlerResponse.FAIL;
        }

        @Override
        public ProductionExceptionHandlerResponse handleSerializationException(ErrorHandlerContext context,
                ProducerRecord record, Exception exception, SerializationExceptionOrigin origin) {
            String reason = "unserializable: " + describe(exception) + " (the " + origin.toString().toLowerCase(java.util.Locale.ROOT)
                    + " of a record for " + record.topic() + ")";
            boolean known = context.topic() != null;
            boolean written = deadLetter(exception, known ? context.topic() : record.topic(),
                    known ? context.partition() : -1, known ? context.offset() : -1L, context.sourceRawKey(),
                    context.sourceRawValue(), context.timestamp(), context.headers(), reason);
            return written ? ProductionExceptionHandlerResponse.CONTINUE : ProductionExceptionHandlerResponse.FAIL;
        }
    }
}
