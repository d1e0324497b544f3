/**
 * What a Kafka Streams app does with a record it cannot get through: a poison pill (a record whose
 * processing throws the same way every time), a record stage two cannot decode, an output the
 * producer cannot write. {@link io.skewguard.runtime.streams.PoisonPills} is the one setup every
 * SkewGuard Streams app shares (docs/design.md §5): such a record goes to the dead-letter topic with
 * its reason, is counted and logged, and processing goes on; a schema-registry outage is never
 * treated as one ({@link io.skewguard.runtime.streams.PoisonPills#registryOutage}).
 */
package io.skewguard.runtime.streams;
