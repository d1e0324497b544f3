package io.skewguard.schemas.serde;

import java.io.OutputStream;
import java.util.Arrays;

/**
 * The bytes of one record in the wire format as the serializer writes them: room for the header
 * first, then whatever the Avro encoder writes. Unlike {@link java.io.ByteArrayOutputStream} it
 * takes no lock: the direct encoder writes a record a byte or a few at a time, and a lock per write
 * was a third of the serializer's time in the simulator's fast mode. One instance serves one record
 * on one thread.
 */
final class WireBytes extends OutputStream {

  private byte[] buf;
  private int count = WireFormat.HEADER_SIZE;

  WireBytes(int expectedBodySize) {
    this.buf = new byte[WireFormat.HEADER_SIZE + Math.max(16, expectedBodySize)];
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

  private void grow(int needed) {
    buf = Arrays.copyOf(buf, Math.max(buf.length * 2, count + needed));
  }

  /** The record: the header naming {@code schemaId}, then the body written so far. */
  byte[] withHeader(int schemaId) {
    byte[] bytes = Arrays.copyOf(buf, count);
    WireFormat.writeHeader(bytes, schemaId);
    return bytes;
  }
}
