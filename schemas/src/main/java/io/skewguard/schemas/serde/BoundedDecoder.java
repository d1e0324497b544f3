package io.skewguard.schemas.serde;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * A binary decoder that refuses any string, bytes, array or map length larger than the body it
 * reads, before allocating anything for it.
 *
 * <p>Avro's {@link BinaryDecoder} allocates the buffer for a string or the backing array of a list
 * as soon as it has read the length, and only then finds that the body is too short. A corrupt or
 * hostile record of a few bytes could so make the app allocate up to 2 GB and die of
 * {@link OutOfMemoryError} instead of going to the dead-letter topic. No length in a well-formed
 * body can exceed the body's size in bytes (each string byte is a body byte, each array item takes
 * at least one byte), so this bound rejects only corrupt input. The exception is an array or map of
 * a zero-byte type ({@code null}, an empty record), which none of our schemas has.
 */
final class BoundedDecoder extends Decoder {

  private final BinaryDecoder in;
  private final long limit;

  private BoundedDecoder(BinaryDecoder in, long limit) {
    this.in = in;
    this.limit = limit;
  }

  /** Wraps {@code in}, which reads a body of {@code bodyLength} bytes. */
  static Decoder wrap(BinaryDecoder in, int bodyLength) {
    return new BoundedDecoder(in, bodyLength);
  }

  private int length(String what) throws IOException {
    long length = in.readLong();
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

  @Override
  public Utf8 readString(Utf8 old) throws IOException {
    int length = length("string");
    Utf8 result = old != null ? old : new Utf8();
    result.setByteLength(length);
    if (length > 0) {
      in.readFixed(result.getBytes(), 0, length);
    }
    return result;
  }

  @Override
  public String readString() throws IOException {
    int length = length("string");
    byte[] bytes = new byte[length];
    in.readFixed(bytes, 0, length);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Override
  public void skipString() throws IOException {
    in.skipFixed(length("string"));
  }

  @Override
  public ByteBuffer readBytes(ByteBuffer old) throws IOException {
    int length = length("bytes");
    ByteBuffer result;
    if (old != null && old.hasArray() && length <= old.capacity()) {
      result = old;
      result.clear();
    } else {
      result = ByteBuffer.allocate(length);
    }
    in.readFixed(result.array(), result.arrayOffset(), length);
    result.limit(length);
    return result;
  }

  @Override
  public void skipBytes() throws IOException {
    in.skipFixed(length("bytes"));
  }

  @Override
  public long readArrayStart() throws IOException {
    return count(in.readArrayStart(), "array block");
  }

  @Override
  public long arrayNext() throws IOException {
    return count(in.arrayNext(), "array block");
  }

  @Override
  public long readMapStart() throws IOException {
    return count(in.readMapStart(), "map block");
  }

  @Override
  public long mapNext() throws IOException {
    return count(in.mapNext(), "map block");
  }

  @Override
  public long skipArray() throws IOException {
    return in.skipArray();
  }

  @Override
  public long skipMap() throws IOException {
    return in.skipMap();
  }

  @Override
  public void readNull() throws IOException {
    in.readNull();
  }

  @Override
  public boolean readBoolean() throws IOException {
    return in.readBoolean();
  }

  @Override
  public int readInt() throws IOException {
    return in.readInt();
  }

  @Override
  public long readLong() throws IOException {
    return in.readLong();
  }

  @Override
  public float readFloat() throws IOException {
    return in.readFloat();
  }

  @Override
  public double readDouble() throws IOException {
    return in.readDouble();
  }

  @Override
  public void readFixed(byte[] bytes, int start, int length) throws IOException {
    in.readFixed(bytes, start, length);
  }

  @Override
  public void skipFixed(int length) throws IOException {
    in.skipFixed(length);
  }

  @Override
  public int readEnum() throws IOException {
    return in.readEnum();
  }

  @Override
  public int readIndex() throws IOException {
    return in.readIndex();
  }
}
