package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.Encoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;

class SinkEncoderTest {

  private interface Ops {
    void apply(Encoder out) throws IOException;
  }

  private static byte[] avro(Ops ops) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
    ops.apply(encoder);
    encoder.flush();
    return out.toByteArray();
  }

  private static byte[] ours(int expectedSize, Ops ops) throws IOException {
    ByteSink sink = new ByteSink(expectedSize);
    SinkEncoder encoder = new SinkEncoder(sink);
    ops.apply(encoder);
    encoder.flush();
    return sink.toByteArray();
  }

  private static int anyInt(SplittableRandom random) {
    return switch (random.nextInt(5)) {
      case 0 -> Integer.MIN_VALUE;
      case 1 -> Integer.MAX_VALUE;
      case 2 -> random.nextInt(-200, 200);
      default -> random.nextInt();
    };
  }

  /** Random runs of every primitive Avro writes, from sinks too small for them to ones that never grow. */
  @Test
  void everyPrimitiveIsWrittenAsAvrosDirectEncoderWritesIt() throws IOException {
    SplittableRandom random = new SplittableRandom(17);
    for (int run = 0; run < 2_000; run++) {
      long seed = random.nextLong();
      Ops ops = out -> {
        SplittableRandom r = new SplittableRandom(seed);
        int n = r.nextInt(1, 60);
        for (int i = 0; i < n; i++) {
          switch (r.nextInt(9)) {
            case 0 -> out.writeInt(anyInt(r));
            case 1 -> out.writeLong(DirectCodersTest.anyLong(r));
            case 2 -> out.writeBoolean(r.nextBoolean());
            case 3 -> out.writeFloat(r.nextInt(3) == 0 ? Float.NaN : (float) r.nextDouble(-1e6, 1e6));
            case 4 -> out.writeDouble(r.nextInt(3) == 0 ? Double.NEGATIVE_INFINITY : r.nextDouble(-1e300, 1e300));
            case 5 -> out.writeString("node-" + r.nextInt(1000) + "-é节");
            case 6 -> {
              byte[] b = new byte[r.nextInt(40)];
              r.nextBytes(b);
              out.writeBytes(b);
              out.writeFixed(b, 0, b.length / 2);
            }
            case 7 -> out.writeNull();
            default -> {
              out.writeArrayStart();
              int items = r.nextInt(4);
              out.setItemCount(items);
              for (int k = 0; k < items; k++) {
                out.startItem();
                out.writeIndex(r.nextInt(3));
              }
              out.writeArrayEnd();
            }
          }
        }
      };
      byte[] expected = avro(ops);
      assertThat(ours(random.nextInt(0, 64), ops)).as("run %d", run).isEqualTo(expected);
    }
  }

  @Test
  void aGenericRecordOfEveryKindIsTheSameBytes() throws IOException {
    Schema inner = SchemaBuilder.record("Inner").fields().requiredLong("n").optionalString("s").endRecord();
    Schema schema = SchemaBuilder.record("All").fields()
        .requiredInt("i").requiredLong("l").requiredFloat("f").requiredDouble("d").requiredBoolean("b")
        .requiredString("str").requiredBytes("bytes")
        .name("e").type().enumeration("E").symbols("A", "B", "C").noDefault()
        .name("fx").type().fixed("F").size(3).noDefault()
        .name("arr").type().array().items(inner).noDefault()
        .name("map").type().map().values().longType().noDefault()
        .name("u").type().unionOf().nullType().and().longType().and().stringType().endUnion().noDefault()
        .endRecord();
    SplittableRandom random = new SplittableRandom(5);
    GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(schema, GenericData.get());
    for (int run = 0; run < 300; run++) {
      GenericRecord r = new GenericData.Record(schema);
      r.put("i", anyInt(random));
      r.put("l", DirectCodersTest.anyLong(random));
      r.put("f", (float) random.nextDouble());
      r.put("d", random.nextDouble(-1e9, 1e9));
      r.put("b", random.nextBoolean());
      r.put("str", new Utf8("x".repeat(random.nextInt(200))));
      byte[] b = new byte[random.nextInt(300)];
      random.nextBytes(b);
      r.put("bytes", ByteBuffer.wrap(b));
      r.put("e", new GenericData.EnumSymbol(schema.getField("e").schema(), "ABC".substring(run % 3, run % 3 + 1)));
      r.put("fx", new GenericData.Fixed(schema.getField("fx").schema(), new byte[] {1, (byte) run, -1}));
      List<GenericRecord> items = new ArrayList<>();
      for (int k = random.nextInt(20); k > 0; k--) {
        GenericRecord item = new GenericData.Record(inner);
        item.put("n", DirectCodersTest.anyLong(random));
        item.put("s", random.nextBoolean() ? null : "s" + k);
        items.add(item);
      }
      r.put("arr", items);
      Map<String, Long> map = new HashMap<>();
      for (int k = random.nextInt(10); k > 0; k--) {
        map.put("k" + k, DirectCodersTest.anyLong(random));
      }
      r.put("map", map);
      r.put("u", switch (run % 3) { case 0 -> null; case 1 -> DirectCodersTest.anyLong(random); default -> "u"; });
      byte[] expected = avro(out -> writer.write(r, out));
      assertThat(ours(16, out -> writer.write(r, out))).as("record %s", r).isEqualTo(expected);
    }
  }
}
