package io.skewguard.detector.stream;

/** What the ingest stage forwards: a per-cluster {@link PartialHeat} or a {@link Rejected} record. */
public sealed interface IngestOutput permits PartialHeat, Rejected {}
