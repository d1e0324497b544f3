package io.skewguard.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class DeadLetterTest {

  @Test
  void headersCarrySourceAndReasonAsUtf8Text() {
    Headers headers = DeadLetter.headers("skew.node-writes", 3, 1_234_567_890_123L,
        "skew.node-writes: unknown magic byte 7 (expected 0)");
    assertThat(text(headers, "skew.dlq.source.topic")).isEqualTo("skew.node-writes");
    assertThat(text(headers, "skew.dlq.source.partition")).isEqualTo("3");
    assertThat(text(headers, "skew.dlq.source.offset")).isEqualTo("1234567890123");
    assertThat(text(headers, "skew.dlq.reason")).isEqualTo("skew.node-writes: unknown magic byte 7 (expected 0)");
    assertThat(headers.toArray()).hasSize(4);
  }

  @Test
  void deadLetterReadsBackFromItsHeaders() {
    DeadLetter letter = new DeadLetter("skew.reports", 0, 42L, "used > total: 11 > 10 (naïve node)");
    assertThat(DeadLetter.fromHeaders(letter.toHeaders())).isEqualTo(letter);
  }

  @Test
  void missingOrMalformedHeaderIsNamed() {
    Headers headers = DeadLetter.headers("t", 1, 2L, "r");
    headers.remove(DeadLetter.REASON);
    assertThatThrownBy(() -> DeadLetter.fromHeaders(headers)).hasMessageContaining("skew.dlq.reason is missing");

    Headers bad = new RecordHeaders(DeadLetter.headers("t", 1, 2L, "r").toArray());
    bad.remove(DeadLetter.SOURCE_OFFSET);
    bad.add(DeadLetter.SOURCE_OFFSET, "two".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> DeadLetter.fromHeaders(bad)).hasMessageContaining("skew.dlq.source.offset is not a number");
  }

  @Test
  void aQuotedValueIsCutToAHundredCharactersAndSaysHowLongItWas() {
    assertThat(DeadLetter.quote("n1")).isEqualTo("'n1'");
    String huge = "x".repeat(300_000);
    assertThat(DeadLetter.quote(huge)).startsWith("'" + "x".repeat(100) + "…'")
        .endsWith("(300000 characters)").hasSizeLessThan(130);
    assertThat(DeadLetter.quote(null)).isEqualTo("null");
    assertThat(DeadLetter.quote("x".repeat(99) + "\uD83D\uDE00" + "y".repeat(50))).startsWith("'" + "x".repeat(99) + "…'");
  }

  private static String text(Headers headers, String name) {
    return new String(headers.lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}
