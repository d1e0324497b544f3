package io.skewguard.schemas.serde;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.InvalidNumberEncodingException;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * Avro's binary decoding of one record body held in a byte array, refusing any string, bytes,
 * array or map length larger than the body before allocating anything for it.
 *
 * <p>Avro's {@code BinaryDecoder} allocates the buffer for a string or the backing array of a list
 * as soon as it has read the length, and only then finds that the body is too short. A corrupt or
 * hostile record of a few bytes could so make the app allocate up to 2 GB and die of
 * {@link OutOfMemoryError} instead of going to the dead-letter topic. No length in a well-formed
 * body can exceed the body's size in bytes (each string byte is a body byte, each array item takes
 * at least one byte), so this bound rejects only corrupt input. The exception is an array or map of
 * a zero-byte type ({@code null}, an empty record), which none of our schemas has.
 *
 * <p>It reads the array itself rather than through a {@code BinaryDecoder}, which near the end of
 * its input copies the last bytes into a new buffer on every record (a small record is all "near
 * the end"): the same encoding (zig-zag varints, little-endian floats, blocks with optional byte
 * sizes), the same {@link EOFException} past the end, the same refusal of an over-long varint.
 */
final class BoundedDecoder extends Decoder {

  private byte[] buf;
  private int end;
  private long limit;
  private int pos;

  private BoundedDecoder() {
  }

  /** A decoder of the {@code length} bytes of {@code data} from {@code offset} on. */
  static BoundedDecoder over(byte[] data, int offset, int length) {
    return new BoundedDecoder().reset(data, offset, length);
  }

  /**
   * This decoder, now over the {@code length} bytes of {@code data} from {@code offset} on: one
   * decoder for record after record of one thread, none allocated per record.
   */
  BoundedDecoder reset(byte[] data, int offset, int length) {
    if (offset < 0 || length < 0 || offset > data.length - length) {
      throw new IllegalArgumentException("body [" + offset + ", " + offset + " + " + length + ") outside a "
          + data.length + "-byte array");
    }
    this.buf = data;
    this.pos = offset;
    this.end = offset + length;
    this.limit = length;
    return this;
  }

  /** Bytes of the body not read yet. */
  int remaining() {
    return end - pos;
  }

  private void need(int bytes) throws EOFException {
    if (bytes > end - pos) {
      throw new EOFException("the body ends " + (bytes - (end - pos)) + " bytes early");
    }
  }

  private int next() throws EOFException {
    if (pos >= end) {
      throw new EOFException("the body ends in the middle of a number");
    }
    return buf[pos++] & 0xff;
  }

  private int length(String what) throws IOException {
    long length = readLong();
    if (length < 0) {
      throw new AvroRuntimeException("negative " + what + " length " + length);
    }
    if (length > limit) {
      // the body cannot hold it: as far as the reader can tell, the body ends early
      throw new EOFException(what + " length " + length + " exceeds the " + limit + "-byte body");
    }
    return (int) length;
  }

  private long count(long count, String what) throws EOFException {
    if (Math.abs(count) > limit) {
      throw new EOFException(what + " of " + Math.abs(count) + " items exceeds the " + limit + "-byte body");
    }
    return count;
  }

  /** A block's item count; a negative count is followed by the block's size in bytes, which is read and dropped. */
  private long blockCount() throws IOException {
    long count = readLong();
    if (count < 0) {
      readLong();
      count = -count;
    }
    return count;
  }

  /** Skips whole blocks that carry their size; returns the item count of the first block that does not (0 at the end). */
  private long skipSizedBlocks() throws IOException {
    while (true) {
      long count = readLong();
      if (count >= 0) {
        return count;
      }
      long bytes = readLong();
      if (bytes < 0 || bytes > end - pos) {
        throw new EOFException("a block of " + bytes + " bytes exceeds what is left of the " + limit + "-byte body");
      }
      pos += (int) bytes;
    }
  }

