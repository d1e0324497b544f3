package io.skewguard.schemas.serde;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.ShardUsage;
import io.skewguard.schemas.WriteEvent;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.Decoder;
import org.apache.avro.io.Encoder;
import org.apache.avro.util.Utf8;

/**
 * Hand-written Avro coders for the two records every node sends all the time, {@link WriteEvent}
 * and {@link CapacityEvent}: the same bytes as Avro's {@code SpecificDatumWriter}, and the same
 * records as its {@code SpecificDatumReader} when the writer schema is the class's own.
 *
 * <p>Why: Avro's generic coders box every {@code int} and {@code long} field, convert the
 * timestamp through the logical type's conversion, and decode each id into a new String that
 * every map lookup then hashes again. These write the fields in schema order, and read the ids
 * through a cache of the strings already seen (cluster, node and rack ids repeat on every event),
 * so the strings they return are shared and their hashes computed once. {@code DirectCodersTest}
 * checks bytes and records against Avro's own coders on random records.
 *
 * <p>A record written with any other schema (an older or newer version) is read by Avro's
 * resolving reader, as before: {@link #readerFor} answers only for the class's own schema.
 */
final class DirectCoders {

  private static final long WRITE_EVENT = SchemaNormalization.parsingFingerprint64(WriteEvent.getClassSchema());
  private static final long CAPACITY_EVENT = SchemaNormalization.parsingFingerprint64(CapacityEvent.getClassSchema());

  /**
   * The most distinct ids one reader's cache keeps, and the longest it keeps (in UTF-8 bytes, the
   * ids' own limit): others are decoded as new strings, so hostile input cannot grow it past a few MB.
   */
  static final int MAX_CACHED_IDS = 16_384;
  static final int MAX_CACHED_ID_BYTES = 255;

  private DirectCoders() {
  }

  /** The direct writer of {@code type}, or null when there is none. */
  @SuppressWarnings("unchecked")
  static <T> DatumWriter<T> writerFor(Class<T> type) {
    if (type == WriteEvent.class) {
      return (DatumWriter<T>) new WriteEventWriter();
    }
    if (type == CapacityEvent.class) {
      return (DatumWriter<T>) new CapacityEventWriter();
    }
    return null;
  }

  /** The direct reader of {@code type} for data written with {@code writerSchema}, or null when there is none. */
  @SuppressWarnings("unchecked")
  static <T> DatumReader<T> readerFor(Class<T> type, Schema writerSchema) {
    if (type == WriteEvent.class && SchemaNormalization.parsingFingerprint64(writerSchema) == WRITE_EVENT) {
      return (DatumReader<T>) new WriteEventReader();
    }
    if (type == CapacityEvent.class && SchemaNormalization.parsingFingerprint64(writerSchema) == CAPACITY_EVENT) {
      return (DatumReader<T>) new CapacityEventReader();
    }
    return null;
  }

  private static <V> V required(V value, String field) {
    return Objects.requireNonNull(value, () -> "null value for (non-nullable) field " + field);
  }

  /**
   * Ids of one field encoded once: the String to its UTF-8 bytes, written as Avro writes a string
   * (length, then bytes). Thread-safe; bounded like {@link Ids}.
   */
  private static final class IdBytes {
    private final ConcurrentHashMap<String, byte[]> bytes = new ConcurrentHashMap<>();
    /** The last id written and its bytes: a field whose value repeats (the cluster) needs no look-up. */
    private volatile Encoded last;

    private record Encoded(String id, byte[] utf8) {}

    void write(String id, Encoder out) throws IOException {
      Encoded previous = last;
      byte[] utf8 = previous != null && previous.id() == id ? previous.utf8() : bytes.get(id);
      if (utf8 == null) {
        utf8 = id.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        if (utf8.length <= MAX_CACHED_ID_BYTES && bytes.size() < MAX_CACHED_IDS) {
          bytes.putIfAbsent(id, utf8);
        }
      }
      if (previous == null || previous.id() != id) {
        last = new Encoded(id, utf8);
      }
      out.writeInt(utf8.length);
      out.writeFixed(utf8);
    }
  }

  private static final class WriteEventWriter implements DatumWriter<WriteEvent> {
    private final IdBytes clusters = new IdBytes();
    private final IdBytes nodes = new IdBytes();

    @Override
    public void setSchema(Schema schema) {
    }

