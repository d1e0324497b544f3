package io.skewguard.agent.store;

import java.util.Arrays;
import java.util.Objects;

/**
 * A stored value with the version its writer gave it.
 *
 * <p>Stores keep, per key, the value with the highest version (last writer wins; on a tie the value
 * already held stays). That single rule is what lets a background copy and forwarded dual-writes
 * land on a target in any order and still converge to the newest value.
 *
 * @param version writer-assigned version (a timestamp or sequence number); higher is newer
 * @param value the bytes; not copied, so callers must not change the array after handing it over
 */
public record Versioned(long version, byte[] value) {

    public Versioned {
        Objects.requireNonNull(value, "value");
    }

    /** True if this should replace {@code current} (which may be null) under last-writer-wins. */
    public boolean newerThan(Versioned current) {
        return current == null || version > current.version;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Versioned other && version == other.version && Arrays.equals(value, other.value);
    }

    @Override
    public int hashCode() {
        return 31 * Long.hashCode(version) + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "Versioned[version=" + version + ", " + value.length + " bytes]";
    }
}