  @Override
  public Utf8 readString(Utf8 old) throws IOException {
    int length = length("string");
    need(length);
    Utf8 result = old != null ? old : new Utf8();
    result.setByteLength(length);
    System.arraycopy(buf, pos, result.getBytes(), 0, length);
    pos += length;
    return result;
  }

  @Override
  public String readString() throws IOException {
    int length = length("string");
    need(length);
    String s = new String(buf, pos, length, StandardCharsets.UTF_8);
    pos += length;
    return s;
  }

  /** A string read through {@code ids}: the shared String when these bytes were read before, the bytes not copied. */
  String readId(IdCache ids) throws IOException {
    int length = length("string");
    need(length);
    String s = ids.get(buf, pos, length);
    pos += length;
    return s;
  }

  @Override
  public void skipString() throws IOException {
    skipFixed(length("string"));
  }

  @Override
  public ByteBuffer readBytes(ByteBuffer old) throws IOException {
    int length = length("bytes");
    need(length);
    ByteBuffer result;
    if (old != null && old.hasArray() && length <= old.capacity()) {
      result = old;
      result.clear();
    } else {
      result = ByteBuffer.allocate(length);
    }
    System.arraycopy(buf, pos, result.array(), result.arrayOffset(), length);
    pos += length;
    result.limit(length);
    return result;
  }

  @Override
  public void skipBytes() throws IOException {
    skipFixed(length("bytes"));
  }

  @Override
  public long readArrayStart() throws IOException {
    return count(blockCount(), "array block");
  }

  @Override
  public long arrayNext() throws IOException {
    return count(blockCount(), "array block");
  }

  @Override
  public long readMapStart() throws IOException {
    return count(blockCount(), "map block");
  }

  @Override
  public long mapNext() throws IOException {
    return count(blockCount(), "map block");
  }

  @Override
  public long skipArray() throws IOException {
    return count(skipSizedBlocks(), "array block");
  }

  @Override
  public long skipMap() throws IOException {
    return count(skipSizedBlocks(), "map block");
  }

  @Override
  public void readNull() {
    // nothing is written for null
  }

  @Override
  public boolean readBoolean() throws IOException {
    return next() == 1;
  }

  @Override
  public int readInt() throws IOException {
    int b = next();
    int n = b & 0x7f;
    for (int shift = 7; b > 0x7f; shift += 7) {
      if (shift > 28) {
        throw new InvalidNumberEncodingException("Invalid int encoding");
      }
      b = next();
      n |= (b & 0x7f) << shift;
    }
    return (n >>> 1) ^ -(n & 1);
  }

  @Override
  public long readLong() throws IOException {
    int b = next();
    long n = b & 0x7f;
    for (int shift = 7; b > 0x7f; shift += 7) {
      if (shift > 63) {
        throw new InvalidNumberEncodingException("Invalid long encoding");
      }
      b = next();
      n |= (long) (b & 0x7f) << shift;
    }
    return (n >>> 1) ^ -(n & 1);
  }

  @Override
  public float readFloat() throws IOException {
    need(4);
    int bits = (buf[pos] & 0xff) | (buf[pos + 1] & 0xff) << 8 | (buf[pos + 2] & 0xff) << 16 | (buf[pos + 3] & 0xff) << 24;
    pos += 4;
    return Float.intBitsToFloat(bits);
  }

  @Override
  public double readDouble() throws IOException {
    need(8);
    long bits = 0;
    for (int i = 7; i >= 0; i--) {
      bits = bits << 8 | (buf[pos + i] & 0xff);
    }
    pos += 8;
    return Double.longBitsToDouble(bits);
  }

  @Override
  public void readFixed(byte[] bytes, int start, int length) throws IOException {
    need(length);
    System.arraycopy(buf, pos, bytes, start, length);
    pos += length;
  }

  @Override
  public void skipFixed(int length) throws IOException {
    if (length < 0) {
      throw new AvroRuntimeException("negative fixed length " + length);
    }
    need(length);
    pos += length;
  }

  @Override
  public int readEnum() throws IOException {
    return readInt();
  }

  @Override
  public int readIndex() throws IOException {
    return readInt();
  }
}
