package io.skewguard.schemas.serde;

/**
 * The Confluent Schema Registry wire format, in one place: byte 0 is the magic byte 0, bytes 1 to 4
 * the schema id as a big-endian int, then the Avro binary body.
 */
final class WireFormat {

  static final byte MAGIC = 0;
  static final int HEADER_SIZE = 5;

  private WireFormat() {}

  /** Topic-name strategy: {@code <topic>-key} or {@code <topic>-value}. */
  static String subject(String topic, boolean isKey) {
    return topic + (isKey ? "-key" : "-value");
  }

  static void writeHeader(byte[] target, int schemaId) {
    target[0] = MAGIC;
    target[1] = (byte) (schemaId >>> 24);
    target[2] = (byte) (schemaId >>> 16);
    target[3] = (byte) (schemaId >>> 8);
    target[4] = (byte) schemaId;
  }

  static int readSchemaId(byte[] data) {
    return ((data[1] & 0xff) << 24) | ((data[2] & 0xff) << 16) | ((data[3] & 0xff) << 8) | (data[4] & 0xff);
  }
}
