package io.skewguard.schemas.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.skewguard.schemas.CapacityEvent;
import io.skewguard.schemas.SkewReport;
import java.util.Arrays;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import org.apache.kafka.common.errors.SerializationException;

/**
 * Whatever the bytes, the deserializer gives a complete record or a SerializationException naming
 * the topic: never another exception, never an OutOfMemoryError from a corrupt length.
 */
class ArbitraryBytesProperties {

  private static final String SCOPE = "arbitrary-bytes";
  private static final Map<String, Object> CONFIG = Map.of(SchemaRegistrySerdeConfig.URL, "mock://" + SCOPE);
  private static final SchemaRegistrySerde<SkewReport> REPORTS = SchemaRegistrySerde.of(SkewReport.class, CONFIG, false);
  private static final SchemaRegistrySerde<CapacityEvent> CAPACITY = SchemaRegistrySerde.of(CapacityEvent.class, CONFIG, false);
  private static final byte[] VALID_REPORT = REPORTS.serializer().serialize("skew.reports", SampleRecords.reportFull());
  private static final byte[] VALID_CAPACITY = CAPACITY.serializer().serialize("skew.node-capacity", SampleRecords.capacityFull());

  @AfterContainer
  static void dropScope() {
    MockSchemaRegistry.drop(SCOPE);
  }

  @Property(tries = 2000)
  void randomBodyAfterAValidHeaderDecodesOrFailsCleanly(@ForAll("bodies") byte[] body) {
    byte[] bytes = Arrays.copyOf(VALID_REPORT, 5 + body.length);
    System.arraycopy(body, 0, bytes, 5, body.length);
    decodesOrFailsCleanly(bytes);
  }

  @Property(tries = 2000)
  void validRecordWithOneByteChangedDecodesOrFailsCleanly(
      @ForAll("positions") int position, @ForAll byte value, @ForAll boolean capacity) {
    byte[] valid = capacity ? VALID_CAPACITY : VALID_REPORT;
    byte[] bytes = valid.clone();
    bytes[5 + position % (bytes.length - 5)] = value;
    decodesOrFailsCleanly(bytes);
  }

  private static void decodesOrFailsCleanly(byte[] bytes) {
    for (var serde : new SchemaRegistrySerde<?>[] {REPORTS, CAPACITY}) {
      try {
        Object record = serde.deserializer().deserialize("skew.any", bytes);
        assertThat(record).isNotNull().isInstanceOf(serde.type());
      } catch (SerializationException e) {
        assertThat(e.getMessage()).startsWith("skew.any: ");
      }
    }
  }

  @Provide
  Arbitrary<byte[]> bodies() {
    return Arbitraries.bytes().array(byte[].class).ofMaxSize(64);
  }

  @Provide
  Arbitrary<Integer> positions() {
    return Arbitraries.integers().between(0, 10_000);
  }
}