    @Override
    public void write(WriteEvent e, Encoder out) throws IOException {
      clusters.write(required(e.getCluster(), "WriteEvent.cluster"), out);
      nodes.write(required(e.getNode(), "WriteEvent.node"), out);
      out.writeInt(e.getSlot());
      out.writeLong(e.getBytes());
      out.writeLong(e.getOps());
      out.writeLong(required(e.getEventTime(), "WriteEvent.eventTime").toEpochMilli());
    }
  }

  private static final class CapacityEventWriter implements DatumWriter<CapacityEvent> {
    private final IdBytes clusters = new IdBytes();
    private final IdBytes nodes = new IdBytes();
    private final IdBytes racks = new IdBytes();

    @Override
    public void setSchema(Schema schema) {
    }

    @Override
    public void write(CapacityEvent e, Encoder out) throws IOException {
      clusters.write(required(e.getCluster(), "CapacityEvent.cluster"), out);
      nodes.write(required(e.getNode(), "CapacityEvent.node"), out);
      out.writeLong(e.getUsedBytes());
      out.writeLong(e.getTotalBytes());
      String rack = e.getRack();
      if (rack == null) {
        out.writeIndex(0);
        out.writeNull();
      } else {
        out.writeIndex(1);
        racks.write(rack, out);
      }
      List<ShardUsage> shards = required(e.getShards(), "CapacityEvent.shards");
      out.writeArrayStart();
      out.setItemCount(shards.size());
      for (ShardUsage s : shards) {
        out.startItem();
        required(s, "CapacityEvent.shards[]");
        out.writeInt(s.getSlot());
        out.writeLong(s.getUsedBytes());
      }
      out.writeArrayEnd();
      out.writeLong(required(e.getEventTime(), "CapacityEvent.eventTime").toEpochMilli());
    }
  }

  /**
   * The ids of one reader, read through an {@link IdCache} where the record's bytes lie; from any other
   * decoder than ours (none today) through a copy.
   */
  private static final class Ids {
    private final IdCache cache = new IdCache(MAX_CACHED_IDS, MAX_CACHED_ID_BYTES);

    String read(Decoder in) throws IOException {
      if (in instanceof BoundedDecoder bounded) {
        return bounded.readId(cache);
      }
      Utf8 bytes = in.readString(null);
      return cache.get(bytes.getBytes(), 0, bytes.getByteLength());
    }
  }

  private static final class WriteEventReader implements DatumReader<WriteEvent> {
    private final Ids ids = new Ids();

    @Override
    public void setSchema(Schema schema) {
    }

    @Override
    public WriteEvent read(WriteEvent reuse, Decoder in) throws IOException {
      WriteEvent e = reuse != null ? reuse : new WriteEvent();
      e.setCluster(ids.read(in));
      e.setNode(ids.read(in));
      e.setSlot(in.readInt());
      e.setBytes(in.readLong());
      e.setOps(in.readLong());
      long time = in.readLong();
      Instant before = e.getEventTime();
      if (before == null || before.getNano() % 1_000_000 != 0 || before.toEpochMilli() != time) {
        e.setEventTime(Instant.ofEpochMilli(time)); // a node's writes come many to a millisecond: the same Instant serves
      }
      return e;
    }
  }

  private static final class CapacityEventReader implements DatumReader<CapacityEvent> {
    private final Ids ids = new Ids();

    @Override
    public void setSchema(Schema schema) {
    }

    @Override
    public CapacityEvent read(CapacityEvent reuse, Decoder in) throws IOException {
      CapacityEvent e = new CapacityEvent();
      e.setCluster(ids.read(in));
      e.setNode(ids.read(in));
      e.setUsedBytes(in.readLong());
      e.setTotalBytes(in.readLong());
      int branch = in.readIndex();
      if (branch == 0) {
        in.readNull();
        e.setRack(null);
      } else if (branch == 1) {
        e.setRack(ids.read(in));
      } else {
        throw new IOException("union index " + branch + " out of range for CapacityEvent.rack [null, string]");
      }
      long count = in.readArrayStart();
      List<ShardUsage> shards = new ArrayList<>((int) Math.min(count, 1 << 16));
      while (count > 0) {
        for (long i = 0; i < count; i++) {
          ShardUsage s = new ShardUsage();
          s.setSlot(in.readInt());
          s.setUsedBytes(in.readLong());
          shards.add(s);
        }
        count = in.arrayNext();
      }
      e.setShards(shards);
      e.setEventTime(Instant.ofEpochMilli(in.readLong()));
      return e;
    }
  }
}
