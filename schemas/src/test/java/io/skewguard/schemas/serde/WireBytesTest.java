package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class WireBytesTest {

  @Test
  void theRecordIsTheHeaderThenEverythingWrittenPastTheInitialSize() {
    WireBytes out = new WireBytes(16);
    byte[] body = new byte[1000];
    for (int i = 0; i < body.length; i++) {
      body[i] = (byte) i;
    }
    out.write(body[0]);
    out.write(body, 1, 20);
    out.write(body, 21, body.length - 21);

    byte[] record = out.withHeader(0x01020304);

    assertThat(record).hasSize(WireFormat.HEADER_SIZE + body.length);
    assertThat(Arrays.copyOf(record, WireFormat.HEADER_SIZE)).containsExactly(WireFormat.MAGIC, 1, 2, 3, 4);
    assertThat(Arrays.copyOfRange(record, WireFormat.HEADER_SIZE, record.length)).isEqualTo(body);
  }

  @Test
  void anEmptyBodyGivesTheHeaderAlone() {
    assertThat(new WireBytes(128).withHeader(7)).containsExactly(WireFormat.MAGIC, 0, 0, 0, 7);
  }
}
