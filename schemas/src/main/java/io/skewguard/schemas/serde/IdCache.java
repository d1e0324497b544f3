package io.skewguard.schemas.serde;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Strings by their UTF-8 bytes, for the ids every node record repeats (cluster, node, rack): the bytes
 * are looked up where they lie in the record, so a known id costs one hash over its bytes and one
 * comparison, with no copy and no new String, and the String returned is shared (its own hash kept
 * for every map the id is looked up in later).
 *
 * <p>Bounded: a fixed table of {@code capacity} entries, each kept only up to {@code maxBytes} bytes,
 * and an id whose neighbourhood of {@value #PROBES} entries is full is decoded as a new String and
 * not kept, so hostile input of many distinct ids cannot grow it. Thread-safe without locks: an entry
 * is immutable and written whole, so a reader sees it entire or not at all; two threads that add at
 * once may overwrite each other's entry, which only means one more decoding later.
 */
final class IdCache {

  /** Entries looked at for one id: past them, it is decoded and not kept. */
  static final int PROBES = 8;

  private record Entry(int hash, byte[] bytes, String value) {}

  private final Entry[] table;
  private final int maxBytes;

  /** A cache of at most {@code capacity} ids (rounded up to a power of two) of at most {@code maxBytes} UTF-8 bytes each. */
  IdCache(int capacity, int maxBytes) {
    if (capacity < 1 || maxBytes < 0) {
      throw new IllegalArgumentException("capacity must be >= 1 and maxBytes >= 0, were " + capacity + " and " + maxBytes);
    }
    this.table = new Entry[Integer.highestOneBit(Math.max(1, capacity - 1)) << 1];
    this.maxBytes = maxBytes;
  }

  /** The id whose UTF-8 bytes are {@code buf[offset, offset + length)}, as {@code new String(…, UTF_8)} decodes them. */
  String get(byte[] buf, int offset, int length) {
    int hash = hash(buf, offset, length);
    int mask = table.length - 1;
    for (int i = 0; i < PROBES; i++) {
      int slot = (hash + i) & mask;
      Entry e = table[slot];
      if (e == null) {
        String decoded = new String(buf, offset, length, StandardCharsets.UTF_8);
        if (length <= maxBytes) {
          table[slot] = new Entry(hash, Arrays.copyOfRange(buf, offset, offset + length), decoded);
        }
        return decoded;
      }
      if (e.hash == hash && Arrays.equals(e.bytes, 0, e.bytes.length, buf, offset, offset + length)) {
        return e.value;
      }
    }
    return new String(buf, offset, length, StandardCharsets.UTF_8);
  }

  /** Ids kept (for tests). */
  int size() {
    int n = 0;
    for (Entry e : table) {
      n += e == null ? 0 : 1;
    }
    return n;
  }

  private static int hash(byte[] buf, int offset, int length) {
    int h = length;
    for (int i = offset, end = offset + length; i < end; i++) {
      h = 31 * h + buf[i];
    }
    return h ^ (h >>> 15);
  }
}
