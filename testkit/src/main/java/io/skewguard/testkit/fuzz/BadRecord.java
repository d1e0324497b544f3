package io.skewguard.testkit.fuzz;

/**
 * One record that a SkewGuard app must refuse: what it is and the bytes to produce.
 *
 * @param kind the family of defect
 * @param what the exact defect, for people (e.g. {@code "invalid: heatGini NaN"})
 * @param key the record key, null for none
 * @param value the record value, null for none
 */
public record BadRecord(Kind kind, String what, byte[] key, byte[] value) {

    /** The families of bad input the fuzz corpus covers. */
    public enum Kind {
        /** Random bytes of random length (1 to 200). */
        RANDOM_BYTES,
        /** A correctly encoded record whose first byte is not the wire format's magic byte 0. */
        WRONG_MAGIC,
        /** A correctly encoded record whose schema id the registry does not know. */
        UNKNOWN_SCHEMA_ID,
        /** A correctly encoded record cut short inside its Avro body. */
        TRUNCATED_AVRO,
        /** Valid Avro of the right schema whose values break the record's contract. */
        INVALID_VALUE,
        /** Valid Avro of the right schema carrying a 300 KB id: far beyond any sane record. */
        OVERSIZED,
        /** A key and no value. */
        NULL_VALUE,
        /** Neither key nor value. */
        NULL_KEY_AND_VALUE,
        /** No key, and a value that is a valid record (bad only where the app needs the key). */
        NULL_KEY
    }
}
