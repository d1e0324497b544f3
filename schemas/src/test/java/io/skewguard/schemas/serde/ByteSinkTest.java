package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class ByteSinkTest {

  @Test
  void theRecordIsTheHeaderThenEverythingWrittenPastTheInitialSize() {
    ByteSink out = ByteSink.forRecord(16);
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
  void aRestartedRecordHoldsOnlyWhatWasWrittenAfterTheRestartAndKeepsTheArraysSize() {
    ByteSink out = ByteSink.forRecord(16);
    byte[] long1 = new byte[300];
    Arrays.fill(long1, (byte) 9);
    out.write(long1, 0, long1.length);
    out.withHeader(1);
    int grown = out.capacity();
    out.restartRecord();
    out.write(3);
    out.writeVarLong(-1L); // zig-zag: 1
    assertThat(out.withHeader(2)).containsExactly(WireFormat.MAGIC, 0, 0, 0, 2, 3, 1);
    assertThat(out.capacity()).isEqualTo(grown).isGreaterThanOrEqualTo(WireFormat.HEADER_SIZE + long1.length);
  }

  @Test
  void anEmptyBodyGivesTheHeaderAlone() {
    assertThat(ByteSink.forRecord(128).withHeader(7)).containsExactly(WireFormat.MAGIC, 0, 0, 0, 7);
  }

  @Test
  void aPlainSinkHoldsExactlyWhatWasWrittenAcrossGrowth() throws java.io.IOException {
    ByteSink sink = new ByteSink(4);
    java.io.DataOutputStream out = new java.io.DataOutputStream(sink);
    out.writeInt(0x0A0B0C0D);
    out.writeLong(-2L);
    out.writeUTF("node-1");
    java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
    java.io.DataOutputStream reference = new java.io.DataOutputStream(expected);
    reference.writeInt(0x0A0B0C0D);
    reference.writeLong(-2L);
    reference.writeUTF("node-1");
    assertThat(sink.toByteArray()).isEqualTo(expected.toByteArray());
    assertThat(new ByteSink(0).toByteArray()).isEmpty();
  }

  @Test
  void aSourceReadsBackWhatASinkWroteAndThenEnds() throws java.io.IOException {
    ByteSink sink = new ByteSink(4);
    java.io.DataOutputStream out = new java.io.DataOutputStream(sink);
    out.writeInt(-7);
    out.writeLong(Long.MIN_VALUE);
    out.writeUTF("rack-é");
    out.writeBoolean(true);
    java.io.DataInputStream in = new java.io.DataInputStream(new ByteSource(sink.toByteArray()));
    assertThat(in.readInt()).isEqualTo(-7);
    assertThat(in.readLong()).isEqualTo(Long.MIN_VALUE);
    assertThat(in.readUTF()).isEqualTo("rack-é");
    assertThat(in.readBoolean()).isTrue();
    assertThat(in.read()).isEqualTo(-1);
    assertThat(in.read(new byte[3], 0, 3)).isEqualTo(-1);
    org.assertj.core.api.Assertions.assertThatThrownBy(in::readInt).isInstanceOf(java.io.EOFException.class);
  }
}
