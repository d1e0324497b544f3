package io.skewguard.schemas;

import io.skewguard.schemas.serde.UnknownSchemaException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Where a dead-lettered record came from and why it was rejected, as carried in the headers of the
 * dead-letter topic (docs/design.md §5).
 *
 * <p>The header names live here, in one place, so that every app writes them the same way and a
 * person (or a replay tool) can read any app's dead letters. Values are UTF-8 text, numbers in
 * decimal, so that {@code kcat} or the console consumer shows them as they are.
 *
 * @param sourceTopic topic the record was read from
 * @param sourcePartition partition it was read from
 * @param sourceOffset offset it had there
 * @param reason why it was rejected, for people (e.g. the deserializer's exception message)
 */
public record DeadLetter(String sourceTopic, int sourcePartition, long sourceOffset, String reason) {

  /** Header naming the topic the rejected record was read from. */
  public static final String SOURCE_TOPIC = "skew.dlq.source.topic";

  /** Header naming the partition the rejected record was read from. */
  public static final String SOURCE_PARTITION = "skew.dlq.source.partition";

  /** Header naming the offset of the rejected record. */
  public static final String SOURCE_OFFSET = "skew.dlq.source.offset";

  /** Header saying why the record was rejected. */
  public static final String REASON = "skew.dlq.reason";

  /** Rejects missing values here rather than writing a dead letter nobody can trace. */
  public DeadLetter {
    Objects.requireNonNull(sourceTopic, "sourceTopic");
    Objects.requireNonNull(reason, "reason");
  }

  /** The four dead-letter headers for the given source and reason. */
  public static Headers headers(String sourceTopic, int sourcePartition, long sourceOffset, String reason) {
    return new DeadLetter(sourceTopic, sourcePartition, sourceOffset, reason).toHeaders();
  }

  /**
   * The reason for a record the deserializer refused: its message as it is for a schema id the
   * registry does not know (it starts with {@code unknown-schema:}), else {@code undecodable: }
   * and the message. (A registry outage is no reason: such records are retried, never dead-lettered.)
   */
  public static String undecodable(RuntimeException e) {
    if (e instanceof UnknownSchemaException) {
      return e.getMessage();
    }
    return "undecodable: " + (e.getMessage() == null ? e.toString() : e.getMessage());
  }

  /** Longest id or value a reason quotes, in characters. */
  public static final int QUOTE_LIMIT = 100;

  /**
   * {@code value} as a reason quotes it: in single quotes, cut to {@value #QUOTE_LIMIT} characters
   * with its full length after an ellipsis, so that a reason naming a huge id never grows a dead
   * letter past its input.
   */
  public static String quote(String value) {
    if (value == null) {
      return "null";
    }
    if (value.length() <= QUOTE_LIMIT) {
      return "'" + value + "'";
    }
    int end = Character.isHighSurrogate(value.charAt(QUOTE_LIMIT - 1)) ? QUOTE_LIMIT - 1 : QUOTE_LIMIT; // never half a character
    return "'" + value.substring(0, end) + "…' (" + value.length() + " characters)";
  }

  /** This dead letter's four headers, in a fresh mutable {@link Headers}. */
  public Headers toHeaders() {
    RecordHeaders headers = new RecordHeaders();
    headers.add(SOURCE_TOPIC, utf8(sourceTopic));
    headers.add(SOURCE_PARTITION, utf8(Integer.toString(sourcePartition)));
    headers.add(SOURCE_OFFSET, utf8(Long.toString(sourceOffset)));
    headers.add(REASON, utf8(reason));
    return headers;
  }

  /**
   * Reads a dead letter back from a record's headers, e.g. in a replay tool or a test.
   *
   * @throws IllegalArgumentException if a header is missing or a number does not parse
   */
  public static DeadLetter fromHeaders(Headers headers) {
    return new DeadLetter(
        text(headers, SOURCE_TOPIC),
        parse(headers, SOURCE_PARTITION, Integer::parseInt),
        parse(headers, SOURCE_OFFSET, Long::parseLong),
        text(headers, REASON));
  }

  private static <N> N parse(Headers headers, String name, java.util.function.Function<String, N> parser) {
    String value = text(headers, name);
    try {
      return parser.apply(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("dead-letter header " + name + " is not a number: '" + value + "'", e);
    }
  }

  private static String text(Headers headers, String name) {
    Header header = headers.lastHeader(name);
    if (header == null || header.value() == null) {
      throw new IllegalArgumentException("dead-letter header " + name + " is missing");
    }
    return new String(header.value(), StandardCharsets.UTF_8);
  }

  private static byte[] utf8(String value) {
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
