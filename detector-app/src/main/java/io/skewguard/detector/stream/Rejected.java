package io.skewguard.detector.stream;

/**
 * An input record refused by the ingest stage, with its original key and value bytes; the record
 * it travels in carries the dead-letter headers.
 */
public record Rejected(byte[] key, byte[] value) implements IngestOutput {}
