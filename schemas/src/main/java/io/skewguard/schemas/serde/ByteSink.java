package io.skewguard.schemas.serde;

import java.io.OutputStream;
import java.util.Arrays;
import org.apache.avro.io.BinaryData;

/**
 * A growable byte output that takes no lock, for encoders that write a record a byte or a few at
 * a time: {@link java.io.ByteArrayOutputStream} locks on every write, which was a third of the
 * serializer's time in the simulator's fast mode, and {@code DataOutputStream.writeInt} is four
 * writes. One instance serves one thread: one record at a time, or one state codec's value.
 *
 * <p>The serializer leaves room for the wire-format header in front ({@link #forRecord}) and fills
 * it in at the end ({@link #withHeader}); state codecs use {@link #ByteSink(int)} and
 * {@link #toByteArray}. {@link SinkEncoder} writes Avro's numbers into the array itself, not a byte
 * at a time through {@link #write(int)}.
 */
public final class ByteSink extends OutputStream {

  private byte[] buf;
  private int count;

  /** An empty sink with room for {@code expectedSize} bytes before it grows. */
  public ByteSink(int expectedSize) {
    this(0, expectedSize);
  }

  private ByteSink(int reserved, int expectedSize) {
    this.buf = new byte[reserved + Math.max(16, expectedSize)];
    this.count = reserved;
  }

  /** A sink for one wire-format record: the header's bytes reserved, then the body. */
  static ByteSink forRecord(int expectedBodySize) {
    return new ByteSink(WireFormat.HEADER_SIZE, expectedBodySize);
  }

  @Override
  public void write(int b) {
    if (count == buf.length) {
      grow(1);
    }
    buf[count++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    if (len > buf.length - count) {
      grow(len);
    }
    System.arraycopy(b, off, buf, count, len);
    count += len;
  }

  /** Avro's zig-zag varint of {@code n} (at most 5 bytes), written into the array itself. */
  void writeVarInt(int n) {
    room(5);
    count += BinaryData.encodeInt(n, buf, count);
  }

  /** Avro's zig-zag varint of {@code n} (at most 10 bytes), written into the array itself. */
  void writeVarLong(long n) {
    room(10);
    count += BinaryData.encodeLong(n, buf, count);
  }

  /** Avro's little-endian float, written into the array itself. */
  void writeFloatLe(float f) {
    room(4);
    count += BinaryData.encodeFloat(f, buf, count);
  }

  /** Avro's little-endian double, written into the array itself. */
  void writeDoubleLe(double d) {
    room(8);
    count += BinaryData.encodeDouble(d, buf, count);
  }

  /** Grows the array unless {@code bytes} more fit. */
  private void room(int bytes) {
    if (buf.length - count < bytes) {
      grow(bytes);
    }
  }

  private void grow(int needed) {
    buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + needed));
  }

  /**
   * Starts a new record in a {@link #forRecord} sink: what was written is dropped, the array (as
   * large as it grew) is kept, the header's bytes stay reserved.
   */
  void restartRecord() {
    count = WireFormat.HEADER_SIZE;
  }

  /** The size of the array, which is how large the sink grew. */
  int capacity() {
    return buf.length;
  }

  /** The bytes written so far (after the reserved header, if any, which is left as zeros). */
  public byte[] toByteArray() {
    return Arrays.copyOf(buf, count);
  }

  /** The record of a {@link #forRecord} sink: the header naming {@code schemaId}, then the body written so far. */
  byte[] withHeader(int schemaId) {
    byte[] bytes = toByteArray();
    WireFormat.writeHeader(bytes, schemaId);
    return bytes;
  }
}
