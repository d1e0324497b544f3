package io.skewguard.schemas.serde;

import java.util.Objects;
import org.apache.avro.io.BinaryEncoder;

/**
 * Avro's binary encoding written into a {@link ByteSink}: the same bytes as Avro's
 * {@code DirectBinaryEncoder}, without its call per byte. Avro's direct encoder hands every byte of
 * a varint to {@code OutputStream.write(int)}; this one writes a whole number into the sink's array
 * (Avro's own {@code BinaryData.encodeLong} and friends), which in the simulator's fast mode was a
 * tenth of the main thread (the nodes' write events, encoded per slot and step). Nothing is buffered,
 * so {@link #flush} has nothing to do. One instance serves one thread; the serializer keeps one per
 * thread with its sink and starts each record over in it ({@link ByteSink#restartRecord}).
 */
final class SinkEncoder extends BinaryEncoder {

  private final ByteSink sink;

  SinkEncoder(ByteSink sink) {
    this.sink = Objects.requireNonNull(sink, "sink");
  }

  /** The sink this encoder writes into. */
  ByteSink sink() {
    return sink;
  }

  @Override
  public void writeBoolean(boolean b) {
    sink.write(b ? 1 : 0);
  }

  @Override
  public void writeInt(int n) {
    sink.writeVarInt(n);
  }

  @Override
  public void writeLong(long n) {
    sink.writeVarLong(n);
  }

  @Override
  public void writeFloat(float f) {
    sink.writeFloatLe(f);
  }

  @Override
  public void writeDouble(double d) {
    sink.writeDoubleLe(d);
  }

  @Override
  public void writeFixed(byte[] bytes, int start, int len) {
    sink.write(bytes, start, len);
  }

  @Override
  protected void writeZero() {
    sink.write(0);
  }

  @Override
  public int bytesBuffered() {
    return 0;
  }

  @Override
  public void flush() {
    // every byte is in the sink already
  }
}
