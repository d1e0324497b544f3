package io.skewguard.schemas.serde;

import java.io.InputStream;
import java.util.Objects;

/**
 * An input stream over a byte array that takes no lock: {@link java.io.ByteArrayInputStream}
 * locks on every read, and {@code DataInputStream.readInt} is four reads. {@link ByteSink}'s
 * counterpart, for state codecs. One instance serves one record on one thread.
 */
public final class ByteSource extends InputStream {

  private final byte[] buf;
  private int pos;

  /** A source reading {@code bytes} from the start. */
  public ByteSource(byte[] bytes) {
    this.buf = Objects.requireNonNull(bytes, "bytes");
  }

  @Override
  public int read() {
    return pos < buf.length ? buf[pos++] & 0xff : -1;
  }

  @Override
  public int read(byte[] b, int off, int len) {
    Objects.checkFromIndexSize(off, len, b.length);
    if (len == 0) {
      return 0;
    }
    int n = Math.min(len, buf.length - pos);
    if (n <= 0) {
      return -1;
    }
    System.arraycopy(buf, pos, b, off, n);
    pos += n;
    return n;
  }

  @Override
  public long skip(long n) {
    long k = Math.max(0, Math.min(n, buf.length - pos));
    pos += (int) k;
    return k;
  }

  @Override
  public int available() {
    return buf.length - pos;
  }
}
