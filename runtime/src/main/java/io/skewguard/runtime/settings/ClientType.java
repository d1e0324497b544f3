package io.skewguard.runtime.settings;

/** The kinds of Kafka client an app creates, each given only the keys it knows. */
public enum ClientType {
    CONSUMER,
    PRODUCER,
    ADMIN,
    /** A Kafka Streams application (it hands client keys on to its own consumers, producers and admin). */
    STREAMS,
    /** SkewGuard's schema-registry serdes. */
    SERDE
}
