package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;

/** The array decoder reads what Avro's encoders write, and fails where Avro's own decoder fails. */
class BoundedDecoderTest {

  @Test
  void readsBackEveryKindOfValueAvroWritesIncludingBlocksThatCarryTheirSize() throws IOException {
    Random random = new Random(11);
    for (int round = 0; round < 200; round++) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      // the blocking encoder writes arrays and maps as blocks with a negative count and a byte size
      BinaryEncoder out = round % 2 == 0 ? EncoderFactory.get().directBinaryEncoder(bytes, null)
          : EncoderFactory.get().blockingBinaryEncoder(bytes, null);
      int i = random.nextInt();
      long l = round == 0 ? Long.MIN_VALUE : round == 1 ? Long.MAX_VALUE : random.nextLong() >> random.nextInt(64);
      float f = random.nextFloat();
      double d = random.nextDouble() * 1e300;
      String s = "id-" + random.nextInt(1000) + "-é€\uD83D\uDE00";
      byte[] b = new byte[random.nextInt(40)];
      random.nextBytes(b);
      int items = random.nextInt(300);
      out.writeInt(i);
      out.writeLong(l);
      out.writeFloat(f);
      out.writeDouble(d);
      out.writeBoolean(round % 3 == 0);
      out.writeNull();
      out.writeString(s);
      out.writeBytes(b);
      out.writeFixed(b);
      out.writeEnum(round % 5);
      out.writeIndex(round % 2);
      out.writeArrayStart();
      out.setItemCount(items);
      for (int k = 0; k < items; k++) {
        out.startItem();
        out.writeLong(k * 1_000_003L);
      }
      out.writeArrayEnd();
      out.writeMapStart();
      out.setItemCount(2);
      out.startItem();
      out.writeString("a");
      out.writeInt(1);
      out.startItem();
      out.writeString("b");
      out.writeInt(2);
      out.writeMapEnd();
      out.flush();
      byte[] body = bytes.toByteArray();

      byte[] framed = new byte[body.length + 7];
      System.arraycopy(body, 0, framed, 5, body.length);
      BoundedDecoder in = BoundedDecoder.over(framed, 5, body.length);
      assertThat(in.readInt()).isEqualTo(i);
      assertThat(in.readLong()).isEqualTo(l);
      assertThat(in.readFloat()).isEqualTo(f);
      assertThat(in.readDouble()).isEqualTo(d);
      assertThat(in.readBoolean()).isEqualTo(round % 3 == 0);
      in.readNull();
      assertThat(in.readString(null).toString()).isEqualTo(s);
      assertThat(in.readBytes(null)).isEqualTo(ByteBuffer.wrap(b));
      byte[] fixed = new byte[b.length];
      in.readFixed(fixed, 0, fixed.length);
      assertThat(fixed).isEqualTo(b);
      assertThat(in.readEnum()).isEqualTo(round % 5);
      assertThat(in.readIndex()).isEqualTo(round % 2);
      long k = 0;
      for (long n = in.readArrayStart(); n > 0; n = in.arrayNext()) {
        for (long j = 0; j < n; j++) {
          assertThat(in.readLong()).isEqualTo(k++ * 1_000_003L);
        }
      }
      assertThat(k).isEqualTo(items);
      assertThat(in.readMapStart()).isEqualTo(2);
      assertThat(in.readString()).isEqualTo("a");
      assertThat(in.readInt()).isEqualTo(1);
      assertThat(in.readString(new Utf8()).toString()).isEqualTo("b");
      assertThat(in.readInt()).isEqualTo(2);
      assertThat(in.mapNext()).isZero();
      assertThat(in.remaining()).isZero();
    }
  }

  @Test
  void skipsWhatAvroSkipsAndLandsOnTheSameByte() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BinaryEncoder out = EncoderFactory.get().blockingBinaryEncoder(bytes, null);
    out.writeString("skip me");
    out.writeBytes(new byte[] {1, 2, 3});
    out.writeArrayStart();
    out.setItemCount(3);
    for (int k = 0; k < 3; k++) {
      out.startItem();
      out.writeInt(k);
    }
    out.writeArrayEnd();
    out.writeLong(42);
    out.flush();
    byte[] body = bytes.toByteArray();
    BoundedDecoder in = BoundedDecoder.over(body, 0, body.length);
    in.skipString();
    in.skipBytes();
    assertThat(in.skipArray()).isZero(); // the blocking encoder's blocks carry their size: skipped whole
    assertThat(in.readLong()).isEqualTo(42);
    assertThat(in.remaining()).isZero();
  }

  @Test
  void onRandomBytesEveryNumberIsAvrosOrBothRefuseIt() throws IOException {
    Random random = new Random(5);
    for (int round = 0; round < 20_000; round++) {
      byte[] body = new byte[1 + random.nextInt(14)];
      random.nextBytes(body);
      for (int k = 0; k < body.length && random.nextInt(4) > 0; k++) {
        body[k] |= (byte) 0x80; // long continuation runs: over-long numbers and numbers cut by the end
      }
      boolean asLong = random.nextBoolean();
      BinaryDecoder avro = DecoderFactory.get().binaryDecoder(body, null);
      BoundedDecoder ours = BoundedDecoder.over(body, 0, body.length);
      Object expected;
      try {
        expected = asLong ? avro.readLong() : avro.readInt();
      } catch (IOException | RuntimeException e) {
        expected = e.getClass();
      }
      Object actual;
      try {
        actual = asLong ? ours.readLong() : ours.readInt();
      } catch (IOException | RuntimeException e) {
        actual = e.getClass();
      }
      assertThat(actual).as("%s of %s", asLong ? "long" : "int", java.util.Arrays.toString(body)).isEqualTo(expected);
    }
  }

  @Test
  void aLengthLongerThanTheBodyIsRefusedBeforeAnythingIsAllocated() {
    byte[] body = {(byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 'x'}; // a string of 2^31 − 1 bytes
    assertThatThrownBy(() -> BoundedDecoder.over(body, 0, body.length).readString(null))
        .isInstanceOf(EOFException.class).hasMessageContaining("exceeds the 6-byte body");
    assertThatThrownBy(() -> BoundedDecoder.over(new byte[] {1, 2}, 1, 2))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
